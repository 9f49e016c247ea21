package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/auth/httptransport"
	"google.golang.org/genai"
)

// defaultVertexLocation is used when neither GOOGLE_CLOUD_LOCATION nor GOOGLE_CLOUD_REGION is
// set: a region where every documented Gemini model is served.
const defaultVertexLocation = "us-central1"

type googleClient struct {
	provider string
	client   *genai.Client
}

// newGoogle is the Gemini Developer API with an API key.
func newGoogle(ctx context.Context, cfg *Config, hc *http.Client) (Client, error) {
	key := cfg.firstEnv("GEMINI_API_KEY", "GOOGLE_API_KEY")
	if key == "" {
		return nil, &CredentialsError{Provider: Google, Vars: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}}
	}
	cc := &genai.ClientConfig{
		APIKey:      key,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.firstEnv("GOOGLE_GEMINI_BASE_URL")},
	}
	c, err := genai.NewClient(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("vlm provider google: %w", err)
	}
	return &googleClient{provider: Google, client: c}, nil
}

// newVertex is Gemini on Vertex AI with Application Default Credentials (a service-account or
// user credentials file named by GOOGLE_APPLICATION_CREDENTIALS, gcloud's login, or the
// metadata server), sent as OAuth bearer tokens.
func newVertex(ctx context.Context, cfg *Config, hc *http.Client) (Client, error) {
	project := cfg.firstEnv("GOOGLE_CLOUD_PROJECT")
	if project == "" {
		return nil, &CredentialsError{Provider: VertexAI, Vars: []string{"GOOGLE_CLOUD_PROJECT"}}
	}
	location := cfg.firstEnv("GOOGLE_CLOUD_LOCATION", "GOOGLE_CLOUD_REGION")
	if location == "" {
		location = defaultVertexLocation
	}
	creds, err := credentials.DetectDefault(&credentials.DetectOptions{
		Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"},
		Client: &http.Client{Transport: hc.Transport, Timeout: hc.Timeout},
	})
	if err != nil {
		return nil, &CredentialsError{Provider: VertexAI, Vars: []string{"GOOGLE_APPLICATION_CREDENTIALS"}, Detail: err.Error()}
	}
	authed, err := httptransport.NewClient(&httptransport.Options{Credentials: creds, BaseRoundTripper: hc.Transport})
	if err != nil {
		return nil, fmt.Errorf("vlm provider vertexai: %w", err)
	}
	authed.Timeout = hc.Timeout
	cc := &genai.ClientConfig{
		Backend:     genai.BackendVertexAI,
		Project:     project,
		Location:    location,
		HTTPClient:  authed,
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.firstEnv("GOOGLE_VERTEX_BASE_URL")},
	}
	c, err := genai.NewClient(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("vlm provider vertexai: %w", err)
	}
	return &googleClient{provider: VertexAI, client: c}, nil
}

func (c *googleClient) Generate(ctx context.Context, req Request) (*Response, error) {
	ctx, x := track(ctx)
	contents := []*genai.Content{genai.NewContentFromParts([]*genai.Part{
		genai.NewPartFromBytes(req.Image.Data, req.Image.MIME),
		genai.NewPartFromText(req.Prompt),
	}, genai.RoleUser)}
	gc := &genai.GenerateContentConfig{}
	if req.System != "" {
		gc.SystemInstruction = genai.NewContentFromText(req.System, genai.RoleUser)
	}
	if req.MaxTokens > 0 {
		gc.MaxOutputTokens = int32(req.MaxTokens)
	}
	out, err := c.client.Models.GenerateContent(ctx, req.Model, contents, gc)
	if err != nil {
		status, msg := 0, ""
		var ge genai.APIError
		if errors.As(err, &ge) {
			status, msg = ge.Code, ge.Message
			if ge.Status != "" && msg != "" {
				msg = ge.Status + ": " + msg
			}
		}
		return nil, apiError(c.provider, x, err, status, msg)
	}
	r := &Response{Text: out.Text()}
	if len(out.Candidates) > 0 {
		r.StopReason = string(out.Candidates[0].FinishReason)
		r.Truncated = out.Candidates[0].FinishReason == genai.FinishReasonMaxTokens
	} else if out.PromptFeedback != nil && out.PromptFeedback.BlockReason != "" {
		return nil, &APIError{Provider: c.provider, Message: "the prompt was blocked: " + string(out.PromptFeedback.BlockReason)}
	}
	if u := out.UsageMetadata; u != nil {
		r.InputTokens = int64(u.PromptTokenCount)
		r.OutputTokens = int64(u.CandidatesTokenCount)
	}
	return r, nil
}
