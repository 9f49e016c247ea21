package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
)

// awsCredentialVars are the ways to give the AWS SDK credentials, named in errors.
var awsCredentialVars = []string{
	"AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_BEARER_TOKEN_BEDROCK",
}

// bedrockEndpoint is the configured Bedrock runtime endpoint (the AWS SDK's service-specific
// variable, then the global one), "" for the regional default.
func bedrockEndpoint(cfg *Config) string {
	return cfg.firstEnv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_ENDPOINT_URL")
}

// loadAWS loads the AWS SDK's default configuration (environment, shared files, SSO, web
// identity, instance roles) and checks up front that a region and credentials exist, so the
// caller gets one clear error instead of one per page.
func loadAWS(ctx context.Context, cfg *Config, provider string) (aws.Config, error) {
	// The SDK's own client (with its CA-bundle handling) fetches credentials; hc carries the
	// model requests.
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("vlm provider %s: load AWS configuration: %w", provider, err)
	}
	if awsCfg.Region == "" {
		return aws.Config{}, &CredentialsError{Provider: provider, Vars: []string{"AWS_REGION", "AWS_DEFAULT_REGION"}}
	}
	if cfg.firstEnv("AWS_BEARER_TOKEN_BEDROCK") != "" {
		return awsCfg, nil
	}
	if awsCfg.Credentials == nil {
		return aws.Config{}, &CredentialsError{Provider: provider, Vars: awsCredentialVars}
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := awsCfg.Credentials.Retrieve(cctx); err != nil {
		return aws.Config{}, &CredentialsError{Provider: provider, Vars: awsCredentialVars, Detail: err.Error()}
	}
	return awsCfg, nil
}

type bedrockClient struct {
	client *bedrockruntime.Client
}

// newBedrock uses the Bedrock Converse API, which serves every model family on Bedrock (Nova,
// Claude, Llama) with one request shape.
func newBedrock(ctx context.Context, cfg *Config, hc *http.Client) (Client, error) {
	awsCfg, err := loadAWS(ctx, cfg, Bedrock)
	if err != nil {
		return nil, err
	}
	endpoint := bedrockEndpoint(cfg)
	c := bedrockruntime.NewFromConfig(awsCfg, func(o *bedrockruntime.Options) {
		o.HTTPClient = hc
		o.Retryer = aws.NopRetryer{}
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
	return &bedrockClient{client: c}, nil
}

func bedrockFormat(mime string) (types.ImageFormat, error) {
	switch mime {
	case "image/png":
		return types.ImageFormatPng, nil
	case "image/jpeg":
		return types.ImageFormatJpeg, nil
	case "image/gif":
		return types.ImageFormatGif, nil
	case "image/webp":
		return types.ImageFormatWebp, nil
	}
	return "", fmt.Errorf("vlm provider bedrock: image type %s is not accepted", mime)
}

func (c *bedrockClient) Generate(ctx context.Context, req Request) (*Response, error) {
	format, err := bedrockFormat(req.Image.MIME)
	if err != nil {
		return nil, err
	}
	ctx, x := track(ctx)
	in := &bedrockruntime.ConverseInput{
		ModelId: aws.String(req.Model),
		Messages: []types.Message{{
			Role: types.ConversationRoleUser,
			Content: []types.ContentBlock{
				&types.ContentBlockMemberImage{Value: types.ImageBlock{
					Format: format,
					Source: &types.ImageSourceMemberBytes{Value: req.Image.Data},
				}},
				&types.ContentBlockMemberText{Value: req.Prompt},
			},
		}},
	}
	if req.System != "" {
		in.System = []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: req.System}}
	}
	if req.MaxTokens > 0 {
		in.InferenceConfig = &types.InferenceConfiguration{MaxTokens: aws.Int32(int32(req.MaxTokens))}
	}
	out, err := c.client.Converse(ctx, in)
	if err != nil {
		status, msg := 0, ""
		var re *awshttp.ResponseError
		if errors.As(err, &re) {
			status = re.HTTPStatusCode()
		}
		var ae smithy.APIError
		if errors.As(err, &ae) {
			msg = ae.ErrorCode() + ": " + ae.ErrorMessage()
		}
		return nil, apiError(Bedrock, x, err, status, msg)
	}
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return nil, &APIError{Provider: Bedrock, Message: "the answer has no message"}
	}
	r := &Response{StopReason: string(out.StopReason), Truncated: out.StopReason == types.StopReasonMaxTokens}
	for _, b := range msg.Value.Content {
		if t, ok := b.(*types.ContentBlockMemberText); ok {
			r.Text += t.Value
		}
	}
	if u := out.Usage; u != nil {
		r.InputTokens = int64(aws.ToInt32(u.InputTokens))
		r.OutputTokens = int64(aws.ToInt32(u.OutputTokens))
	}
	return r, nil
}
