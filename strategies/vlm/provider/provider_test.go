package provider

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// pageHTML is a realistic answer: what a model returns for a paper's first page.
const pageHTML = `<h1 class="Title">LayoutParser: A Unified Toolkit</h1>
<p class="NarrativeText">Recent advances in document image analysis have been driven by neural networks.</p>
<table class="Table"><tr><th>Dataset</th><th>Base Model</th></tr><tr><td>PubLayNet</td><td>F / M</td></tr></table>
<footer class="Footer">1</footer>`

func testPNG(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 40, 30))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// call is what the fake server saw of one request.
type call struct {
	method, path, rawPath, query string
	header                       http.Header
	body                         map[string]any
}

// fakeServer is a TLS server: the SDKs that insist on HTTPS for credentials get it, and the
// client under test trusts it through Config.HTTPClient. handle answers the provider's API;
// other paths (token endpoints) go to extra.
func fakeServer(t *testing.T, handle func(w http.ResponseWriter, c call), extra map[string]http.HandlerFunc) (*httptest.Server, *[]call) {
	t.Helper()
	var calls []call
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := extra[r.URL.Path]; ok {
			h(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		c := call{method: r.Method, path: r.URL.Path, rawPath: r.URL.EscapedPath(), query: r.URL.RawQuery, header: r.Header.Clone()}
		if err := json.Unmarshal(raw, &c.body); err != nil {
			t.Errorf("request body is not JSON: %v: %.200s", err, raw)
		}
		calls = append(calls, c)
		handle(w, c)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// get walks a decoded JSON value by keys and indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func str(v any) string { s, _ := v.(string); return s }

// isolate clears every credential variable the SDKs read, so a developer's own configuration
// cannot leak into a test.
func isolate(t *testing.T) {
	t.Helper()
	for _, k := range []string{
		"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "AZURE_OPENAI_ENDPOINT",
		"AZURE_OPENAI_API_KEY", "OPENAI_API_VERSION", "AZURE_OPENAI_API_VERSION", "ANTHROPIC_API_KEY",
		"ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
		"AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_BEARER_TOKEN_BEDROCK", "AWS_ENDPOINT_URL",
		"AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
		"GOOGLE_VERTEX_BASE_URL", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_CLOUD_REGION",
		"GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE",
	} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "aws-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "aws-credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(dir, "missing-adc.json"))
}

func generate(t *testing.T, prov string, srv *httptest.Server, model string) (*Response, error) {
	t.Helper()
	c, err := New(context.Background(), Config{Provider: prov, HTTPClient: srv.Client(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("New(%s): %v", prov, err)
	}
	return c.Generate(context.Background(), Request{
		Model: model, System: "system rules", Prompt: "Transcribe this page.",
		Image: Image{Data: testPNG(t), MIME: "image/png"}, MaxTokens: 1000,
	})
}

func checkAnswer(t *testing.T, r *Response, in, out int64) {
	t.Helper()
	if r.Text != pageHTML {
		t.Errorf("text = %q", r.Text)
	}
	if r.InputTokens != in || r.OutputTokens != out {
		t.Errorf("tokens = %d/%d, want %d/%d", r.InputTokens, r.OutputTokens, in, out)
	}
	if r.Truncated {
		t.Error("truncated")
	}
}

func openAIAnswer(w http.ResponseWriter) {
	writeJSON(w, 200, map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": "gpt-4o-2024-08-06",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": pageHTML, "refusal": nil}}},
		"usage": map[string]any{"prompt_tokens": 812, "completion_tokens": 95, "total_tokens": 907},
	})
}

func checkOpenAIBody(t *testing.T, c call, model string, png []byte) {
	t.Helper()
	if got := str(get(c.body, "model")); got != model {
		t.Errorf("model = %q", got)
	}
	if got := str(get(c.body, "messages", 0, "role")); got != "system" {
		t.Errorf("first message role = %q", got)
	}
	content := get(c.body, "messages", 1, "content")
	if str(get(content, 0, "type")) != "text" || str(get(content, 1, "type")) != "image_url" {
		t.Errorf("content parts = %v", content)
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	if got := str(get(content, 1, "image_url", "url")); got != want {
		t.Errorf("image url = %.60q…", got)
	}
	if get(c.body, "max_completion_tokens") != float64(1000) {
		t.Errorf("max_completion_tokens = %v", get(c.body, "max_completion_tokens"))
	}
}

func TestOpenAI(t *testing.T) {
	isolate(t)
	srv, calls := fakeServer(t, func(w http.ResponseWriter, c call) { openAIAnswer(w) }, nil)
	t.Setenv("OPENAI_API_KEY", "sk-test-123")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	r, err := generate(t, OpenAI, srv, "gpt-4o")
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, r, 812, 95)
	c := (*calls)[0]
	if c.method != "POST" || c.path != "/v1/chat/completions" {
		t.Errorf("request = %s %s", c.method, c.path)
	}
	if got := c.header.Get("Authorization"); got != "Bearer sk-test-123" {
		t.Errorf("Authorization = %q", got)
	}
	checkOpenAIBody(t, c, "gpt-4o", testPNG(t))
}

func TestAzureOpenAI(t *testing.T) {
	isolate(t)
	srv, calls := fakeServer(t, func(w http.ResponseWriter, c call) { openAIAnswer(w) }, nil)
	t.Setenv("AZURE_OPENAI_ENDPOINT", srv.URL)
	t.Setenv("AZURE_OPENAI_API_KEY", "azure-key-1")
	r, err := generate(t, AzureOpenAI, srv, "gpt-4o")
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, r, 812, 95)
	c := (*calls)[0]
	if c.path != "/openai/deployments/gpt-4o/chat/completions" {
		t.Errorf("path = %s", c.path)
	}
	if q, _ := url.ParseQuery(c.query); q.Get("api-version") != defaultAzureAPIVersion {
		t.Errorf("query = %s", c.query)
	}
	if got := c.header.Get("Api-Key"); got != "azure-key-1" {
		t.Errorf("Api-Key = %q", got)
	}
	if got := c.header.Get("Authorization"); got != "" {
		t.Errorf("Authorization sent to Azure: %q", got)
	}
	checkOpenAIBody(t, c, "gpt-4o", testPNG(t))
}

func anthropicAnswer(w http.ResponseWriter) {
	writeJSON(w, 200, map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
		"content":     []any{map[string]any{"type": "text", "text": pageHTML}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1650, "output_tokens": 120},
	})
}

func checkAnthropicBody(t *testing.T, c call, png []byte) {
	t.Helper()
	img := get(c.body, "messages", 0, "content", 0)
	if str(get(img, "type")) != "image" || str(get(img, "source", "type")) != "base64" ||
		str(get(img, "source", "media_type")) != "image/png" {
		t.Errorf("image block = %v", img)
	}
	if got := str(get(img, "source", "data")); got != base64.StdEncoding.EncodeToString(png) {
		t.Errorf("image data = %.40q…", got)
	}
	if str(get(c.body, "messages", 0, "content", 1, "text")) != "Transcribe this page." {
		t.Errorf("text block = %v", get(c.body, "messages", 0, "content", 1))
	}
	if str(get(c.body, "system", 0, "text")) != "system rules" || get(c.body, "max_tokens") != float64(1000) {
		t.Errorf("system/max_tokens = %v / %v", get(c.body, "system"), get(c.body, "max_tokens"))
	}
}

func TestAnthropic(t *testing.T) {
	isolate(t)
	srv, calls := fakeServer(t, func(w http.ResponseWriter, c call) { anthropicAnswer(w) }, nil)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	r, err := generate(t, Anthropic, srv, "claude-sonnet-4-20250514")
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, r, 1650, 120)
	c := (*calls)[0]
	if c.path != "/v1/messages" {
		t.Errorf("path = %s", c.path)
	}
	if c.header.Get("X-Api-Key") != "sk-ant-test" || c.header.Get("Anthropic-Version") == "" {
		t.Errorf("headers = %v", c.header)
	}
	if str(get(c.body, "model")) != "claude-sonnet-4-20250514" {
		t.Errorf("model = %v", get(c.body, "model"))
	}
	checkAnthropicBody(t, c, testPNG(t))
}

// sigV4 is the shape of an AWS Signature Version 4 Authorization header.
var sigV4 = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/(\d{8})/us-west-2/bedrock/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=[0-9a-f]{64}$`)

func awsEnv(t *testing.T, srv *httptest.Server) {
	t.Setenv("AWS_REGION", "us-west-2")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
	t.Setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", srv.URL)
}

func checkSigV4(t *testing.T, h http.Header) {
	t.Helper()
	m := sigV4.FindStringSubmatch(h.Get("Authorization"))
	if m == nil {
		t.Fatalf("Authorization = %q, want SigV4", h.Get("Authorization"))
	}
	if date := h.Get("X-Amz-Date"); !strings.HasPrefix(date, m[1]) {
		t.Errorf("X-Amz-Date %q does not match the credential scope date %s", date, m[1])
	}
	for _, want := range []string{"host", "x-amz-date"} {
		if !strings.Contains(";"+m[2]+";", ";"+want+";") {
			t.Errorf("SignedHeaders %q lacks %s", m[2], want)
		}
	}
}

func TestBedrockConverse(t *testing.T) {
	isolate(t)
	srv, calls := fakeServer(t, func(w http.ResponseWriter, c call) {
		writeJSON(w, 200, map[string]any{
			"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"text": pageHTML}}}},
			"stopReason": "end_turn",
			"usage":      map[string]any{"inputTokens": 1300, "outputTokens": 110, "totalTokens": 1410},
			"metrics":    map[string]any{"latencyMs": 2100},
		})
	}, nil)
	awsEnv(t, srv)
	r, err := generate(t, Bedrock, srv, "us.amazon.nova-lite-v1:0")
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, r, 1300, 110)
	c := (*calls)[0]
	if c.path != "/model/us.amazon.nova-lite-v1:0/converse" {
		t.Errorf("path = %s (raw %s)", c.path, c.rawPath)
	}
	checkSigV4(t, c.header)
	img := get(c.body, "messages", 0, "content", 0, "image")
	if str(get(img, "format")) != "png" || str(get(img, "source", "bytes")) != base64.StdEncoding.EncodeToString(testPNG(t)) {
		t.Errorf("image block = %v", img)
	}
	if str(get(c.body, "messages", 0, "content", 1, "text")) != "Transcribe this page." ||
		str(get(c.body, "system", 0, "text")) != "system rules" ||
		get(c.body, "inferenceConfig", "maxTokens") != float64(1000) {
		t.Errorf("body = %v", c.body)
	}
}

func TestAnthropicBedrock(t *testing.T) {
	isolate(t)
	srv, calls := fakeServer(t, func(w http.ResponseWriter, c call) { anthropicAnswer(w) }, nil)
	awsEnv(t, srv)
	model := "us.anthropic.claude-sonnet-4-20250514-v1:0"
	r, err := generate(t, AnthropicBedrock, srv, model)
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, r, 1650, 120)
	c := (*calls)[0]
	if c.path != "/model/"+model+"/invoke" {
		t.Errorf("path = %s", c.path)
	}
	checkSigV4(t, c.header)
	if c.header.Get("X-Api-Key") != "" {
		t.Error("an Anthropic API key was sent to Bedrock")
	}
	if str(get(c.body, "anthropic_version")) != "bedrock-2023-05-31" || get(c.body, "model") != nil {
		t.Errorf("anthropic_version/model = %v / %v", get(c.body, "anthropic_version"), get(c.body, "model"))
	}
	checkAnthropicBody(t, c, testPNG(t))
}

func geminiAnswer(w http.ResponseWriter) {
	writeJSON(w, 200, map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": pageHTML}}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 1100, "candidatesTokenCount": 101, "totalTokenCount": 1201},
		"modelVersion":  "gemini-2.0-flash-001",
	})
}

func checkGeminiBody(t *testing.T, c call, png []byte) {
	t.Helper()
	parts := get(c.body, "contents", 0, "parts")
	if str(get(parts, 0, "inlineData", "mimeType")) != "image/png" ||
		str(get(parts, 0, "inlineData", "data")) != base64.StdEncoding.EncodeToString(png) {
		t.Errorf("image part = %v", get(parts, 0))
	}
	if str(get(parts, 1, "text")) != "Transcribe this page." || str(get(c.body, "contents", 0, "role")) != "user" {
		t.Errorf("text part = %v", get(parts, 1))
	}
	if str(get(c.body, "systemInstruction", "parts", 0, "text")) != "system rules" ||
		get(c.body, "generationConfig", "maxOutputTokens") != float64(1000) {
		t.Errorf("config = %v / %v", get(c.body, "systemInstruction"), get(c.body, "generationConfig"))
	}
}

func TestGoogle(t *testing.T) {
	isolate(t)
	srv, calls := fakeServer(t, func(w http.ResponseWriter, c call) { geminiAnswer(w) }, nil)
	t.Setenv("GEMINI_API_KEY", "AIza-test")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL)
	r, err := generate(t, Google, srv, "gemini-2.0-flash-001")
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, r, 1100, 101)
	c := (*calls)[0]
	if c.path != "/v1beta/models/gemini-2.0-flash-001:generateContent" {
		t.Errorf("path = %s", c.path)
	}
	if c.header.Get("X-Goog-Api-Key") != "AIza-test" {
		t.Errorf("x-goog-api-key = %q", c.header.Get("X-Goog-Api-Key"))
	}
	checkGeminiBody(t, c, testPNG(t))
}

// TestVertexAI runs the whole Application Default Credentials path: a service-account file
// whose token_uri is the fake server, the JWT-bearer exchange, then the bearer token on the
// Vertex AI request.
func TestVertexAI(t *testing.T) {
	isolate(t)
	var grant url.Values
	token := func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		grant = r.PostForm
		writeJSON(w, 200, map[string]any{"access_token": "ya29.fake-token", "expires_in": 3600, "token_type": "Bearer"})
	}
	srv, calls := fakeServer(t, func(w http.ResponseWriter, c call) { geminiAnswer(w) }, map[string]http.HandlerFunc{"/token": token})
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	sa, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "quarry-test", "private_key_id": "k1", "private_key": string(pemKey),
		"client_email": "vlm@quarry-test.iam.gserviceaccount.com", "client_id": "1", "token_uri": srv.URL + "/token",
	})
	path := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(path, sa, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
	t.Setenv("GOOGLE_CLOUD_PROJECT", "quarry-test")
	t.Setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
	t.Setenv("GOOGLE_VERTEX_BASE_URL", srv.URL)
	r, err := generate(t, VertexAI, srv, "gemini-2.0-flash-001")
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, r, 1100, 101)
	if grant.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || strings.Count(grant.Get("assertion"), ".") != 2 {
		t.Errorf("token request = %v", grant)
	}
	c := (*calls)[0]
	if c.path != "/v1beta1/projects/quarry-test/locations/europe-west4/publishers/google/models/gemini-2.0-flash-001:generateContent" {
		t.Errorf("path = %s", c.path)
	}
	if got := c.header.Get("Authorization"); got != "Bearer ya29.fake-token" {
		t.Errorf("Authorization = %q", got)
	}
	checkGeminiBody(t, c, testPNG(t))
}

// TestErrors checks that each provider's error answer becomes an *APIError with the status,
// the provider's own message and the Retry-After delay.
func TestErrors(t *testing.T) {
	cases := []struct {
		prov, model string
		env         func(t *testing.T, srv *httptest.Server)
		body        any
		wantMsg     string
	}{
		{OpenAI, "gpt-4o", func(t *testing.T, s *httptest.Server) {
			t.Setenv("OPENAI_API_KEY", "k")
			t.Setenv("OPENAI_BASE_URL", s.URL+"/v1")
		}, map[string]any{"error": map[string]any{"message": "Rate limit reached for gpt-4o", "type": "requests", "code": "rate_limit_exceeded"}},
			"Rate limit reached for gpt-4o"},
		{Anthropic, "claude-sonnet-4-20250514", func(t *testing.T, s *httptest.Server) {
			t.Setenv("ANTHROPIC_API_KEY", "k")
			t.Setenv("ANTHROPIC_BASE_URL", s.URL)
		}, map[string]any{"type": "error", "error": map[string]any{"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit"}},
			"rate_limit_error: Number of request tokens has exceeded"},
		{Bedrock, "us.amazon.nova-pro-v1:0", awsEnv,
			map[string]any{"message": "Too many requests, please wait before trying again."},
			"Too many requests, please wait"},
		{Google, "gemini-2.0-flash-001", func(t *testing.T, s *httptest.Server) {
			t.Setenv("GEMINI_API_KEY", "k")
			t.Setenv("GOOGLE_GEMINI_BASE_URL", s.URL)
		}, map[string]any{"error": map[string]any{"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}},
			"RESOURCE_EXHAUSTED: Resource has been exhausted"},
	}
	for _, tc := range cases {
		t.Run(tc.prov, func(t *testing.T) {
			isolate(t)
			srv, _ := fakeServer(t, func(w http.ResponseWriter, c call) {
				w.Header().Set("Retry-After", "7")
				w.Header().Set("X-Amzn-ErrorType", "ThrottlingException")
				writeJSON(w, 429, tc.body)
			}, nil)
			tc.env(t, srv)
			_, err := generate(t, tc.prov, srv, tc.model)
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v (%T) is not an *APIError", err, err)
			}
			if ae.Status != 429 || ae.RetryAfter != 7*time.Second || !ae.Retryable() {
				t.Errorf("status %d, retry after %v, retryable %v", ae.Status, ae.RetryAfter, ae.Retryable())
			}
			if !strings.Contains(ae.Message, tc.wantMsg) {
				t.Errorf("message = %q, want it to contain %q", ae.Message, tc.wantMsg)
			}
		})
	}
}

func TestMissingCredentials(t *testing.T) {
	cases := []struct {
		prov string
		env  map[string]string
		want string
	}{
		{OpenAI, nil, "OPENAI_API_KEY"},
		{AzureOpenAI, nil, "AZURE_OPENAI_ENDPOINT"},
		{AzureOpenAI, map[string]string{"AZURE_OPENAI_ENDPOINT": "https://x.openai.azure.com"}, "AZURE_OPENAI_API_KEY"},
		{Anthropic, nil, "ANTHROPIC_API_KEY"},
		{Google, nil, "GEMINI_API_KEY or GOOGLE_API_KEY"},
		{VertexAI, nil, "GOOGLE_CLOUD_PROJECT"},
		{VertexAI, map[string]string{"GOOGLE_CLOUD_PROJECT": "p"}, "GOOGLE_APPLICATION_CREDENTIALS"},
		{Bedrock, nil, "AWS_REGION"},
		{Bedrock, map[string]string{"AWS_REGION": "us-east-1"}, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"},
		{AnthropicBedrock, map[string]string{"AWS_REGION": "us-east-1"}, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"},
	}
	for _, tc := range cases {
		t.Run(tc.prov+"/"+tc.want, func(t *testing.T) {
			isolate(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := New(context.Background(), Config{Provider: tc.prov})
			var ce *CredentialsError
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v, want *CredentialsError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %s", err, tc.want)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		h    map[string]string
		want time.Duration
	}{
		{map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "-1"}, 0},
		{map[string]string{"retry-after-ms": "250", "Retry-After": "1"}, 250 * time.Millisecond},
		{map[string]string{"x-ms-retry-after-ms": "1500"}, 1500 * time.Millisecond},
		{nil, 0},
	}
	for _, tc := range cases {
		h := http.Header{}
		for k, v := range tc.h {
			h.Set(k, v)
		}
		if got := ParseRetryAfter(h, now); got != tc.want {
			t.Errorf("%v: got %v, want %v", tc.h, got, tc.want)
		}
	}
}
