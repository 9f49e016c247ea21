package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
)

// sdkDir holds the pinned TypeScript SDK (package.json, package-lock.json) and drive.mjs.
const sdkDir = "sdktest"

// ensureSDK installs the pinned SDK with npm ci when node_modules is missing.
func ensureSDK(t *testing.T) string {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIP: node is not installed, so the TypeScript SDK test cannot run (install Node.js ≥ 18)")
	}
	if _, err := os.Stat(filepath.Join(sdkDir, "node_modules", "unstructured-client", "package.json")); err == nil {
		return node
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("node is installed but npm is not: cannot install the SDK (server/sdktest: npm ci)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = sdkDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in server/sdktest: %v\n%s", err, out)
	}
	return node
}

// seenRequest is what the recording wrapper notes about each partition request.
type seenRequest struct{ filename, startingPage, splitFlag string }

// recorder notes the file name and page fields of each partition request, then passes it on.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	seen []seenRequest
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var s seenRequest
		if _, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil {
			mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
			for {
				p, err := mr.NextPart()
				if err != nil {
					break
				}
				v, _ := io.ReadAll(p)
				switch p.FormName() {
				case "files":
					s.filename = p.FileName()
				case "starting_page_number":
					s.startingPage = string(v)
				case "split_pdf_page":
					s.splitFlag = string(v)
				}
			}
		}
		rc.mu.Lock()
		rc.seen = append(rc.seen, s)
		rc.mu.Unlock()
	}
	rc.next.ServeHTTP(w, r)
}

type sdkOutcome struct {
	Elements   []any           `json:"elements"`
	Error      string          `json:"error"`
	StatusCode int             `json:"statusCode"`
	Detail     json.RawMessage `json:"detail"`
	Message    string          `json:"message"`
}

// TestTypeScriptSDK drives the server with the official TypeScript SDK (npm
// unstructured-client, pinned in sdktest/package-lock.json): partition of TXT, HTML, DOCX and
// PDF equals a direct request; a 5-page PDF split client-side into concurrent page batches
// equals the unsplit answer (same elements and IDs); a 401 and a 422 surface as the SDK's own
// error classes.
func TestTypeScriptSDK(t *testing.T) {
	node := ensureSDK(t)
	const key = "sdk-test-key"
	srv := New(Config{APIKeys: []string{key}})
	rec := &recorder{next: srv}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: rec}
	go hs.Serve(ln)
	defer hs.Close()

	dir := t.TempDir()
	five := filepath.Join(dir, "five-pages.pdf")
	if err := os.WriteFile(five, fivePagePDF(), 0o644); err != nil {
		t.Fatal(err)
	}
	abs := func(name string) string {
		p, _ := filepath.Abs(filepath.Join(refDocs, name))
		return p
	}
	type scenario struct {
		Name   string         `json:"name"`
		File   string         `json:"file"`
		Key    string         `json:"key,omitempty"`
		Params map[string]any `json:"params,omitempty"`
	}
	scenarios := []scenario{
		{Name: "txt", File: abs("fake-text.txt")},
		{Name: "html", File: abs("ideas-page.html")},
		{Name: "docx", File: abs("handbook-1p.docx")},
		{Name: "pdf", File: abs("layout-parser-paper-fast.pdf"), Params: map[string]any{"strategy": "fast"}},
		{Name: "split", File: five, Params: map[string]any{"strategy": "fast", "splitPdfPage": true, "splitPdfConcurrencyLevel": 5}},
		{Name: "unsplit", File: five, Params: map[string]any{"strategy": "fast", "splitPdfPage": false}},
		{Name: "unauthorized", File: abs("fake-text.txt"), Key: "wrong-key"},
		{Name: "invalid", File: abs("fake-text.txt"), Params: map[string]any{"strategy": "bogus"}},
	}
	specs, _ := json.Marshal(scenarios)
	specFile := filepath.Join(dir, "scenarios.json")
	os.WriteFile(specFile, specs, 0o644)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "drive.mjs", "http://"+ln.Addr().String(), key, specFile)
	cmd.Dir = sdkDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node drive.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var got map[string]sdkOutcome
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("driver output: %v\n%s\nstderr:\n%s", err, out, stderr.String())
	}

	// Direct requests with what the SDK sends by default (strategy hi_res, SDK-only fields).
	direct := func(name string, data []byte, ctype string, extra ...part) []any {
		parts := append([]part{file(name, data, ctype), field("strategy", "hi_res"), field("split_pdf_page", "true"),
			field("include_slide_notes", "true"), field("pdf_infer_table_structure", "true")}, extra...)
		r := post(t, srv, http.Header{"Unstructured-Api-Key": {key}}, parts...)
		var v []any
		if r.Code != 200 || json.Unmarshal(r.Body.Bytes(), &v) != nil {
			t.Fatalf("direct %s: %d %s", name, r.Code, r.Body)
		}
		return v
	}
	for _, c := range []struct{ name, file, ctype, strategy string }{
		{"txt", "fake-text.txt", "text/plain", ""},
		{"html", "ideas-page.html", "text/html", ""},
		{"docx", "handbook-1p.docx", "application/octet-stream", ""},
		{"pdf", "layout-parser-paper-fast.pdf", "application/pdf", "fast"},
	} {
		o := got[c.name]
		if o.Error != "" || len(o.Elements) == 0 {
			t.Errorf("%s: SDK call failed: %+v", c.name, o)
			continue
		}
		var extra []part
		if c.strategy != "" {
			extra = append(extra, field("strategy", c.strategy))
		}
		if want := direct(c.file, readDoc(t, c.file), c.ctype, extra...); !reflect.DeepEqual(o.Elements, want) {
			t.Errorf("%s: SDK result differs from a direct request (%d vs %d elements)", c.name, len(o.Elements), len(want))
		}
	}

	split, unsplit := got["split"], got["unsplit"]
	if split.Error != "" || unsplit.Error != "" || len(unsplit.Elements) < 10 {
		t.Fatalf("split/unsplit: %+v / %+v", split, unsplit)
	}
	if !reflect.DeepEqual(split.Elements, unsplit.Elements) {
		a, _ := json.MarshalIndent(split.Elements, "", " ")
		b, _ := json.MarshalIndent(unsplit.Elements, "", " ")
		t.Errorf("split result differs from unsplit:\nsplit %s\nunsplit %s", a, b)
	}
	var pieces []string
	for _, s := range rec.seen {
		if s.filename == "five-pages.pdf" && s.splitFlag == "false" && s.startingPage != "" {
			pieces = append(pieces, s.startingPage)
		}
	}
	slices.Sort(pieces)
	if !slices.Equal(pieces, []string{"1", "3", "5"}) {
		t.Errorf("split pieces sent with starting_page_number %v, want [1 3 5]", pieces)
	}

	t.Logf("SDK: txt %d, html %d, docx %d, pdf %d elements; 5-page PDF split into pieces at pages %v, %d elements equal to unsplit",
		len(got["txt"].Elements), len(got["html"].Elements), len(got["docx"].Elements), len(got["pdf"].Elements), pieces, len(split.Elements))
	if o := got["unauthorized"]; o.Error != "SDKError" || o.StatusCode != 401 {
		t.Errorf("401: got %+v", o)
	}
	if o := got["invalid"]; o.Error != "HTTPValidationError" || o.StatusCode != 422 {
		t.Errorf("422: got %+v", o)
	} else {
		var detail []map[string]any
		if json.Unmarshal(o.Detail, &detail) != nil || len(detail) != 1 || detail[0]["type"] != "literal_error" {
			t.Errorf("422 detail: %s", o.Detail)
		}
	}
}
