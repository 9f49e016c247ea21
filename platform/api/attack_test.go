package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/platform"
	"github.com/quarrydocs/quarry/platform/store"
)

// Attacks on the platform API, each of which once worked against `quarry serve`'s defaults.

// A web page the operator visits posts text/plain JSON (no preflight) to create a source at
// /etc, or fires a bodiless POST to run a workflow.
func TestAttackCrossSiteRequestsRefused(t *testing.T) {
	_, c := open(t, "", t.TempDir())
	send := func(method, path, ctype, body string, h map[string]string) int {
		req, _ := http.NewRequest(method, c.srv.URL+path, strings.NewReader(body))
		req.Header.Set("unstructured-api-key", key)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	body := `{"name":"x","type":"local","config":{"path":"."}}`
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "", "text/plain; charset=utf-8"} {
		if code := send("POST", "/api/v1/sources", ct, body, nil); code != http.StatusUnsupportedMediaType {
			t.Errorf("Content-Type %q: %d, want 415", ct, code)
		}
	}
	cross := map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
	if code := send("POST", "/api/v1/sources", "application/json", body, cross); code != http.StatusForbidden {
		t.Errorf("cross-site JSON POST: %d, want 403", code)
	}
	if code := send("POST", "/api/v1/workflows/00000000-0000-0000-0000-000000000000/run", "", "", cross); code != http.StatusForbidden {
		t.Errorf("cross-site bodiless run: %d, want 403", code)
	}
	if code := send("POST", "/api/v1/sources", "application/json", body, map[string]string{"Sec-Fetch-Site": "same-origin"}); code != 200 {
		t.Errorf("same-origin JSON POST: %d, want 200", code)
	}
}

// A local source at /etc (or at the data directory, to read secret.key) through the API.
func TestAttackLocalSourceOutsideRoots(t *testing.T) {
	dir := t.TempDir()
	_, c := open(t, "", dir)
	for _, p := range []string{"/etc", "/", filepath.Join(dir, "data"), "../data", filepath.Join(dir, "in", "..", "data")} {
		code, v := c.do("POST", "/api/v1/sources", map[string]any{"name": "etc" + fmt.Sprint(len(p)), "type": "local", "config": map[string]any{"path": p, "glob": "shadow"}})
		if code != 422 {
			t.Errorf("local source at %s: %d %v", p, code, v)
		}
		code, _ = c.do("POST", "/api/v1/destinations", map[string]any{"name": "etc" + fmt.Sprint(len(p)), "type": "local", "config": map[string]any{"path": p}})
		if code != 422 {
			t.Errorf("local destination at %s: %d", p, code)
		}
	}
}

// A root that contains the data directory (so the secret key) is refused at start-up.
func TestAttackRootContainingDataDirRefused(t *testing.T) {
	dir := t.TempDir()
	for _, roots := range [][]string{{dir}, {filepath.Join(dir, "data")}, {"/"}} {
		p, err := platform.Open(context.Background(), platform.Config{DataDir: filepath.Join(dir, "data"), LocalRoots: roots, Workers: -1})
		if err == nil {
			p.Close(time.Second)
			t.Errorf("roots %v containing the data directory accepted", roots)
		}
	}
}

// secret.key deleted (or not restored from a backup) while the database holds sealed secrets:
// a new key would never open them; Open must fail and must not write a new key.
func TestAttackMissingSecretKeyFailsClosed(t *testing.T) {
	dir := t.TempDir()
	p, err := platform.Open(context.Background(), platform.Config{DataDir: dir, Workers: -1})
	if err != nil {
		t.Fatal(err)
	}
	p.Close(time.Second)
	keyFile := filepath.Join(dir, "secret.key")
	if err := os.Remove(keyFile); err != nil {
		t.Fatal(err)
	}
	_, err = platform.Open(context.Background(), platform.Config{DataDir: dir, Workers: -1})
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Open without the key file: %v", err)
	}
	if _, err := os.Stat(keyFile); !os.IsNotExist(err) {
		t.Fatalf("a new key file was written: %v", err)
	}
}

// Saving a connector unchanged (its secret sent back as the mask) keeps working when the
// connector validates the secret itself (an Azure connection string's endpoint).
func TestUnchangedSaveWithMaskedConnectionString(t *testing.T) {
	_, c := open(t, "", t.TempDir())
	cfg := map[string]any{"remote_url": "az://docs", "account_name": nil, "account_key": nil, "sas_token": nil,
		"connection_string": "AccountName=acct;AccountKey=a2V5;EndpointSuffix=core.windows.net", "recursive": true}
	m := c.must(200, "POST", "/api/v1/sources", map[string]any{"name": "az", "type": "azure", "config": cfg})
	cfg["connection_string"] = "**********"
	c.must(200, "PUT", "/api/v1/sources/"+m["id"].(string), map[string]any{"config": cfg})
	// A new container with the stored connection string is a new target: send it again.
	cfg["remote_url"] = "az://other"
	cfg["account_name"] = "attacker"
	if code, v := c.do("PUT", "/api/v1/sources/"+m["id"].(string), map[string]any{"config": cfg}); code != 422 {
		t.Fatalf("retargeted with the stored connection string: %d %v", code, v)
	}
}

// Multipart bodies over 32 MiB spill to temporary files, up to 1 GiB each, until the request
// ends; nothing bounded how many were read at once, so parallel slow uploads could fill the
// temporary directory. At most 4 are read at once; more get 503 before a byte is read.
func TestAttackParallelUploadsBounded(t *testing.T) {
	_, c := open(t, "", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pipes []*io.PipeWriter
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		pr, pw := io.Pipe()
		pipes = append(pipes, pw)
		req, _ := http.NewRequestWithContext(ctx, "POST", c.srv.URL+"/api/v1/jobs", pr)
		req.Header.Set("unstructured-api-key", key)
		req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		pw.Write([]byte("--x\r\nContent-Disposition: form-data; name=\"input_files\"; filename=\"a.txt\"\r\n\r\nslow"))
	}
	time.Sleep(300 * time.Millisecond)
	req, _ := http.NewRequest("POST", c.srv.URL+"/api/v1/jobs", strings.NewReader("--x--\r\n"))
	req.Header.Set("unstructured-api-key", key)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("fifth upload while four are read: %d, want 503 with Retry-After", resp.StatusCode)
	}
	for _, pw := range pipes {
		pw.CloseWithError(fmt.Errorf("client gone"))
	}
	cancel()
	wg.Wait()
	// The slots are free again.
	time.Sleep(100 * time.Millisecond)
	req, _ = http.NewRequest("POST", c.srv.URL+"/api/v1/jobs", strings.NewReader("--x--\r\n"))
	req.Header.Set("unstructured-api-key", key)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusServiceUnavailable {
		t.Errorf("slots not released after the uploads ended")
	}
}

// Guessing keys at full speed against the platform API: after 10 refused keys from one address
// it gets 429 with Retry-After, while a valid key from another address still works.
func TestAttackKeyGuessingIsThrottled(t *testing.T) {
	p, _ := open(t, "", t.TempDir())
	h := p.Handler()
	send := func(addr, k string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/api/v1/sources", nil)
		req.RemoteAddr = addr
		req.Header.Set("unstructured-api-key", k)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for i := 0; i < 10; i++ {
		if rec := send("203.0.113.5:1", fmt.Sprint("guess", i)); rec.Code != 401 {
			t.Fatalf("guess %d: %d", i, rec.Code)
		}
	}
	rec := send("203.0.113.5:2", key)
	if rec.Code != 429 || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), `"detail"`) {
		t.Fatalf("11th request from a guessing address: %d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if rec := send("198.51.100.20:1", key); rec.Code != 200 {
		t.Fatalf("a valid key from another address: %d %s", rec.Code, rec.Body)
	}
}

// Job outputs and failed-file errors are document text: whatever serves the platform API (not
// only quarry serve, whose server adds nosniff), every answer is JSON that no browser may sniff
// into HTML — 404 and 405 included, which once dropped nosniff. Before: no nosniff on any answer
// of the handler alone.
func TestAttackAnswersAreNosniffJSON(t *testing.T) {
	_, c := open(t, "", t.TempDir())
	for _, rq := range [][2]string{
		{"GET", "/api/v1/jobs"},
		{"GET", "/api/v1/jobs/00000000-0000-0000-0000-000000000000/download?file_id=<script>"},
		{"GET", "/api/v1/nowhere/<img src=x onerror=alert(1)>"},
		{"DELETE", "/api/v1/jobs"},
	} {
		req, _ := http.NewRequest(rq[0], c.srv.URL+rq[1], nil)
		req.Header.Set("unstructured-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: %d, Content-Type %q, X-Content-Type-Options %q", rq[0], rq[1], resp.StatusCode, ct, resp.Header.Get("X-Content-Type-Options"))
		}
	}
}

// The workflow list's query string reaches SQL only through bound values, a fixed column map
// and range-checked integers: injection attempts in sort_by, sort_direction, page and page_size
// are 422 and the largest page allowed is an empty list, on SQLite and PostgreSQL alike.
func TestAttackWorkflowListQueryParameters(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		_, c := open(t, dsn, t.TempDir())
		for _, q := range []string{
			"sort_by=name%3BDROP%20TABLE%20workflows--",
			"sort_by=(SELECT%201)",
			"sort_direction=desc,%20(SELECT%201)",
			"page=0", "page=-1", "page=1%20OR%201=1", "page_size=0", "page_size=1001", "page_size=1e9", "page=9223372036854775808",
		} {
			if code, v := c.do("GET", "/api/v1/workflows?"+q, nil); code != 422 {
				t.Errorf("%s: %d %v, want 422", q, code, v)
			}
		}
		for _, q := range []string{"page=1073741824&page_size=1000", "name=%27%20OR%201=1--", "name=%25"} {
			code, v := c.do("GET", "/api/v1/workflows?"+q, nil)
			if l, ok := v.([]any); code != 200 || !ok || len(l) != 0 {
				t.Errorf("%s: %d %v, want 200 []", q, code, v)
			}
		}
	})
}

// GET /api/v1/jobs has no pagination (the reference's has none) and was built whole in
// memory: every job, and every upload job with all its file ids, so the answer — and the
// server's memory — grew with the job history without bound (a key holder could grow it on
// purpose with many-file on-demand jobs). It is now read from the store a page at a time and
// written as it goes: no single write holds more than a small buffer, and the array is whole.
func TestAttackJobListIsStreamed(t *testing.T) { eachDB(t, testJobListIsStreamed) }

func testJobListIsStreamed(t *testing.T, dsn string) {
	dir := t.TempDir()
	p, err := platform.Open(context.Background(), platform.Config{Database: dsn, DataDir: filepath.Join(dir, "data"), Workers: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(time.Second)
	ctx := context.Background()
	const jobsN, filesN = 230, 30 // three store pages; ~40 bytes a file id
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < jobsN; i++ {
		j := &store.Job{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), WorkflowID: fmt.Sprintf("10000000-0000-4000-8000-%012d", i),
			WorkflowName: "w", Nodes: []store.Node{}, JobType: "ephemeral", Status: "COMPLETED", ProcessingStatus: "SUCCESS",
			CreatedAt: base.Add(time.Duration(i/2) * time.Second)} // pairs share a time: the cursor breaks ties by id
		if err := p.Store.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < filesN; k++ {
			if _, err := p.Store.AddFile(ctx, &store.JobFile{ID: fmt.Sprintf("20000000-%04d-4000-8000-%012d", i, k), JobID: j.ID, Seq: k,
				DocID: fmt.Sprint(k), Filename: "f", Document: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	rec := &writeRecorder{header: http.Header{}}
	p.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/jobs", nil))
	var got []struct {
		ID           string   `json:"id"`
		InputFileIDs []string `json:"input_file_ids"`
	}
	if err := json.Unmarshal(rec.body.Bytes(), &got); err != nil {
		t.Fatalf("status %d, answer not one JSON array: %v", rec.status, err)
	}
	if len(got) != jobsN || got[0].ID != fmt.Sprintf("00000000-0000-4000-8000-%012d", jobsN-1) || got[jobsN-1].ID != fmt.Sprintf("00000000-0000-4000-8000-%012d", 0) {
		t.Fatalf("%d jobs, first %s", len(got), got[0].ID)
	}
	seen := map[string]bool{}
	for i, j := range got {
		if seen[j.ID] || len(j.InputFileIDs) != filesN {
			t.Fatalf("job %d: %s repeated or with %d files", i, j.ID, len(j.InputFileIDs))
		}
		seen[j.ID] = true
	}
	if rec.largest > 64<<10 || rec.body.Len() < 256<<10 {
		t.Errorf("largest write %d bytes of a %d-byte answer; want the answer written in pieces of at most 64 KiB", rec.largest, rec.body.Len())
	}

	// A job's failed files, likewise: 250 failures (three pages) with 1 KB errors.
	failing := &store.Job{ID: "30000000-0000-4000-8000-000000000000", WorkflowID: "40000000-0000-4000-8000-000000000000",
		WorkflowName: "w", Nodes: []store.Node{}, JobType: "ephemeral", Status: "IN_PROGRESS", ProcessingStatus: "IN_PROGRESS", CreatedAt: base}
	if err := p.Store.CreateJob(ctx, failing); err != nil {
		t.Fatal(err)
	}
	const failedN = 250
	for k := 0; k < failedN; k++ {
		id := fmt.Sprintf("50000000-0000-4000-8000-%012d", k)
		if _, err := p.Store.AddFile(ctx, &store.JobFile{ID: id, JobID: failing.ID, Seq: k, DocID: fmt.Sprintf("doc-%d", k), Filename: "f", Document: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Store.ClaimFile(ctx, id, "w1", base); err != nil {
			t.Fatal(err)
		}
		msg := fmt.Sprintf("error %d ", k) + strings.Repeat("x", 1000)
		if _, err := p.Store.FinishFile(ctx, id, "w1", store.FileFailed, &msg, 0, nil, base); err != nil {
			t.Fatal(err)
		}
	}
	rec = &writeRecorder{header: http.Header{}}
	p.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/jobs/"+failing.ID+"/failed-files", nil))
	var ff struct {
		FailedFiles []struct{ Document, Error string } `json:"failed_files"`
	}
	if err := json.Unmarshal(rec.body.Bytes(), &ff); err != nil || len(ff.FailedFiles) != failedN {
		t.Fatalf("failed-files: %d files, %v", len(ff.FailedFiles), err)
	}
	for k, f := range ff.FailedFiles {
		if f.Document != fmt.Sprintf("doc-%d", k) || !strings.HasPrefix(f.Error, fmt.Sprintf("error %d ", k)) {
			t.Fatalf("failed file %d: %s %.20s", k, f.Document, f.Error)
		}
	}
	if rec.largest > 64<<10 {
		t.Errorf("failed-files: largest write %d bytes of %d", rec.largest, rec.body.Len())
	}

	// A stored output (up to 256 MiB of JSON) was inflated whole before it was written.
	var big bytes.Buffer
	big.WriteString("[")
	for k := 0; k < 20000; k++ {
		if k > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `{"type":"NarrativeText","element_id":"%032d","text":"element %d"}`, k, k)
	}
	big.WriteString("]")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(big.Bytes())
	zw.Close()
	outFile := fmt.Sprintf("20000000-%04d-4000-8000-%012d", 0, 0)
	if _, err := p.Store.ClaimFile(ctx, outFile, "w1", base); err != nil {
		t.Fatal(err)
	}
	nodeID := "60000000-0000-4000-8000-000000000000"
	if _, err := p.Store.FinishFile(ctx, outFile, "w1", store.FileSuccess, nil, 20000, &store.Output{NodeID: nodeID, Data: gz.Bytes()}, base); err != nil {
		t.Fatal(err)
	}
	rec = &writeRecorder{header: http.Header{}}
	p.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/jobs/00000000-0000-4000-8000-000000000000/download?file_id="+outFile+"&node_id="+nodeID, nil))
	if rec.status != 200 || !bytes.Equal(rec.body.Bytes(), big.Bytes()) {
		t.Fatalf("download: status %d, %d bytes, want the %d stored", rec.status, rec.body.Len(), big.Len())
	}
	if rec.largest > 64<<10 {
		t.Errorf("download: largest write %d bytes of %d", rec.largest, rec.body.Len())
	}
}

// writeRecorder records an answer and the size of its largest Write.
type writeRecorder struct {
	header  http.Header
	status  int
	body    bytes.Buffer
	largest int
}

func (w *writeRecorder) Header() http.Header { return w.header }
func (w *writeRecorder) WriteHeader(s int)   { w.status = s }
func (w *writeRecorder) Write(b []byte) (int, error) {
	w.largest = max(w.largest, len(b))
	return w.body.Write(b)
}
