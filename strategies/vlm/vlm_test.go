package vlm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/tiff"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/strategies/vlm/provider"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json snapshots")

func TestResolveModel(t *testing.T) {
	noEnv := func(string) string { return "" }
	cases := []struct {
		prov, model     string
		env             map[string]string
		wantProv, wantM string
		wantErr         string
	}{
		{prov: "openai", model: "gpt-4o", wantProv: "openai", wantM: "gpt-4o"},
		{prov: "OpenAI", model: "gpt-5-mini-2025-08-07", wantProv: "openai", wantM: "gpt-5-mini-2025-08-07"},
		{prov: "bedrock", model: "us.meta.llama3-2-90b-instruct-v1:0", wantProv: "bedrock", wantM: "us.meta.llama3-2-90b-instruct-v1:0"},
		{prov: "vertexai", model: "gemini-2.0-flash-001", wantProv: "vertexai", wantM: "gemini-2.0-flash-001"},
		{prov: "anthropic", model: "claude-sonnet-4-20250514", wantProv: "anthropic", wantM: "claude-sonnet-4-20250514"},
		{wantProv: defaultProvider, wantM: defaultModel},
		{env: map[string]string{"QUARRY_VLM_PROVIDER": "google", "QUARRY_VLM_MODEL": "gemini-2.0-flash-001"}, wantProv: "google", wantM: "gemini-2.0-flash-001"},
		{prov: "openai", model: "gpt-4.1", env: map[string]string{EnvExtraModels: "openai:gpt-4.1, bedrock:us.amazon.nova-premier-v1:0"}, wantProv: "openai", wantM: "gpt-4.1"},
		{prov: "openai", model: "gpt-4.1", wantErr: "Invalid vlm_model \"gpt-4.1\" for vlm_model_provider \"openai\". Must be one of ['gpt-4o', 'gpt-5-mini-2025-08-07']"},
		{prov: "mistral", model: "pixtral", wantErr: "Invalid vlm_model_provider: \"mistral\". Must be one of ['anthropic', 'anthropic_bedrock', 'azure_openai', 'bedrock', 'google', 'openai', 'vertexai']"},
		{prov: "bedrock", wantErr: "vlm_model is required with vlm_model_provider \"bedrock\": must be one of ['us.amazon.nova-lite-v1:0'"},
		{model: "gpt-4o", wantErr: "vlm_model_provider is required with vlm_model \"gpt-4o\""},
		{prov: "vertexai", model: "gpt-4o", wantErr: "Must be one of ['gemini-2.0-flash-001']"},
	}
	for _, tc := range cases {
		getenv := noEnv
		if tc.env != nil {
			getenv = func(k string) string { return tc.env[k] }
		}
		opts := engine.DefaultOptions()
		opts.Extra = contract.Options{KeyModelProvider: {tc.prov}, KeyModel: {tc.model}}
		p, m, err := resolveModel(opts.Keys(), getenv)
		if tc.wantErr != "" {
			var ee *engine.Error
			if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable || !strings.Contains(ee.Msg, tc.wantErr) {
				t.Errorf("%s/%s: error %v, want 422-class containing %q", tc.prov, tc.model, err, tc.wantErr)
			}
			continue
		}
		if err != nil || p != tc.wantProv || m != tc.wantM {
			t.Errorf("%s/%s: got %s/%s %v, want %s/%s", tc.prov, tc.model, p, m, err, tc.wantProv, tc.wantM)
		}
	}
}

// TestPageElements turns recorded-style answers into elements and compares them with
// snapshots (go test -update rewrites them).
func TestPageElements(t *testing.T) {
	files, err := filepath.Glob("testdata/answers/*")
	if err != nil || len(files) == 0 {
		t.Fatal("no answers", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		t.Run(name, func(t *testing.T) {
			answer, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			elems, err := pageElements(context.Background(), string(answer), 4)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range elems {
				if e.Metadata.PageNumber == nil || *e.Metadata.PageNumber != 4 || e.Metadata.Coordinates != nil {
					t.Errorf("%s %q: page %v, coordinates %v", e.Type, e.Text, e.Metadata.PageNumber, e.Metadata.Coordinates)
				}
			}
			got := element.MarshalList(elems)
			golden := filepath.Join("testdata", name+".json")
			if *update {
				var pretty bytes.Buffer
				_ = json.Indent(&pretty, got, "", "  ")
				if err := os.WriteFile(golden, append(pretty.Bytes(), '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			var g, w any
			_ = json.Unmarshal(got, &g)
			_ = json.Unmarshal(want, &w)
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			if !bytes.Equal(gj, wj) {
				t.Errorf("elements differ from %s:\n%s", golden, got)
			}
		})
	}
}

// TestPageElementTypes states the class mapping directly, independent of the snapshots.
func TestPageElementTypes(t *testing.T) {
	answer, _ := os.ReadFile("testdata/answers/paper-page1.html")
	elems, err := pageElements(context.Background(), string(answer), 1)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range elems {
		types = append(types, string(e.Type))
	}
	want := "Header Title NarrativeText Address EmailAddress Title NarrativeText ListItem ListItem Image FigureCaption Formula Table CodeSnippet Footer PageNumber"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("types:\n got %s\nwant %s", got, want)
	}
	for _, e := range elems {
		switch e.Type {
		case element.Table:
			if !strings.HasPrefix(e.Metadata.TextAsHTML, "<table>") || !strings.Contains(e.Text, "PubLayNet") {
				t.Errorf("table: %q %q", e.Text, e.Metadata.TextAsHTML)
			}
		case element.Image:
			if e.Text != "Overall architecture of LayoutParser" {
				t.Errorf("image text %q", e.Text)
			}
		case element.ListItem:
			if strings.HasPrefix(e.Text, "•") {
				t.Errorf("bullet kept: %q", e.Text)
			}
		}
	}
}

func TestHostileAnswers(t *testing.T) {
	for _, a := range []string{"", "<", "<<<>>>", strings.Repeat("<div>", 5000) + "x", "```html\n```", "<table class=\"Table\"><tr><td>" + strings.Repeat("<table><tr><td>", 300)} {
		if _, err := pageElements(context.Background(), a, 1); err != nil {
			var ee *engine.Error
			if !errors.As(err, &ee) {
				t.Errorf("%.30q: %v", a, err)
			}
		}
	}
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPrepareImage(t *testing.T) {
	small := encodePNG(t, image.NewGray(image.Rect(0, 0, 300, 200)))
	got, err := prepareImage(context.Background(), small, "image/png", imageLimits{MaxSide: 1568, MaxBytes: 5 << 20})
	if err != nil || !bytes.Equal(got.Data, small) || got.MIME != "image/png" {
		t.Errorf("small PNG not sent as is: %v %s", err, got.MIME)
	}

	big := encodePNG(t, image.NewGray(image.Rect(0, 0, 3000, 1000)))
	got, err = prepareImage(context.Background(), big, "image/png", imageLimits{MaxSide: 1568, MaxBytes: 5 << 20})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, _ := image.DecodeConfig(bytes.NewReader(got.Data))
	if cfg.Width != 1568 || cfg.Height != 522 {
		t.Errorf("downscaled to %dx%d", cfg.Width, cfg.Height)
	}

	// Noise does not compress: the byte cap forces JPEG.
	noisy := image.NewRGBA(image.Rect(0, 0, 800, 800))
	seed := uint32(1)
	for i := range noisy.Pix {
		seed = seed*1664525 + 1013904223
		noisy.Pix[i] = byte(seed >> 24)
	}
	got, err = prepareImage(context.Background(), encodePNG(t, noisy), "image/png", imageLimits{MaxSide: 2048, MaxBytes: 400_000})
	if err != nil || got.MIME != "image/jpeg" || len(got.Data) > 400_000 {
		t.Errorf("noisy: %v %s %d bytes", err, got.MIME, len(got.Data))
	}

	var tb bytes.Buffer
	timg := image.NewRGBA(image.Rect(0, 0, 50, 40))
	timg.Set(1, 1, color.Black)
	if err := tiff.Encode(&tb, timg, nil); err != nil {
		t.Fatal(err)
	}
	got, err = prepareImage(context.Background(), tb.Bytes(), "image/tiff", imageLimits{MaxSide: 2048, MaxBytes: 5 << 20})
	if err != nil || got.MIME != "image/png" {
		t.Errorf("TIFF: %v %s", err, got.MIME)
	}

	if _, err := exec.LookPath("heif-convert"); err == nil {
		heic, err := os.ReadFile("../../testdata/reference/docs/DA-1p.heic")
		if err != nil {
			t.Fatal(err)
		}
		got, err = prepareImage(context.Background(), heic, "image/heic", imageLimits{MaxSide: 1568, MaxBytes: 5 << 20})
		cfg, _, derr := image.DecodeConfig(bytes.NewReader(got.Data))
		if err != nil || derr != nil || max(cfg.Width, cfg.Height) > 1568 {
			t.Errorf("HEIC: %v %v %dx%d %s", err, derr, cfg.Width, cfg.Height, got.MIME)
		}
	}

	for _, bad := range []struct{ data, mime string }{{"not an image", "image/png"}, {"....", "image/heic"}} {
		_, err := prepareImage(context.Background(), []byte(bad.data), bad.mime, imageLimits{MaxSide: 2048, MaxBytes: 5 << 20})
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable {
			t.Errorf("%s: %v, want 422-class", bad.mime, err)
		}
	}
}

// scripted is a provider.Client that answers from a list, for the retry policy.
type scripted struct {
	answers []error
	calls   []time.Time
}

func (s *scripted) Generate(ctx context.Context, req provider.Request) (*provider.Response, error) {
	s.calls = append(s.calls, time.Now())
	if i := len(s.calls) - 1; i < len(s.answers) && s.answers[i] != nil {
		return nil, s.answers[i]
	}
	return &provider.Response{Text: "<p>ok</p>"}, nil
}

func TestRetryPolicy(t *testing.T) {
	throttled := &provider.APIError{Provider: "openai", Status: 429, RetryAfter: 120 * time.Millisecond, Message: "slow down"}
	overloaded := &provider.APIError{Provider: "anthropic", Status: 529, Message: "overloaded_error: Overloaded"}
	bad := &provider.APIError{Provider: "openai", Status: 400, Message: "Invalid image"}
	cases := []struct {
		name      string
		answers   []error
		retries   int
		wantCalls int
		wantErr   error
		minGap    time.Duration
	}{
		{"retry-after honoured", []error{throttled}, 4, 2, nil, 120 * time.Millisecond},
		{"5xx retried with backoff", []error{overloaded, overloaded}, 4, 3, nil, 7 * time.Millisecond},
		{"4xx not retried", []error{bad}, 4, 1, bad, 0},
		{"gives up after max retries", []error{overloaded, overloaded, overloaded}, 2, 3, overloaded, 0},
		{"long retry-after not waited for", []error{&provider.APIError{Status: 429, RetryAfter: time.Hour}}, 4, 1, errors.New("any"), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Config{RetryBase: 10 * time.Millisecond, Getenv: func(string) string { return "" }})
			c := &scripted{answers: tc.answers}
			set := settings{maxRetries: tc.retries, maxBackoff: time.Second}
			_, attempts, err := s.generate(context.Background(), c, make(chan struct{}, 1), provider.Request{}, set)
			if len(c.calls) != tc.wantCalls || attempts != tc.wantCalls {
				t.Errorf("calls %d, attempts %d, want %d", len(c.calls), attempts, tc.wantCalls)
			}
			if (err == nil) != (tc.wantErr == nil) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if tc.minGap > 0 && len(c.calls) >= 2 {
				if gap := c.calls[1].Sub(c.calls[0]); gap < tc.minGap {
					t.Errorf("retried after %v, want ≥ %v", gap, tc.minGap)
				}
			}
		})
	}
}

func TestSettings(t *testing.T) {
	opts := engine.DefaultOptions()
	opts.Extra = contract.Options{ExtraDPI: {"150"}, ExtraConcurrency: {"2"}, ExtraFallback: {"ocr"}, ExtraMaxRetries: {"1"}, ExtraDryRun: {"true"}}
	s, err := parseSettings(opts.Keys(), "openai", "gpt-4o", func(string) string { return "" })
	if err != nil || s.dpi != 150 || s.concurrency != 2 || s.fallback != "ocr_only" || s.maxRetries != 1 || !s.dryRun {
		t.Errorf("%+v %v", s, err)
	}
	for k, v := range map[string]string{ExtraDPI: "9000", ExtraConcurrency: "x", ExtraFallback: "magic", ExtraDryRun: "maybe", ExtraMaxTokens: "1"} {
		opts.Extra = contract.Options{k: {v}}
		_, err := parseSettings(opts.Keys(), "openai", "gpt-4o", func(string) string { return "" })
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindBadRequest || !strings.Contains(ee.Msg, k) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
	}
}

func TestImageTokens(t *testing.T) {
	// OpenAI's published example: 1024×1024 high detail → 768×768, 4 tiles → 765 tokens.
	if got := imageTokens(provider.OpenAI, 1024, 1024); got != 765 {
		t.Errorf("openai 1024² = %d", got)
	}
	// Anthropic's: 1092×1092 ≈ 1590 tokens.
	if got := imageTokens(provider.Anthropic, 1092, 1092); got < 1580 || got > 1600 {
		t.Errorf("anthropic 1092² = %d", got)
	}
	if got := imageTokens(provider.Google, 300, 300); got != 258 {
		t.Errorf("gemini small = %d", got)
	}
}
