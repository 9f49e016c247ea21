// Package provider holds the vision-language-model clients of the vlm strategy: one per hosted
// provider, each built on that provider's official Go SDK (openai-go for OpenAI and Azure
// OpenAI, anthropic-sdk-go for Anthropic and Anthropic-on-Bedrock, the AWS SDK's Bedrock
// Converse API, google.golang.org/genai for Gemini and Vertex AI).
//
// A Client sends one image with one prompt and returns the model's text. Credentials and base
// URLs come from the process environment only (see README.md for the variables): a request
// parameter must never be able to send the server's credentials to a URL of the caller's
// choosing. The SDKs' own retries are disabled; the vlm strategy retries with one policy for
// every provider, using the status and Retry-After header recorded here.
package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Provider names, as the reference's vlm_model_provider parameter spells them.
const (
	OpenAI           = "openai"
	AzureOpenAI      = "azure_openai"
	Anthropic        = "anthropic"
	Bedrock          = "bedrock"
	AnthropicBedrock = "anthropic_bedrock"
	VertexAI         = "vertexai"
	Google           = "google"
)

// Names lists every provider, sorted.
var Names = []string{Anthropic, AnthropicBedrock, AzureOpenAI, Bedrock, Google, OpenAI, VertexAI}

// Image is one encoded page image.
type Image struct {
	Data []byte
	// MIME is image/png, image/jpeg, image/gif or image/webp.
	MIME string
}

// Request is one page sent to a model.
type Request struct {
	Model  string
	System string
	Prompt string
	Image  Image
	// MaxTokens bounds the answer.
	MaxTokens int
}

// Response is a model's answer.
type Response struct {
	Text         string
	InputTokens  int64
	OutputTokens int64
	// StopReason is the provider's finish reason (stop, end_turn, max_tokens, length…).
	StopReason string
	// Truncated reports that the answer hit the token limit.
	Truncated bool
}

// Client sends one request to one provider.
type Client interface {
	Generate(ctx context.Context, req Request) (*Response, error)
}

// Config selects and configures a client. Everything not set here comes from the environment.
type Config struct {
	Provider string
	// HTTPClient is the transport to use (tests point it at a fake server's certificate);
	// nil means a default client.
	HTTPClient *http.Client
	// Timeout bounds one request; 0 means 5 minutes.
	Timeout time.Duration
	// Getenv reads configuration; nil means os.Getenv.
	Getenv func(string) string
}

func (c *Config) getenv(k string) string {
	if c.Getenv != nil {
		return c.Getenv(k)
	}
	return os.Getenv(k)
}

// firstEnv returns the first non-empty variable among names.
func (c *Config) firstEnv(names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(c.getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// New returns the client for cfg.Provider. Missing credentials or settings are reported here,
// before any page is rendered, as a *CredentialsError naming the variable to set.
func New(ctx context.Context, cfg Config) (Client, error) {
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	// Every provider's requests pass through recorder, so status and Retry-After are known
	// whatever shape the SDK gives its errors.
	hc := &http.Client{Transport: recorder{next: transportOf(base)}, Timeout: timeout, Jar: base.Jar}
	var c Client
	var err error
	switch cfg.Provider {
	case OpenAI:
		c, err = newOpenAI(&cfg, hc)
	case AzureOpenAI:
		c, err = newAzureOpenAI(&cfg, hc)
	case Anthropic:
		c, err = newAnthropic(&cfg, hc)
	case AnthropicBedrock:
		c, err = newAnthropicBedrock(ctx, &cfg, hc)
	case Bedrock:
		c, err = newBedrock(ctx, &cfg, hc)
	case Google:
		c, err = newGoogle(ctx, &cfg, hc)
	case VertexAI:
		c, err = newVertex(ctx, &cfg, hc)
	default:
		return nil, fmt.Errorf("vlm: unknown provider %q", cfg.Provider)
	}
	if err != nil {
		return nil, err
	}
	var secrets []string
	for _, name := range credentialVars {
		if v := strings.TrimSpace(cfg.getenv(name)); len(v) >= 8 {
			secrets = append(secrets, v)
		}
	}
	return redacting{Client: c, secrets: secrets}, nil
}

// credentialVars are the environment variables that hold provider credentials.
var credentialVars = []string{"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
	"GOOGLE_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"}

// redacting removes the operator's credentials from a provider's error messages. Those
// messages reach the partition API's client (and job records): a provider, or an
// OpenAI-compatible server behind a base URL, that echoes the key or the Authorization header
// it was sent ("invalid token: Bearer sk-…") would hand the operator's key to every API user.
type redacting struct {
	Client
	secrets []string
}

func (r redacting) Generate(ctx context.Context, req Request) (*Response, error) {
	resp, err := r.Client.Generate(ctx, req)
	if err == nil || len(r.secrets) == 0 {
		return resp, err
	}
	var ae *APIError
	if errors.As(err, &ae) {
		cp := *ae
		cp.Message = r.redact(cp.Message)
		cp.Err = redactedError{msg: r.redact(fmt.Sprint(ae.Err)), cause: ae.Err}
		return resp, &cp
	}
	if msg := err.Error(); r.redact(msg) != msg {
		return resp, redactedError{msg: r.redact(msg), cause: err}
	}
	return resp, err
}

func (r redacting) redact(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, "**********")
	}
	return s
}

// redactedError is an error whose text had credentials removed; errors.Is/As still see the
// cause (context cancellation, retry classification).
type redactedError struct {
	msg   string
	cause error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.cause }

func transportOf(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

// CredentialsError reports missing configuration: the variables that would provide it.
type CredentialsError struct {
	Provider string
	Vars     []string
	Detail   string
}

func (e *CredentialsError) Error() string {
	msg := fmt.Sprintf("vlm provider %s: missing credentials: set %s", e.Provider, strings.Join(e.Vars, " or "))
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

// APIError is a provider's error answer.
type APIError struct {
	Provider string
	// Status is the HTTP status (0 when the request never got an answer).
	Status int
	// RetryAfter is the delay the provider asked for (0 when it did not say).
	RetryAfter time.Duration
	// Message is the provider's own message.
	Message string
	Err     error
}

func (e *APIError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("vlm provider %s: %s", e.Provider, e.Message)
	}
	return fmt.Sprintf("vlm provider %s: HTTP %d: %s", e.Provider, e.Status, e.Message)
}

// Unwrap returns the SDK's error.
func (e *APIError) Unwrap() error { return e.Err }

// Retryable reports whether the failure is worth another attempt: rate limits, server errors,
// timeouts and connection failures.
func (e *APIError) Retryable() bool {
	switch {
	case e.Status == 0:
		return !errors.Is(e.Err, context.Canceled)
	case e.Status == http.StatusTooManyRequests, e.Status == http.StatusRequestTimeout, e.Status == 529:
		return true
	case e.Status >= 500:
		return e.Status != http.StatusNotImplemented
	}
	return false
}

// exchange is what recorder saw of the last response of one Generate call.
type exchange struct {
	mu         sync.Mutex
	status     int
	retryAfter time.Duration
	requestID  string
}

type exchangeKey struct{}

// track returns a context under which recorder notes the responses of one call.
func track(ctx context.Context) (context.Context, *exchange) {
	x := &exchange{}
	return context.WithValue(ctx, exchangeKey{}, x), x
}

// recorder notes status and Retry-After of every response that belongs to a tracked call.
type recorder struct{ next http.RoundTripper }

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if x, ok := req.Context().Value(exchangeKey{}).(*exchange); ok && resp != nil {
		x.mu.Lock()
		x.status = resp.StatusCode
		x.retryAfter = ParseRetryAfter(resp.Header, time.Now())
		x.requestID = firstHeader(resp.Header, "x-request-id", "request-id", "x-amzn-requestid", "apim-request-id")
		x.mu.Unlock()
	}
	return resp, err
}

func firstHeader(h http.Header, names ...string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// ParseRetryAfter reads Retry-After (seconds or an HTTP date) and the millisecond variants
// some providers send (retry-after-ms, x-ms-retry-after-ms). It returns 0 when none is usable.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	for _, k := range []string{"retry-after-ms", "x-ms-retry-after-ms"} {
		if v := h.Get(k); v != "" {
			if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
				return time.Duration(ms * float64(time.Millisecond))
			}
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// apiError turns an SDK error into an *APIError with what the recorder saw. status and msg are
// what the SDK's error type exposes (0 and "" when it exposes nothing).
func apiError(provider string, x *exchange, err error, status int, msg string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if status == 0 && x.status >= 400 {
		status = x.status
	}
	if msg == "" {
		msg = err.Error()
	}
	if x.requestID != "" {
		msg += " (request id " + x.requestID + ")"
	}
	e := &APIError{Provider: provider, Status: status, Message: msg, Err: err}
	if status != 0 {
		e.RetryAfter = x.retryAfter
	}
	return e
}
