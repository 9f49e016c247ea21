package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const refDocs = "../testdata/reference/docs"

func readDoc(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(refDocs, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gz(data []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

var textDoc = []byte("Important points\n\nThis is a test document that should be classified as narrative text.\n\n- a bullet item\n")

// TestErrorBodies pins status codes, content types and exact bodies of the reference's answers
// (partition-api.md §1, §4).
func TestErrorBodies(t *testing.T) {
	srv := New(Config{})
	bad := []byte("%PDF-1.4\ngarbage that is no pdf")
	cases := []struct {
		name   string
		parts  []part
		header http.Header
		status int
		body   string
	}{
		{"missing files", []part{field("strategy", "fast")}, nil, 422,
			`{"detail":[{"type":"missing","loc":["body","files"],"msg":"Field required","input":null}]}`},
		{"files as text", []part{field("files", "abc")}, nil, 422,
			`{"detail":[{"type":"value_error","loc":["body","files","0"],"msg":"Value error, Expected UploadFile, received: <class 'str'>","input":"abc","ctx":{"error":{}}}]}`},
		{"bad int", []part{file("a.txt", textDoc, "text/plain"), field("starting_page_number", "two")}, nil, 422,
			`{"detail":[{"type":"int_parsing","loc":["body","starting_page_number"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"two"}]}`},
		{"bad output format", []part{file("a.txt", textDoc, "text/plain"), field("output_format", "text/html")}, nil, 422,
			`{"detail":[{"type":"literal_error","loc":["body","output_format"],"msg":"Input should be 'application/json' or 'text/csv'","input":"text/html","ctx":{"expected":"'application/json' or 'text/csv'"}}]}`},
		{"empty file", []part{file("empty", nil, "")}, nil, 400, `{"detail":"File type inode/x-empty is not supported."}`},
		{"zip", []part{file("a.zip", zipBytes(t), "application/zip")}, nil, 400, `{"detail":"File type application/zip is not supported."}`},
		{"unknown bytes", []part{file("blob", []byte{0, 1, 2, 3, 0xff, 0xfe, 0, 0, 9}, "application/octet-stream")}, nil, 400,
			`{"detail":"File type application/octet-stream is not supported."}`},
		{"several files, bad accept", []part{file("a.txt", textDoc, ""), file("b.txt", textDoc, "")}, http.Header{"Accept": {"text/html"}}, 406,
			`{"detail":"Conflict in media type text/html with response type 'multipart/mixed'.\n"}`},
		// Client errors are 4xx (the reference answers 500 to these).
		{"bad gzip", []part{file("a.txt.gz", []byte("hello"), "application/gzip")}, nil, 400, `{"detail":"Not a gzipped file (b'he')"}`},
		{"chunking option", []part{file("a.txt", textDoc, ""), field("chunking_strategy", "by_title"), field("overlap", "600")}, nil, 400, ""},
		{"negative max_characters", []part{file("a.txt", textDoc, ""), field("chunking_strategy", "basic"), field("max_characters", "-1")}, nil, 400, ""},
		{"combine over max", []part{file("a.txt", textDoc, ""), field("chunking_strategy", "by_title"), field("max_characters", "100"), field("combine_under_n_chars", "200")}, nil, 400, ""},
		{"corrupt pdf", []part{file("bad.pdf", bad, "application/pdf"), field("strategy", "fast")}, nil, 422, ""},
		{"unknown encoding", []part{file("a.txt", textDoc, ""), field("encoding", "klingon")}, nil, 400, `{"detail":"unknown encoding: klingon"}`},
		{"undecodable in the named encoding", []part{file("a.txt", []byte("caf\xe9 au lait"), ""), field("encoding", "utf-8")}, nil, 422,
			`{"detail":"'utf-8' codec can't decode byte 0xe9 in position 3: invalid start byte"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := post(t, srv, c.header, c.parts...)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, c.status, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type %q", ct)
			}
			if c.body != "" && rec.Body.String() != c.body {
				t.Errorf("body\n got %s\nwant %s", rec.Body, c.body)
			}
			var d struct{ Detail any }
			if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil || d.Detail == nil {
				t.Errorf("body is not {detail}: %s", rec.Body)
			}
		})
	}
}

func zipBytes(t testing.TB) []byte {
	// A ZIP archive holding one plain text member: a container nothing partitions.
	return []byte("PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00\x8a\x9c\x0d\x8b\x02\x00\x00\x00\x02\x00\x00\x00\x05\x00\x00\x00a.txthiPK\x01\x02\x14\x03\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00\x8a\x9c\x0d\x8b\x02\x00\x00\x00\x02\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xa4\x81\x00\x00\x00\x00a.txtPK\x05\x06\x00\x00\x00\x00\x01\x00\x01\x003\x00\x00\x00%\x00\x00\x00\x00\x00")
}

func TestRoutes(t *testing.T) {
	srv := New(Config{})
	cases := []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/general/v0/general", 405, `{"detail":"Only POST requests are supported."}`},
		{"GET", "/general/0.1.2/general", 405, `{"detail":"Only POST requests are supported."}`},
		{"PUT", "/general/v0/general", 405, `{"detail":"Method Not Allowed"}`},
		{"GET", "/healthcheck", 200, `{"healthcheck":"HEALTHCHECK STATUS: EVERYTHING OK!"}`},
		{"GET", "/nowhere", 404, `{"detail":"Not Found"}`},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		if rec.Code != c.status || rec.Body.String() != c.body || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: %d %q %s, want %d %s", c.method, c.path, rec.Code, rec.Header().Get("Content-Type"), rec.Body, c.status, c.body)
		}
	}
	// The versioned route partitions too.
	body, ct := multipartBody(t, file("a.txt", textDoc, "text/plain"))
	req := httptest.NewRequest("POST", "/general/0.1.2/general", body)
	req.Header.Set("Content-Type", ct)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != 200 || len(decodeElems(t, rec.Body.Bytes())) == 0 {
		t.Errorf("versioned route: %d %s", rec.Code, rec.Body)
	}
}

func TestAPIKeys(t *testing.T) {
	srv := New(Config{APIKeys: []string{"k1", "k2"}})
	doc := file("a.txt", textDoc, "text/plain")
	cases := []struct {
		name   string
		header http.Header
		parts  []part
		status int
		body   string
	}{
		// The key sent is never echoed (the reference prints it).
		{"missing", nil, []part{doc}, 401, `{"detail":"Missing API key: send it in the unstructured-api-key header"}`},
		{"wrong", http.Header{"Unstructured-Api-Key": {"nope"}}, []part{doc}, 401, `{"detail":"The API key sent is invalid"}`},
		{"first key", http.Header{"Unstructured-Api-Key": {"k1"}}, []part{doc}, 200, ""},
		{"second key", http.Header{"Unstructured-Api-Key": {"k2"}}, []part{doc}, 200, ""},
		{"service header", http.Header{"Service-Api-Key": {"k2"}}, []part{doc}, 200, ""},
		{"bearer", http.Header{"Authorization": {"Bearer k1"}}, []part{doc}, 200, ""},
		{"bad bearer", http.Header{"Authorization": {"Bearer x"}}, []part{doc}, 401, `{"detail":"The API key sent is invalid"}`},
		// The key is checked before anything else (the reference validates the schema first).
		{"401 before 422", http.Header{"Unstructured-Api-Key": {"nope"}}, []part{field("strategy", "fast")}, 401, ""},
	}
	for _, c := range cases {
		rec := post(t, srv, c.header, c.parts...)
		if rec.Code != c.status || (c.body != "" && rec.Body.String() != c.body) {
			t.Errorf("%s: %d %s, want %d %s", c.name, rec.Code, rec.Body, c.status, c.body)
		}
	}
}

func TestResponses(t *testing.T) {
	srv := New(Config{})
	one := post(t, srv, nil, file("a.txt", textDoc, "text/plain"))
	if one.Code != 200 || one.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("one file: %d %q %s", one.Code, one.Header().Get("Content-Type"), one.Body)
	}
	elems := decodeElems(t, one.Body.Bytes())
	if len(elems) != 3 || elems[0].Metadata["filename"] != "a.txt" || elems[0].Metadata["filetype"] != "text/plain" {
		t.Fatalf("one file elements: %+v", elems)
	}

	t.Run("several files", func(t *testing.T) {
		rec := post(t, srv, http.Header{"Accept": {"application/json;q=1, text/csv;q=0"}},
			file("a.txt", textDoc, "text/plain"), file("b.html", []byte("<h1>Hello</h1><p>World text here.</p>"), "text/html"))
		var lists [][]elem
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &lists) != nil || len(lists) != 2 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		if lists[1][0].Metadata["filename"] != "b.html" || len(lists[0]) != 3 {
			t.Errorf("array of arrays: %+v", lists)
		}
	})

	t.Run("csv", func(t *testing.T) {
		rec := post(t, srv, nil, file("a.txt", textDoc, "text/plain"), field("output_format", "text/csv"))
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/csv; charset=utf-8" || !strings.HasPrefix(rec.Body.String(), "type,element_id,text,") {
			t.Fatalf("%d %q %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		rec = post(t, srv, nil, file("a.txt", textDoc, "text/plain"), file("b.txt", textDoc, "text/plain"), field("output_format", "text/csv"))
		lines := strings.Split(strings.TrimSpace(rec.Body.String()), "\n")
		if rec.Code != 200 || !strings.HasPrefix(lines[0], ",type,element_id,text,") || len(lines) != 7 || !strings.HasPrefix(lines[6], "5,") {
			t.Fatalf("merged csv: %d\n%s", rec.Code, rec.Body)
		}
	})

	t.Run("multipart/mixed", func(t *testing.T) {
		rec := post(t, srv, http.Header{"Accept": {"multipart/mixed"}},
			file("a.txt", textDoc, "text/plain"), file("b.txt", []byte("Another short document with one narrative sentence."), "text/plain"))
		mt, params, err := mime.ParseMediaType(rec.Header().Get("Content-Type"))
		if rec.Code != 200 || err != nil || mt != "multipart/mixed" || len(params["boundary"]) != 32 {
			t.Fatalf("%d %q", rec.Code, rec.Header().Get("Content-Type"))
		}
		if !strings.Contains(rec.Header().Get("Content-Type"), `boundary="`) {
			t.Errorf("boundary not quoted: %s", rec.Header().Get("Content-Type"))
		}
		mr := multipart.NewReader(rec.Body, params["boundary"])
		var got []string
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(p)
			if p.Header.Get("Content-Transfer-Encoding") != "base64" || p.Header.Get("Content-Type") != "application/json" ||
				p.Header.Get("Content-Length") != fmt.Sprint(len(raw)) {
				t.Errorf("part headers %v (len %d)", p.Header, len(raw))
			}
			dec, err := base64.StdEncoding.DecodeString(string(raw))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(dec))
		}
		if len(got) != 2 || got[0] != one.Body.String() {
			t.Errorf("parts %q, first want %s", got, one.Body)
		}
	})

	t.Run("gzip", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			parts []part
		}{
			{"by name", []part{file("a.txt.gz", gz(textDoc), "application/octet-stream")}},
			{"by type", []part{file("a.txt", gz(textDoc), "application/gzip")}},
			{"uncompressed type", []part{file("a.gz", gz(textDoc), "application/gzip"), field("gz_uncompressed_content_type", "text/plain")}},
		} {
			rec := post(t, srv, nil, c.parts...)
			got := decodeElems(t, rec.Body.Bytes())
			if rec.Code != 200 || len(got) != 3 || got[0].Text != elems[0].Text {
				t.Errorf("%s: %d %s", c.name, rec.Code, rec.Body)
			}
			if c.name == "by name" && (got[0].Metadata["filename"] != "a.txt" || got[0].ElementID != elems[0].ElementID) {
				t.Errorf("gzip: name or id differ: %+v", got[0])
			}
		}
	})

	t.Run("content_type hint", func(t *testing.T) {
		rec := post(t, srv, nil, file("page.txt", []byte("<h1>Heading</h1><p>Some paragraph text that is long enough to be narrative.</p>"), "text/plain"), field("content_type", "text/html"))
		got := decodeElems(t, rec.Body.Bytes())
		if rec.Code != 200 || got[0].Type != "Title" || got[0].Metadata["filetype"] != "text/html" {
			t.Errorf("%d %s", rec.Code, rec.Body)
		}
	})

	t.Run("msg with a wrong hint", func(t *testing.T) {
		// §3 step 6: a .msg upload is partitioned as Outlook mail whatever the client says.
		rec := post(t, srv, nil, file("fake-email.msg", readDoc(t, "fake-email.msg"), "text/plain"))
		got := decodeElems(t, rec.Body.Bytes())
		if rec.Code != 200 || got[0].Text != "This is a test email to use for unit tests." || got[0].Metadata["subject"] != "Test Email" {
			t.Errorf("%d %s", rec.Code, rec.Body)
		}
	})

	t.Run("list forms", func(t *testing.T) {
		for _, parts := range [][]part{
			{field("languages[]", "eng"), field("languages[]", "deu")},
			{field("languages", "eng"), field("languages", "deu")},
			{field("languages", `["eng","deu"]`)},
			{field("languages", "eng+deu")},
			{field("languages", "eng,deu")}, // the TypeScript SDK's encoding
			{field("languages[]", "eng, deu")},
		} {
			rec := post(t, srv, nil, append([]part{file("a.txt", textDoc, "text/plain")}, parts...)...)
			got := decodeElems(t, rec.Body.Bytes())
			// Element 1 is the long sentence; short ASCII lines are always "eng" (§11).
			if fmt.Sprint(got[1].Metadata["languages"]) != "[eng deu]" {
				t.Errorf("%v: languages %v", parts, got[1].Metadata["languages"])
			}
		}
	})

	t.Run("sdk defaults ignored", func(t *testing.T) {
		rec := post(t, srv, nil, field("split_pdf_page", "true"), field("split_pdf_concurrency_level", "5"),
			field("split_pdf_allow_failed", "false"), field("strategy", `"fast"`), file("a.txt", textDoc, "text/plain"))
		if rec.Code != 200 || rec.Body.String() != one.Body.String() {
			t.Errorf("%d %s", rec.Code, rec.Body)
		}
	})
}

func TestStartingPageNumber(t *testing.T) {
	srv := New(Config{})
	pdf := fivePagePDF()
	base := post(t, srv, nil, file("five.pdf", pdf, "application/pdf"), field("strategy", "fast"))
	shifted := post(t, srv, nil, file("five.pdf", pdf, "application/pdf"), field("strategy", "fast"), field("starting_page_number", "10"))
	a, b := decodeElems(t, base.Body.Bytes()), decodeElems(t, shifted.Body.Bytes())
	if base.Code != 200 || len(a) < 10 || len(a) != len(b) {
		t.Fatalf("%d %d elements, %d shifted: %s", base.Code, len(a), len(b), base.Body)
	}
	for i := range a {
		pa, pb := a[i].Metadata["page_number"].(float64), b[i].Metadata["page_number"].(float64)
		if pb != pa+9 {
			t.Errorf("element %d: page %v shifted to %v", i, pa, pb)
		}
	}
	if a[0].ElementID == b[0].ElementID {
		t.Error("page number is an ID input: IDs must change with the page")
	}
}

func TestBodyLimit(t *testing.T) {
	srv := New(Config{MaxBodyBytes: 1000})
	rec := post(t, srv, nil, file("a.txt", bytes.Repeat([]byte("word "), 1000), "text/plain"))
	if rec.Code != 413 || rec.Body.String() != `{"detail":"Request body is larger than the limit of 1000 bytes."}` {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
	// A small gzip that expands past the limit is refused too.
	rec = post(t, srv, nil, file("a.txt.gz", gz(bytes.Repeat([]byte("a"), 5000)), "application/gzip"))
	if rec.Code != 413 || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("gzip bomb: %d %s", rec.Code, rec.Body)
	}
}

func TestOverload(t *testing.T) {
	srv := New(Config{MaxConcurrent: 1, MaxQueue: -1, RetryAfter: 2 * time.Second})
	release, ok := srv.limit.acquire(context.Background())
	if !ok {
		t.Fatal("no slot")
	}
	rec := post(t, srv, nil, file("a.txt", textDoc, "text/plain"))
	if rec.Code != 503 || rec.Body.String() != `{"detail":"Server is under heavy load. Please try again later."}` || rec.Header().Get("Retry-After") != "2" {
		t.Errorf("%d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	release()
	if rec := post(t, srv, nil, file("a.txt", textDoc, "text/plain")); rec.Code != 200 {
		t.Errorf("after release: %d", rec.Code)
	}

	// A queued request gets the slot when it frees up.
	srv = New(Config{MaxConcurrent: 1, MaxQueue: 1, QueueTimeout: 5 * time.Second})
	release, _ = srv.limit.acquire(context.Background())
	done := make(chan int)
	go func() { done <- post(t, srv, nil, file("a.txt", textDoc, "text/plain")).Code }()
	time.Sleep(50 * time.Millisecond)
	release()
	if code := <-done; code != 200 {
		t.Errorf("queued request: %d", code)
	}
}

func TestRequestTimeout(t *testing.T) {
	srv := New(Config{RequestTimeout: time.Nanosecond})
	rec := post(t, srv, nil, file("a.txt", textDoc, "text/plain"))
	if rec.Code != 504 || rec.Body.String() != `{"detail":"Partitioning did not finish within 1ns."}` {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}

func TestMetricsAndLogs(t *testing.T) {
	var logs bytes.Buffer
	srv := New(Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	post(t, srv, http.Header{"X-Request-Id": {"req-42"}}, file("a.txt", textDoc, "text/plain"))
	post(t, srv, nil, field("strategy", "fast"))
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	m := rec.Body.String()
	for _, want := range []string{
		`quarry_http_requests_total{code="200",method="POST",route="/general/{version}/general"} 1`,
		`quarry_http_requests_total{code="422",method="POST",route="/general/{version}/general"} 1`,
		`quarry_documents_total{filetype="text/plain"} 1`,
		`quarry_elements_total{type="NarrativeText"} 1`,
		`quarry_partition_requests_in_flight 0`,
		`quarry_http_request_duration_seconds_bucket`,
		`go_goroutines`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	var line map[string]any
	first, _, _ := strings.Cut(logs.String(), "\n")
	if err := json.Unmarshal([]byte(first), &line); err != nil {
		t.Fatalf("log line %q: %v", first, err)
	}
	if line["request_id"] != "req-42" || line["status"] != 200.0 || line["method"] != "POST" || line["files"] != 1.0 || line["elements"] != 3.0 {
		t.Errorf("access log %v", line)
	}
}

func TestOpenAPIAndDocs(t *testing.T) {
	srv := New(Config{})
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/general/openapi.json", nil))
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
		Comp    struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi: %v %s", err, rec.Body.String()[:min(200, rec.Body.Len())])
	}
	if doc.Paths["/general/v0/general"]["post"] == nil {
		t.Error("no partition operation")
	}
	props := doc.Comp.Schemas["partition_parameters"].Properties
	page := httptest.NewRecorder()
	srv.ServeHTTP(page, httptest.NewRequest("GET", "/general/docs", nil))
	if page.Code != 200 || !strings.HasPrefix(page.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("docs: %d", page.Code)
	}
	for _, p := range append(apiParamNames(), "files") {
		if props[p] == nil {
			t.Errorf("openapi lacks %s", p)
		}
		if !strings.Contains(page.Body.String(), "<code>"+p+"</code>") {
			t.Errorf("docs page lacks %s", p)
		}
	}
	if props["strategy"]["default"] != "auto" || props["languages"]["type"] != "array" {
		t.Errorf("schemas: %v %v", props["strategy"], props["languages"])
	}
	// A server with a home page (the web UI) links back to it; one without says nothing.
	if strings.Contains(page.Body.String(), "web UI</a>") {
		t.Error("docs page links to a web UI this server does not have")
	}
	srv.RedirectRoot("/ui/")
	page = httptest.NewRecorder()
	srv.ServeHTTP(page, httptest.NewRequest("GET", "/general/docs", nil))
	if !strings.Contains(page.Body.String(), `Back to the <a href="/ui/">web UI</a>.`) {
		t.Error("docs page does not link back to the web UI")
	}
}

// TestGracefulShutdown cancels the server while a request is still uploading: the request
// completes, new connections are refused.
func TestGracefulShutdown(t *testing.T) {
	srv := New(Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln, 10*time.Second) }()

	body, ct := multipartBody(t, file("a.txt", textDoc, "text/plain"))
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/general/v0/general", pr)
	req.Header.Set("Content-Type", ct)
	req.ContentLength = int64(body.Len())
	resc := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
		}
		resc <- resp
	}()
	raw := body.Bytes()
	pw.Write(raw[:len(raw)/2])
	time.Sleep(100 * time.Millisecond) // the request is now in flight
	cancel()
	time.Sleep(100 * time.Millisecond)
	pw.Write(raw[len(raw)/2:])
	pw.Close()
	resp := <-resc
	if resp == nil {
		t.Fatal("no response")
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(decodeElems(t, b)) != 3 {
		t.Errorf("in-flight request: %d %s", resp.StatusCode, b)
	}
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Error("listener still open after shutdown")
	}
}

func TestMergeCSV(t *testing.T) {
	a := table{cols: []string{"type", "text", "page"}, rows: [][]string{{"Title", "b", "1"}, {"Text", "a", "2"}}}
	b := table{cols: []string{"type", "text", "url"}, rows: [][]string{{"Title", "b", "u"}, {"Address", "c", "v"}}}
	m := outerMerge(a, b)
	floatify(&m)
	got := fmt.Sprint(m.cols, m.rows)
	want := "[type text page url] [[Address c  v] [Text a 2.0 ] [Title b 1.0 u]]"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
