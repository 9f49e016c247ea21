package vlm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

const refDocs = "../../testdata/reference/docs/"

// threePagePDF merges two reference documents into a 3-page PDF.
func threePagePDF(t *testing.T) []byte {
	t.Helper()
	var rs []io.ReadSeeker
	for _, f := range []string{"layout-parser-paper-fast.pdf", "all-number-table.pdf"} {
		b, err := os.ReadFile(refDocs + f)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, bytes.NewReader(b))
	}
	var out bytes.Buffer
	if err := api.MergeRaw(rs, &out, false, nil); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// fakeAnthropic is an Anthropic Messages API server answering each page with HTML that names
// the page, as a model transcribing it would. fail decides a status (0 for success) per call.
type fakeAnthropic struct {
	t        *testing.T
	srv      *httptest.Server
	calls    atomic.Int32
	inFlight atomic.Int32
	maxSeen  atomic.Int32
	mu       sync.Mutex
	pages    map[int]int // page → calls
	fail     func(page, attempt int) (status int, header http.Header, body string)
}

var pageRe = regexp.MustCompile(`This is page (\d+) of (\d+)`)

func newFakeAnthropic(t *testing.T) *fakeAnthropic {
	f := &fakeAnthropic{t: t, pages: map[int]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	isolateEnv(t)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-e2e")
	t.Setenv("ANTHROPIC_BASE_URL", f.srv.URL)
	return f
}

func (f *fakeAnthropic) serve(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxSeen.Load()
		if n <= m || f.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "sk-ant-e2e" {
		f.t.Errorf("request %s with key %q", r.URL.Path, r.Header.Get("X-Api-Key"))
	}
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Content []struct {
				Type   string `json:"type"`
				Text   string `json:"text"`
				Source struct {
					MediaType string `json:"media_type"`
					Data      string `json:"data"`
				} `json:"source"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) != 1 || len(body.Messages[0].Content) != 2 {
		f.t.Errorf("body: %v", err)
		http.Error(w, "bad body", 400)
		return
	}
	img, text := body.Messages[0].Content[0], body.Messages[0].Content[1]
	raw, err := base64.StdEncoding.DecodeString(img.Source.Data)
	if err != nil {
		f.t.Errorf("image data: %v", err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || "image/"+format != img.Source.MediaType || max(cfg.Width, cfg.Height) > 1568 || max(cfg.Width, cfg.Height) < 1000 {
		f.t.Errorf("image %s %dx%d (%s): %v", format, cfg.Width, cfg.Height, img.Source.MediaType, err)
	}
	page := 1
	if m := pageRe.FindStringSubmatch(text.Text); m != nil {
		fmt.Sscan(m[1], &page)
	}
	f.mu.Lock()
	f.pages[page]++
	attempt := f.pages[page]
	f.mu.Unlock()
	time.Sleep(50 * time.Millisecond) // long enough for pages to overlap
	if f.fail != nil {
		if status, h, msg := f.fail(page, attempt); status != 0 {
			for k, v := range h {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, msg)
			return
		}
	}
	html := fmt.Sprintf("```html\n<h1 class=\"Title\">Section %d</h1>\n<p class=\"NarrativeText\">This is the running text of page number %d, transcribed by the model for the test.</p>\n<footer class=\"Footer\">Page %d</footer>\n```", page, page, page)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "msg_e2e", "type": "message", "role": "assistant", "model": body.Model,
		"content": []any{map[string]any{"type": "text", "text": html}}, "stop_reason": "end_turn",
		"usage": map[string]any{"input_tokens": 1500 + page, "output_tokens": 60},
	})
}

func (f *fakeAnthropic) pageCalls(page int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pages[page]
}

func isolateEnv(t *testing.T) {
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "QUARRY_VLM_PROVIDER", "QUARRY_VLM_MODEL",
		EnvExtraModels, EnvConcurrency, EnvTimeout, EnvMaxPages, "QUARRY_VLM_DRY_RUN", "QUARRY_VLM_FALLBACK", "QUARRY_VLM_DPI",
		"QUARRY_VLM_CONCURRENCY", "QUARRY_VLM_MAX_RETRIES", "QUARRY_VLM_MAX_TOKENS"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

func vlmOptions(extra map[string]string) (engine.Options, *bytes.Buffer) {
	opts := engine.DefaultOptions()
	opts.Strategy = "vlm"
	opts.SetExtra(KeyModelProvider, "anthropic")
	opts.SetExtra(KeyModel, "claude-sonnet-4-20250514")
	for k, v := range extra {
		opts.SetExtra(k, v)
	}
	var logs bytes.Buffer
	opts.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	return opts, &logs
}

// TestEndToEnd partitions a 3-page PDF with strategy=vlm through the engine: pages rendered,
// sent concurrently within the limit, a throttled page retried after the provider's delay,
// answers turned into elements in page order with page breaks, tokens and latency logged.
func TestEndToEnd(t *testing.T) {
	f := newFakeAnthropic(t)
	f.fail = func(page, attempt int) (int, http.Header, string) {
		if page == 2 && attempt == 1 {
			return 429, http.Header{"Retry-After-Ms": {"30"}}, "Number of request tokens has exceeded your per-minute rate limit"
		}
		return 0, nil, ""
	}
	opts, logs := vlmOptions(map[string]string{ExtraConcurrency: "2"})
	opts.IncludePageBreaks = true
	doc := engine.NewDocument("merged-paper.pdf", threePagePDF(t))
	elems, err := engine.Partition(context.Background(), doc, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range elems {
		got = append(got, fmt.Sprintf("%d %s %s", *e.Metadata.PageNumber, e.Type, e.Text))
		if e.Metadata.Coordinates != nil || e.ID == "" || e.Metadata.Filename != "merged-paper.pdf" || e.Metadata.Filetype != "application/pdf" {
			t.Errorf("metadata of %q: %+v", e.Text, e.Metadata)
		}
	}
	var want []string
	for p := 1; p <= 3; p++ {
		want = append(want,
			fmt.Sprintf("%d Title Section %d", p, p),
			fmt.Sprintf("%d NarrativeText This is the running text of page number %d, transcribed by the model for the test.", p, p),
			fmt.Sprintf("%d Footer Page %d", p, p),
			fmt.Sprintf("%d PageBreak ", p))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("elements:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := f.calls.Load(); c != 4 {
		t.Errorf("%d provider calls, want 4 (3 pages + 1 retry)", c)
	}
	if m := f.maxSeen.Load(); m > 2 {
		t.Errorf("%d requests in flight, limit 2", m)
	}
	// One log record per page with tokens and latency.
	pagesLogged := map[float64]bool{}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		_ = json.Unmarshal([]byte(line), &rec)
		if rec["msg"] == "vlm page" {
			if rec["input_tokens"] == nil || rec["output_tokens"] != float64(60) || rec["seconds"] == nil {
				t.Errorf("page log lacks usage: %s", line)
			}
			pagesLogged[rec["page"].(float64)] = true
			if rec["page"] == float64(2) && rec["attempts"] != float64(2) {
				t.Errorf("page 2 attempts: %s", line)
			}
		}
	}
	if len(pagesLogged) != 3 {
		t.Errorf("pages logged: %v\n%s", pagesLogged, logs)
	}
}

func TestImageDocument(t *testing.T) {
	f := newFakeAnthropic(t)
	opts, _ := vlmOptions(nil)
	img := image.NewGray(image.Rect(0, 0, 1200, 1600))
	doc := engine.NewDocument("scan.png", encodePNG(t, img))
	elems, err := engine.Partition(context.Background(), doc, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(elems) != 3 || elems[0].Text != "Section 1" || *elems[0].Metadata.PageNumber != 1 || f.calls.Load() != 1 {
		t.Errorf("%d elements, %d calls: %+v", len(elems), f.calls.Load(), elems)
	}
}

func TestDryRun(t *testing.T) {
	f := newFakeAnthropic(t)
	t.Setenv("ANTHROPIC_API_KEY", "") // a dry run needs no credentials
	opts, _ := vlmOptions(map[string]string{ExtraDryRun: "true"})
	elems, err := engine.Partition(context.Background(), engine.NewDocument("p.pdf", threePagePDF(t)), opts)
	if err != nil {
		t.Fatal(err)
	}
	if f.calls.Load() != 0 {
		t.Errorf("dry run called the provider %d times", f.calls.Load())
	}
	if len(elems) != 1 || elems[0].Type != element.DocumentData || !strings.Contains(elems[0].Text, "3 page(s), 3 request(s) to anthropic") {
		t.Fatalf("%+v", elems)
	}
	var est Estimate
	if err := json.Unmarshal(elems[0].Metadata.Extra["vlm_estimate"], &est); err != nil {
		t.Fatal(err)
	}
	if est.Pages != 3 || est.Requests != 3 || est.MaxRequests != 15 || est.InputTokens < 3000 || est.MaxImageSide != 1568 {
		t.Errorf("%+v", est)
	}
	// The environment switches it on for the CLI.
	t.Setenv("QUARRY_VLM_DRY_RUN", "true")
	opts.Extra = nil
	elems, err = engine.Partition(context.Background(), engine.NewDocument("p.pdf", threePagePDF(t)), opts)
	if err != nil || len(elems) != 1 || elems[0].Type != element.DocumentData {
		t.Errorf("env dry run: %v %+v", err, elems)
	}
}

func TestFailures(t *testing.T) {
	doc := func(t *testing.T) *engine.Document { return engine.NewDocument("p.pdf", threePagePDF(t)) }
	t.Run("invalid model is 422", func(t *testing.T) {
		newFakeAnthropic(t)
		opts, _ := vlmOptions(nil)
		opts.SetExtra(KeyModel, "claude-2")
		_, err := engine.Partition(context.Background(), doc(t), opts)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable || !strings.Contains(ee.Msg, "'claude-sonnet-4-20250514'") {
			t.Errorf("%v", err)
		}
	})
	t.Run("missing credentials named", func(t *testing.T) {
		f := newFakeAnthropic(t)
		t.Setenv("ANTHROPIC_API_KEY", "")
		opts, _ := vlmOptions(nil)
		_, err := engine.Partition(context.Background(), doc(t), opts)
		if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") || f.calls.Load() != 0 {
			t.Errorf("%v", err)
		}
	})
	t.Run("rejected page fails with the provider's message", func(t *testing.T) {
		f := newFakeAnthropic(t)
		f.fail = func(page, attempt int) (int, http.Header, string) {
			if page == 2 {
				return 400, nil, "Could not process image"
			}
			return 0, nil, ""
		}
		opts, _ := vlmOptions(nil)
		_, err := engine.Partition(context.Background(), doc(t), opts)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable ||
			!strings.Contains(ee.Msg, "page 2") || !strings.Contains(ee.Msg, "invalid_request_error: Could not process image") {
			t.Errorf("%v", err)
		}
		if n := f.pageCalls(2); n != 1 {
			t.Errorf("a 400 was retried: %d calls", n)
		}
	})
	t.Run("outage after retries is 503", func(t *testing.T) {
		f := newFakeAnthropic(t)
		f.fail = func(page, attempt int) (int, http.Header, string) {
			return 503, http.Header{"Retry-After-Ms": {"5"}}, "Service Unavailable"
		}
		opts, _ := vlmOptions(map[string]string{ExtraMaxRetries: "2", ExtraConcurrency: "1"})
		_, err := engine.Partition(context.Background(), doc(t), opts)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindUnavailable || !strings.Contains(ee.Msg, "Service Unavailable") {
			t.Errorf("%v", err)
		}
		if n := f.pageCalls(1); n != 3 {
			t.Errorf("page 1 tried %d times, want 3", n)
		}
	})
	t.Run("fallback to OCR", func(t *testing.T) {
		f := newFakeAnthropic(t)
		f.fail = func(page, attempt int) (int, http.Header, string) {
			if page == 3 {
				return 400, nil, "Could not process image"
			}
			return 0, nil, ""
		}
		opts, logs := vlmOptions(map[string]string{ExtraFallback: "ocr_only"})
		elems, err := engine.Partition(context.Background(), doc(t), opts)
		if err != nil {
			t.Fatal(err)
		}
		last := elems[len(elems)-1]
		if last.Text != "OCR text of image/png" || *last.Metadata.PageNumber != 3 || len(elems) != 7 {
			t.Errorf("%d elements, last %+v", len(elems), last)
		}
		if !strings.Contains(logs.String(), "falling back to OCR") {
			t.Errorf("fallback not logged:\n%s", logs)
		}
	})
	t.Run("page cap", func(t *testing.T) {
		f := newFakeAnthropic(t)
		t.Setenv(EnvMaxPages, "2")
		opts, _ := vlmOptions(nil)
		_, err := engine.Partition(context.Background(), doc(t), opts)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable || !strings.Contains(ee.Msg, "3 pages") || f.calls.Load() != 0 {
			t.Errorf("%v", err)
		}
	})
	t.Run("cancellation stops the pages", func(t *testing.T) {
		f := newFakeAnthropic(t)
		ctx, cancel := context.WithCancel(context.Background())
		f.fail = func(page, attempt int) (int, http.Header, string) {
			cancel()
			return 0, nil, ""
		}
		opts, _ := vlmOptions(map[string]string{ExtraConcurrency: "1"})
		_, err := engine.Partition(ctx, doc(t), opts)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%v", err)
		}
		if c := f.calls.Load(); c > 1 {
			t.Errorf("%d calls after cancellation", c)
		}
	})
}

// TestProviderLimitAcrossRequests runs two documents at once through one Strategy: the
// provider's limit holds for the process, not per request.
func TestProviderLimitAcrossRequests(t *testing.T) {
	f := newFakeAnthropic(t)
	s := New(Config{Getenv: func(k string) string {
		if k == EnvConcurrency {
			return "2"
		}
		return os.Getenv(k)
	}})
	pdf := threePagePDF(t)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			opts, _ := vlmOptions(nil)
			doc := engine.NewDocument("p.pdf", pdf)
			doc.MIMEType = "application/pdf"
			n := 0
			if err := s.Partition(context.Background(), doc, opts.Keys(), func(element.Element) error { n++; return nil }); err != nil || n != 9 {
				t.Errorf("%d elements, %v", n, err)
			}
		})
	}
	wg.Wait()
	if m := f.maxSeen.Load(); m > 2 {
		t.Errorf("%d requests in flight, process limit 2", m)
	}
	if c := f.calls.Load(); c != 6 {
		t.Errorf("%d calls", c)
	}
}

// A fake ocr_only stands in for the OCR strategy, which needs Tesseract and lives in its own
// plugin binary. It registers at init: the registry is frozen once a document is partitioned.
func init() {
	if _, ok := engine.LookupStrategy("ocr_only"); !ok {
		engine.RegisterStrategy("ocr_only", engine.PartitionFunc(func(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
			e := element.Element{Type: element.NarrativeText, Text: "OCR text of " + doc.MIMEType}
			e.Metadata.PageNumber = element.Int(1)
			return emit(e)
		}))
	}
}
