package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Attacks on the partition API by clients holding no key (or a wrong one).

// Slow keyless uploads once held every partition slot (the slot was taken before the key was
// checked), so authenticated requests got 503 for as long as the uploads dribbled.
func TestAttackKeylessSlowUploadsDoNotHoldSlots(t *testing.T) {
	srv := New(Config{APIKeys: []string{"k1"}, MaxConcurrent: 2, MaxQueue: -1})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		pr, pw := io.Pipe()
		wg.Add(1)
		go func() {
			defer wg.Done()
			pw.Write([]byte("--x\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\n\r\nslow"))
			<-ctx.Done()
			pw.Close()
		}()
		req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL+"/general/v0/general", pr)
		req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
		req.Header.Set("unstructured-api-key", "not-the-key")
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	for i := 0; i < 3; i++ {
		body, ct := multipartBody(t, file("a.txt", textDoc, "text/plain"))
		req, _ := http.NewRequest("POST", hs.URL+"/general/v0/general", body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("unstructured-api-key", "k1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("authenticated request got %d while keyless uploads were pending", resp.StatusCode)
		}
	}
	cancel()
	wg.Wait()
}

// A 401 must not repeat the key sent (it may be a near-miss of a real key, or another
// service's key), and the body must not be read to answer it.
func TestAttack401DoesNotEchoKey(t *testing.T) {
	srv := New(Config{APIKeys: []string{"k1"}})
	rec := post(t, srv, http.Header{"Unstructured-Api-Key": {"sk-live-ALMOST-RIGHT"}}, file("a.txt", textDoc, ""))
	if rec.Code != 401 || strings.Contains(rec.Body.String(), "ALMOST") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}

// Made-up HTTP methods once became metric labels: 200,000 of them grew /metrics to 24 MB.
func TestAttackMethodsDoNotGrowMetrics(t *testing.T) {
	srv := New(Config{})
	for i := 0; i < 2000; i++ {
		req := httptest.NewRequest(fmt.Sprintf("M%05d", i), "/general/v0/general", nil)
		srv.ServeHTTP(httptest.NewRecorder(), req)
		req = httptest.NewRequest(fmt.Sprintf("X%05d", i), fmt.Sprintf("/p%d", i), nil)
		srv.ServeHTTP(httptest.NewRecorder(), req)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	if strings.Contains(body, "M00001") || strings.Contains(body, "X00001") || strings.Contains(body, "/p1") {
		t.Fatal("request-controlled values reached metric labels")
	}
	if !strings.Contains(body, `method="other"`) {
		t.Fatal(`unknown methods not counted as "other"`)
	}
	if n := strings.Count(body, "quarry_http_requests_total{"); n > 10 {
		t.Fatalf("%d request series after 4000 made-up requests", n)
	}
}

// A flood of 503s is counted and summarised, not logged one ERROR line per request.
func TestAttackOverloadDoesNotFloodErrorLog(t *testing.T) {
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv := New(Config{MaxConcurrent: 1, MaxQueue: -1, Logger: log})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	// Hold the only slot with a slow upload.
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", hs.URL+"/general/v0/general", pr)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	pw.Write([]byte("--x\r\n"))
	time.Sleep(100 * time.Millisecond)
	refused := 0
	for i := 0; i < 200; i++ {
		body, ct := multipartBody(t, file("a.txt", textDoc, "text/plain"))
		resp, err := http.Post(hs.URL+"/general/v0/general", ct, body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 503 {
			refused++
		}
	}
	pw.Close()
	<-done
	if refused < 150 {
		t.Fatalf("only %d of 200 refused; the slot was not held", refused)
	}
	logs := buf.String()
	if n := strings.Count(logs, "level=ERROR"); n != 0 {
		t.Errorf("%d ERROR lines for %d refusals", n, refused)
	}
	if n := strings.Count(logs, "refused with 503"); n < 1 || n > 3 {
		t.Errorf("%d summary lines, want 1–3", n)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `code="503"`) {
		t.Error("503s not counted")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// DNS rebinding: a web page points its own name at 127.0.0.1 and, being "same origin", drives a
// keyless server on loopback. The Host header names the page's domain; it is refused.
func TestAttackDNSRebindingRefused(t *testing.T) {
	srv := New(Config{LoopbackHostsOnly: true})
	for host, want := range map[string]int{
		"evil.example:8000": http.StatusMisdirectedRequest, "evil.example": http.StatusMisdirectedRequest,
		"127.0.0.1.nip.io:8000": http.StatusMisdirectedRequest,
		"localhost:8000":        200, "127.0.0.1:8000": 200, "[::1]:8000": 200, "LOCALHOST": 200,
	} {
		req := httptest.NewRequest("GET", "/healthcheck", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %s: %d, want %d", host, rec.Code, want)
		}
	}
}

// Amplification: the answer must stay bounded by the request, not by each document in it.

// linesDoc is a text of n one-word paragraphs: n elements.
func linesDoc(n int) []byte { return bytes.Repeat([]byte("x\n\n"), n) }

// The element cap was per document: ten 300 KB texts of 99,000 lines each (or ten 1 KB gzips
// of them) held 2 GB of elements and a 143 MB answer in one request. The cap is now the
// request's, shared by its documents.
func TestAttackManyDocumentsShareOneElementBudget(t *testing.T) {
	srv := New(Config{InProcess: true, MaxElements: 1000})
	var parts []part
	for i := 0; i < 5; i++ {
		parts = append(parts, file(fmt.Sprintf("a%d.txt", i), linesDoc(400), "text/plain"))
	}
	rec := post(t, srv, nil, parts...)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "documents of this request produce more than 1000 elements") {
		t.Fatalf("5 × 400 elements under a 1000-element budget: %d %.300s", rec.Code, rec.Body)
	}
	// Within the budget the same documents pass.
	if rec := post(t, srv, nil, parts[:2]...); rec.Code != 200 {
		t.Fatalf("2 × 400 elements: %d %.300s", rec.Code, rec.Body)
	}
	// gzip makes the amplification cheap for the attacker: the same with 5 tiny uploads.
	var gz []part
	for i := 0; i < 5; i++ {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(linesDoc(400))
		zw.Close()
		gz = append(gz, file(fmt.Sprintf("a%d.txt.gz", i), b.Bytes(), "application/gzip"))
	}
	if rec := post(t, srv, nil, gz...); rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("5 gzips × 400 elements: %d %.300s", rec.Code, rec.Body)
	}
}

// max_characters=1 made every character a chunk, each carrying the whole split paragraph in
// orig_elements: a 900 KB text held a request for over 10 minutes (past the request timeout,
// which the answer's encoding never checked) and a 45 KB one answered 22 MB after 28 s. Chunks
// count against the element budget, and the answer against a byte budget.
func TestAttackChunkExplosionIsBounded(t *testing.T) {
	para := bytes.Repeat([]byte("abcdefgh "), 20_000) // one 180 KB paragraph
	srv := New(Config{InProcess: true, MaxElements: 5000})
	start := time.Now()
	rec := post(t, srv, nil, file("a.txt", para, "text/plain"), field("chunking_strategy", "basic"), field("max_characters", "1"))
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "more than 5000 chunks") {
		t.Fatalf("max_characters=1 on 180 KB: %d %.300s", rec.Code, rec.Body)
	}
	t.Logf("refused in %s", time.Since(start))

	// Under the element budget, the answer's size is bounded: 4,000 chunks of 2 characters,
	// each with the paragraph in orig_elements, is more than 1 MB.
	srv = New(Config{InProcess: true, MaxResponseBytes: 1 << 20})
	words := make([]byte, 0, 12_000)
	for i := 0; len(words) < 12_000; i++ {
		words = fmt.Appendf(words, "w%x ", i*2654435761%1000003) // poorly compressible
	}
	for _, extra := range [][]part{nil, {field("output_format", "text/csv")}} {
		parts := append([]part{file("a.txt", words, "text/plain"), field("chunking_strategy", "basic"), field("max_characters", "3")}, extra...)
		rec = post(t, srv, nil, parts...)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "answer would be larger than 1048576 bytes") {
			t.Fatalf("answer over 1 MB (%v): %d, %d bytes %.200s", extra, rec.Code, rec.Body.Len(), rec.Body)
		}
	}
	// Several files and multipart/mixed answers are bounded too.
	rec = post(t, srv, http.Header{"Accept": {"multipart/mixed"}}, file("a.txt", words, "text/plain"), file("b.txt", words, "text/plain"),
		field("chunking_strategy", "basic"), field("max_characters", "3"))
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("multipart answer over 1 MB: %d, %d bytes", rec.Code, rec.Body.Len())
	}
}

// A body of many tiny files (or fields) multiplied the server's work and memory: 100,000
// one-byte files in 17 MB held 537 MB and a slot for 36 s (100 MB of them, about 3 GB). The
// reference's form parser (Starlette) caps a form at 1000 files and 1000 fields with a 400.
func TestAttackManyPartsRefused(t *testing.T) {
	srv := New(Config{InProcess: true})
	files := make([]part, 1001)
	for i := range files {
		files[i] = file("a.txt", []byte("a"), "text/plain")
	}
	rec := post(t, srv, nil, files...)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "Too many files. Maximum number of files is 1000.") {
		t.Fatalf("1001 files: %d %.200s", rec.Code, rec.Body)
	}
	fields := []part{file("a.txt", []byte("a"), "text/plain")}
	for i := 0; i < 1001; i++ {
		fields = append(fields, field("languages", "eng"))
	}
	rec = post(t, srv, nil, fields...)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "Too many fields. Maximum number of fields is 1000.") {
		t.Fatalf("1001 fields: %d %.200s", rec.Code, rec.Body)
	}
	if rec := post(t, srv, nil, files[:1000]...); rec.Code != 200 {
		t.Fatalf("1000 files: %d %.200s", rec.Code, rec.Body)
	}
}

// Answers carry document text, and the docs page has forms that send requests with the key
// typed in: no answer may be sniffed into HTML, and no other site may frame the docs page.
func TestAttackSniffingAndFramingHeaders(t *testing.T) {
	srv := New(Config{InProcess: true})
	for _, path := range []string{"/docs", "/general/docs"} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if h := rec.Header(); rec.Code != 200 || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: %d %v", path, rec.Code, h)
		}
	}
	rec := post(t, srv, nil, file("a.html", []byte("<script>alert(1)</script><p>x</p>"), "text/html"), field("output_format", "text/csv"))
	if rec.Code != 200 || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("partition answer: %d %v", rec.Code, rec.Header())
	}
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/nowhere", nil))
	if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("404: %v", rec.Header())
	}
}

// A multipart POST is a "simple" request: any web page the operator visits could make a
// keyless local server partition what it sends (blind, but its CPU, converters and slots).
func TestAttackCrossSitePartitionRefused(t *testing.T) {
	srv := New(Config{InProcess: true})
	for _, h := range []http.Header{
		{"Sec-Fetch-Site": {"cross-site"}},
		{"Origin": {"https://evil.example"}},
	} {
		if rec := post(t, srv, h, file("a.txt", textDoc, "text/plain")); rec.Code != http.StatusForbidden {
			t.Errorf("%v: %d, want 403", h, rec.Code)
		}
	}
	// The SDKs (no browser headers) and the UI (same origin) are unaffected.
	for _, h := range []http.Header{nil, {"Sec-Fetch-Site": {"same-origin"}}} {
		if rec := post(t, srv, h, file("a.txt", textDoc, "text/plain")); rec.Code != 200 {
			t.Errorf("%v: %d, want 200", h, rec.Code)
		}
	}
}

// Guessing keys at full speed: after 10 refused keys from one address it gets 429 with
// Retry-After (whatever key it then sends), while a valid key from another address still works.
func TestAttackKeyGuessingIsThrottled(t *testing.T) {
	srv := New(Config{APIKeys: []string{"k1"}})
	send := func(addr, key string) *httptest.ResponseRecorder {
		body, ct := multipartBody(t, file("a.txt", textDoc, ""))
		req := httptest.NewRequest(http.MethodPost, "/general/v0/general", body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("unstructured-api-key", key)
		req.RemoteAddr = addr
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	for i := 1; i <= 10; i++ {
		if rec := send("203.0.113.5:5000", fmt.Sprint("guess-", i)); rec.Code != 401 {
			t.Fatalf("guess %d: %d, want 401", i, rec.Code)
		}
	}
	for _, key := range []string{"guess-11", "k1"} {
		rec := send("203.0.113.5:5001", key)
		if rec.Code != 429 || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), `"detail"`) {
			t.Fatalf("key %q after 10 failures: %d %q %s", key, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
	}
	if rec := send("198.51.100.20:5000", "k1"); rec.Code != 200 {
		t.Fatalf("a valid key from another address: %d %s", rec.Code, rec.Body)
	}
}

// The docs page keeps the API key in the browser (localStorage): its CSP lets only its own
// script file and its one inline style block (by hash) run, so markup reaching the page by any
// means — a crafted Host header, an answer shown — cannot run script or load another origin's.
// Before: the CSP was "frame-ancestors 'none'" alone.
func TestAttackDocsPageRunsOnlyItsOwnScript(t *testing.T) {
	srv := New(Config{InProcess: true})
	req := httptest.NewRequest("GET", "/docs", nil)
	req.Host = `x"><script>alert(1)</script>`
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	body := rec.Body.String()
	if rec.Code != 200 || strings.Contains(body, "<script>alert") {
		t.Fatalf("%d, hostile Host reflected unescaped: %v", rec.Code, strings.Contains(body, "<script>alert"))
	}
	csp := rec.Header().Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP %q allows inline code", csp)
	}
	// The hash must be the served style block's, or browsers drop the page's styling.
	_, rest, _ := strings.Cut(body, "<style>")
	css, _, ok := strings.Cut(rest, "</style>")
	sum := sha256.Sum256([]byte(css))
	if want := "style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !ok || !strings.Contains(csp, want) {
		t.Errorf("CSP %q lacks the served style block's hash %q", csp, want)
	}
	if n := strings.Count(body, "<script"); n != 1 || !strings.Contains(body, `<script src="/docs.js"></script>`) {
		t.Errorf("docs page has %d script elements; only /docs.js is allowed to run", n)
	}
}

// Log lines cannot be forged: a URL path decoding to CR/LF (the request value the access log
// records verbatim) stays inside its quoted field, one record a line, with the text handler
// `quarry serve` uses by default and the JSON one alike.
func TestAttackNoLogLineInjection(t *testing.T) {
	for name, mk := range map[string]func(io.Writer) slog.Handler{
		"text": func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) },
		"json": func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, nil) },
	} {
		var logs bytes.Buffer
		srv := New(Config{InProcess: true, Logger: slog.New(mk(&logs))})
		for _, path := range []string{"/x%0d%0atime=2026-01-01T00:00:00Z%20level=ERROR%20msg=forged%0a", "/general/v0/general%0alevel=ERROR%20msg=forged"} {
			srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", path, nil))
		}
		if n := strings.Count(logs.String(), "msg=forged"); n != 2 {
			t.Errorf("%s: the hostile paths reached the log %d times, want 2:\n%s", name, n, logs.String())
		}
		lines := strings.Split(strings.TrimSuffix(logs.String(), "\n"), "\n")
		if len(lines) != 2 {
			t.Errorf("%s: 2 requests wrote %d log lines:\n%s", name, len(lines), logs.String())
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "time=2026-01-01") || strings.HasPrefix(l, "level=") || strings.HasPrefix(l, "{") != (name == "json") {
				t.Errorf("%s: forged log line %q", name, l)
			}
		}
	}
}

// text_as_html is rendered as HTML by whoever consumes it (the reference's users, viewers,
// RAG front ends): whatever markup or markup-looking text a document's table cells hold, it is
// rebuilt from the cells' text — only table tags, only colspan/rowspan, the text escaped.
func TestAttackTextAsHTMLIsOnlyTableMarkup(t *testing.T) {
	srv := New(Config{InProcess: true})
	docs := []part{
		file("t.csv", []byte("a,b\n\"<img src=x onerror=alert(1)>\",\"<script>alert(2)</script>\"\n\"<a href='javascript:alert(3)'>x</a>\",\"<svg onload=alert(4)>\"\n"), "text/csv"),
		file("t.html", []byte(`<table><tr><th><img src=x onerror="alert(1)">H</th><th>&lt;script&gt;alert(2)&lt;/script&gt;</th></tr>`+
			`<tr><td colspan="2" onclick="alert(3)" style="background:url(javascript:alert(4))"><a href="javascript:alert(5)">l</a><script>alert(6)</script><iframe src="javascript:alert(7)"></iframe><svg onload="alert(8)"></svg></td></tr></table>`), "text/html"),
		file("t.md", []byte("| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | <script>alert(2)</script> |\n"), "text/markdown"),
	}
	tag := regexp.MustCompile(`<(/?)([a-zA-Z0-9]+)([^>]*)>`)
	attr := regexp.MustCompile(`^(\s+(colspan|rowspan)="\d+")*\s*/?$`)
	allowed := map[string]bool{"table": true, "thead": true, "tbody": true, "tr": true, "td": true, "th": true, "br": true}
	for _, doc := range docs {
		rec := post(t, srv, nil, doc)
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", doc.filename, rec.Code, rec.Body)
		}
		tables := 0
		for _, e := range decodeElems(t, rec.Body.Bytes()) {
			h, _ := e.Metadata["text_as_html"].(string)
			if h == "" {
				continue
			}
			tables++
			for _, m := range tag.FindAllStringSubmatch(h, -1) {
				if !allowed[strings.ToLower(m[2])] || (m[3] != "" && !attr.MatchString(m[3])) {
					t.Errorf("%s: text_as_html has %q: %s", doc.filename, m[0], h)
				}
			}
			if strings.Contains(h, "alert(") && !strings.Contains(h, "&lt;") {
				t.Errorf("%s: hostile cell text not escaped: %s", doc.filename, h)
			}
		}
		if tables == 0 {
			t.Errorf("%s: no table with text_as_html (the test checks nothing)", doc.filename)
		}
	}
}

// /metrics answered anyone who could reach the server, key or not: traffic by route and status,
// the kinds of documents partitioned (quarry_documents_total{filetype}), 401 and 429 counts (a
// key guesser's progress), the Go version and the process's resources. With API keys it now
// asks for one like every other route that is not the health check; Prometheus sends it as a
// bearer token, or scrapes MetricsHandler on an address of its own (quarry serve --metrics-addr).
func TestAttackMetricsNeedAKey(t *testing.T) {
	srv := New(Config{APIKeys: []string{"k"}})
	get := func(h http.Handler, key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/metrics", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := get(srv, ""); rec.Code != http.StatusUnauthorized || strings.Contains(rec.Body.String(), "quarry_") {
		t.Errorf("keyless /metrics: %d %.80s", rec.Code, rec.Body)
	}
	if rec := get(srv, "wrong"); rec.Code != http.StatusUnauthorized {
		t.Errorf("/metrics with a wrong key: %d", rec.Code)
	}
	if rec := get(srv, "k"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "quarry_http_requests_total") {
		t.Errorf("/metrics with the key: %d %.80s", rec.Code, rec.Body)
	}
	// The separate listener's handler needs none, and serves nothing else.
	if rec := get(srv.MetricsHandler(false), ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "quarry_http_requests_total") {
		t.Errorf("MetricsHandler: %d %.80s", rec.Code, rec.Body)
	}
	rec := httptest.NewRecorder()
	srv.MetricsHandler(false).ServeHTTP(rec, httptest.NewRequest("GET", "/healthcheck", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("MetricsHandler serves /healthcheck: %d", rec.Code)
	}
	// On loopback, a request addressed to another name (DNS rebinding) is refused.
	for host, want := range map[string]int{"localhost:9090": 200, "127.0.0.1:9090": 200, "evil.example": http.StatusMisdirectedRequest} {
		req := httptest.NewRequest("GET", "/metrics", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		srv.MetricsHandler(true).ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("loopback metrics, Host %s: %d, want %d", host, rec.Code, want)
		}
	}
	// Keyless servers keep a keyless /metrics (loopback by default).
	if rec := get(New(Config{}), ""); rec.Code != http.StatusOK {
		t.Errorf("keyless server's /metrics: %d", rec.Code)
	}
}

// Every key was an admin's: a key handed to a client so it could partition documents also read
// /metrics (and, under quarry serve, managed connectors and read every job). PartitionKeys are
// accepted by the partition endpoint alone; without an admin key they are not accepted at all
// (they would otherwise leave the rest keyless).
func TestAttackPartitionKeyIsNotAdmin(t *testing.T) {
	srv := New(Config{APIKeys: []string{"admin"}, PartitionKeys: []string{"client"}})
	doc := file("a.txt", []byte("Hello there.\n"), "text/plain")
	for key, want := range map[string]int{"client": 200, "admin": 200, "guess": 401} {
		if rec := post(t, srv, http.Header{"Unstructured-Api-Key": {key}}, doc); rec.Code != want {
			t.Errorf("partition with key %q: %d, want %d", key, rec.Code, want)
		}
	}
	metrics := func(h http.Handler, key string) int {
		req := httptest.NewRequest("GET", "/metrics", nil)
		req.Header.Set("unstructured-api-key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := metrics(srv, "client"); code != http.StatusUnauthorized {
		t.Errorf("/metrics with a partition key: %d, want 401", code)
	}
	if code := metrics(srv, "admin"); code != http.StatusOK {
		t.Errorf("/metrics with the admin key: %d", code)
	}
	alone := New(Config{PartitionKeys: []string{"client"}})
	if rec := post(t, alone, http.Header{"Unstructured-Api-Key": {"client"}}, doc); rec.Code != http.StatusOK {
		t.Errorf("partition keys without an admin key: %d (the server is keyless then)", rec.Code)
	}
}

// A server-side failure's detail named the server's files — the plugin binary, a temporary
// file, LibreOffice's working directory — telling any client how the machine is laid out. A
// 5xx detail keeps only the last segment of a path; 4xx details, written for the client, and
// URLs stay whole.
func TestAttackServerErrorsDoNotNamePaths(t *testing.T) {
	for _, c := range []struct {
		status   int
		in, want string
	}{
		{500, "plugin ocr: start /usr/local/lib/quarry/quarry-plugin-ocr: exit status 1: open /var/lib/quarry/data/secret.key: permission denied",
			"plugin ocr: start …/quarry-plugin-ocr: exit status 1: open …/secret.key: permission denied"},
		{500, `office: write input: open "/tmp/quarry-office-123/document.doc": no space left on device`,
			`office: write input: open "…/document.doc": no space left on device`},
		{503, "provider https://api.example.com/v1/messages answered 503 (see /etc)", "provider https://api.example.com/v1/messages answered 503 (see /etc)"},
		{422, "File /etc/passwd not found in resource path", "File /etc/passwd not found in resource path"},
	} {
		if got := clientDetail(c.status, c.in); got != c.want {
			t.Errorf("%d %q\n got %q\nwant %q", c.status, c.in, got, c.want)
		}
	}
}

// Slots are shared by every key: one client sending slow uploads (or many at once) held every
// slot and the queue, and every other key's requests got 503. With MaxConcurrentPerKey a key
// past its share gets 429 at once while the others are served.
func TestAttackOneKeyCannotTakeEverySlot(t *testing.T) {
	srv := New(Config{APIKeys: []string{"a", "b"}, MaxConcurrent: 4, MaxConcurrentPerKey: 1})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	doc, ctype := multipartBody(t, file("a.txt", []byte("Hello there.\n"), "text/plain"))
	docBytes, _ := io.ReadAll(doc)
	send := func(key string, body io.Reader) int {
		req, _ := http.NewRequest("POST", ts.URL+"/general/v0/general", body)
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("unstructured-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	// Key a's slow upload: the slot is taken before the body is read.
	pr, pw := io.Pipe()
	slow := make(chan int, 1)
	go func() { slow <- send("a", pr) }()
	pw.Write(docBytes[:10])
	deadline := time.Now().Add(5 * time.Second)
	for {
		srv.perKeyMu.Lock()
		n := len(srv.perKey)
		srv.perKeyMu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slow upload never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code := send("a", bytes.NewReader(docBytes)); code != http.StatusTooManyRequests {
		t.Errorf("second request of key a: %d, want 429", code)
	}
	if code := send("b", bytes.NewReader(docBytes)); code != http.StatusOK {
		t.Errorf("key b meanwhile: %d, want 200", code)
	}
	pw.Write(docBytes[10:])
	pw.Close()
	if code := <-slow; code != http.StatusOK {
		t.Errorf("the slow upload: %d", code)
	}
	if code := send("a", bytes.NewReader(docBytes)); code != http.StatusOK {
		t.Errorf("key a after its upload ended: %d, want 200", code)
	}
}
