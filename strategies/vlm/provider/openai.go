package provider

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
)

// defaultAzureAPIVersion is a generally available Azure OpenAI data-plane version that accepts
// image input; OPENAI_API_VERSION overrides it.
const defaultAzureAPIVersion = "2024-10-21"

type openAIClient struct {
	provider string
	client   openai.Client
	// azure deployments of reasoning models reject max_tokens; both use max_completion_tokens.
}

func newOpenAI(cfg *Config, hc *http.Client) (Client, error) {
	key := cfg.firstEnv("OPENAI_API_KEY")
	if key == "" {
		return nil, &CredentialsError{Provider: OpenAI, Vars: []string{"OPENAI_API_KEY"}}
	}
	opts := []option.RequestOption{
		option.WithAPIKey(key),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if base := cfg.firstEnv("OPENAI_BASE_URL"); base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	if org := cfg.firstEnv("OPENAI_ORG_ID"); org != "" {
		opts = append(opts, option.WithOrganization(org))
	}
	if proj := cfg.firstEnv("OPENAI_PROJECT_ID"); proj != "" {
		opts = append(opts, option.WithProject(proj))
	}
	return &openAIClient{provider: OpenAI, client: openai.NewClient(opts...)}, nil
}

func newAzureOpenAI(cfg *Config, hc *http.Client) (Client, error) {
	endpoint := cfg.firstEnv("AZURE_OPENAI_ENDPOINT")
	if endpoint == "" {
		return nil, &CredentialsError{Provider: AzureOpenAI, Vars: []string{"AZURE_OPENAI_ENDPOINT"},
			Detail: "the resource endpoint, e.g. https://NAME.openai.azure.com"}
	}
	key := cfg.firstEnv("AZURE_OPENAI_API_KEY")
	if key == "" {
		return nil, &CredentialsError{Provider: AzureOpenAI, Vars: []string{"AZURE_OPENAI_API_KEY"}}
	}
	version := cfg.firstEnv("OPENAI_API_VERSION", "AZURE_OPENAI_API_VERSION")
	if version == "" {
		version = defaultAzureAPIVersion
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
		azure.WithEndpoint(endpoint, version),
		azure.WithAPIKey(key),
	}
	if strings.HasPrefix(endpoint, "http://") {
		// Plain HTTP is only for a local gateway or emulator; the SDK itself refuses
		// anything but loopback addresses.
		opts = append(opts, azure.WithUnsafeAllowHTTP())
	}
	return &openAIClient{provider: AzureOpenAI, client: openai.NewClient(opts...)}, nil
}

func (c *openAIClient) Generate(ctx context.Context, req Request) (*Response, error) {
	ctx, x := track(ctx)
	url := "data:" + req.Image.MIME + ";base64," + base64.StdEncoding.EncodeToString(req.Image.Data)
	var msgs []openai.ChatCompletionMessageParamUnion
	if req.System != "" {
		msgs = append(msgs, openai.SystemMessage(req.System))
	}
	msgs = append(msgs, openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
		openai.TextContentPart(req.Prompt),
		openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: url, Detail: "high"}),
	}))
	params := openai.ChatCompletionNewParams{
		Model:    openai.ChatModel(req.Model),
		Messages: msgs,
	}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	out, err := c.client.Chat.Completions.New(ctx, params)
	if err != nil {
		status, msg := 0, ""
		var oe *openai.Error
		if errors.As(err, &oe) {
			status, msg = oe.StatusCode, oe.Message
		}
		return nil, apiError(c.provider, x, err, status, msg)
	}
	if len(out.Choices) == 0 {
		return nil, &APIError{Provider: c.provider, Message: "the answer has no choices"}
	}
	ch := out.Choices[0]
	if ch.Message.Refusal != "" && ch.Message.Content == "" {
		return nil, &APIError{Provider: c.provider, Message: "the model refused: " + ch.Message.Refusal}
	}
	return &Response{
		Text:         ch.Message.Content,
		InputTokens:  out.Usage.PromptTokens,
		OutputTokens: out.Usage.CompletionTokens,
		StopReason:   string(ch.FinishReason),
		Truncated:    ch.FinishReason == "length",
	}, nil
}
