package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/bedrock"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// defaultMaxTokens is used when a request does not say: Anthropic's API requires a limit.
const defaultMaxTokens = 8192

type anthropicClient struct {
	provider string
	client   anthropic.Client
}

func newAnthropic(cfg *Config, hc *http.Client) (Client, error) {
	key := cfg.firstEnv("ANTHROPIC_API_KEY")
	if key == "" {
		return nil, &CredentialsError{Provider: Anthropic, Vars: []string{"ANTHROPIC_API_KEY"}}
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(key),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if base := cfg.firstEnv("ANTHROPIC_BASE_URL"); base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	return &anthropicClient{provider: Anthropic, client: anthropic.NewClient(opts...)}, nil
}

// newAnthropicBedrock talks the Anthropic Messages API to Bedrock's InvokeModel endpoint: the
// SDK's bedrock middleware rewrites the path to /model/{id}/invoke and signs with SigV4 (or
// sends AWS_BEARER_TOKEN_BEDROCK).
func newAnthropicBedrock(ctx context.Context, cfg *Config, hc *http.Client) (Client, error) {
	awsCfg, err := loadAWS(ctx, cfg, AnthropicBedrock)
	if err != nil {
		return nil, err
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
		bedrock.WithConfig(awsCfg),
	}
	// The bedrock option sets the regional endpoint; a configured one replaces it.
	if base := bedrockEndpoint(cfg); base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	return &anthropicClient{provider: AnthropicBedrock, client: anthropic.NewClient(opts...)}, nil
}

func (c *anthropicClient) Generate(ctx context.Context, req Request) (*Response, error) {
	ctx, x := track(ctx)
	max := int64(req.MaxTokens)
	if max <= 0 {
		max = defaultMaxTokens
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: max,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(
			anthropic.NewImageBlockBase64(req.Image.MIME, base64.StdEncoding.EncodeToString(req.Image.Data)),
			anthropic.NewTextBlock(req.Prompt),
		)},
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	out, err := c.client.Messages.New(ctx, params)
	if err != nil {
		status, msg := 0, ""
		var ae *anthropic.Error
		if errors.As(err, &ae) {
			status, msg = ae.StatusCode, anthropicMessage(ae.RawJSON())
		}
		return nil, apiError(c.provider, x, err, status, msg)
	}
	var text strings.Builder
	for _, b := range out.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	return &Response{
		Text:         text.String(),
		InputTokens:  out.Usage.InputTokens,
		OutputTokens: out.Usage.OutputTokens,
		StopReason:   string(out.StopReason),
		Truncated:    out.StopReason == anthropic.StopReasonMaxTokens,
	}, nil
}

// anthropicMessage extracts error.message from an Anthropic error body ({"type":"error",
// "error":{"type":…,"message":…}}) or Bedrock's {"message":…}.
func anthropicMessage(raw string) string {
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal([]byte(raw), &body) != nil {
		return ""
	}
	if body.Error.Message != "" {
		if body.Error.Type != "" {
			return body.Error.Type + ": " + body.Error.Message
		}
		return body.Error.Message
	}
	return body.Message
}
