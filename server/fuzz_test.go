package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// documented500 lists the fields through which the reference itself answers 500 (§4): chunking
// option validation, an unknown or wrong encoding, a content-type hint that sends the bytes to
// the wrong partitioner, and bad gzip data.
var documented500 = []string{
	"chunking_strategy", "max_characters", "new_after_n_chars", "combine_under_n_chars", "overlap",
	"overlap_all", "similarity_threshold", "encoding", "content_type", "gz_uncompressed_content_type",
}

func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder, fields string) {
	t.Helper()
	if rec.Code == 200 {
		return
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("status %d with content type %q", rec.Code, ct)
	}
	var d struct{ Detail json.RawMessage }
	if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil || len(d.Detail) == 0 {
		t.Fatalf("status %d body is not {detail}: %s", rec.Code, rec.Body)
	}
	if rec.Code < 500 {
		return
	}
	if rec.Code == 500 && d.Detail[0] == '"' {
		for _, name := range documented500 {
			if strings.Contains(fields, name) {
				return
			}
		}
	}
	t.Fatalf("undocumented %d for fields %q: %s", rec.Code, fields, rec.Body)
}

// FuzzForm sends a small text file with two fuzzed form fields and a fuzzed Accept header.
func FuzzForm(f *testing.F) {
	f.Add("strategy", "fast", "languages", "eng+deu", "")
	f.Add("strategy", `"hi_res"`, "coordinates", "TRUE", "*/*")
	f.Add("languages[]", `["eng",1,null]`, "starting_page_number", "-3", "multipart/mixed")
	f.Add("chunking_strategy", "by_title", "max_characters", "0", "")
	f.Add("chunking_strategy", "BY_PAGE", "overlap", "10", "text/csv")
	f.Add("output_format", "text/csv", "unique_element_ids", "yes", "application/json;q=0.5, multipart/mixed")
	f.Add("similarity_threshold", "NaN", "chunking_strategy", "by_similarity", "")
	f.Add("skip_infer_table_types", "[]", "extract_image_block_types", "image+table", "")
	f.Add("starting_page_number", "9223372036854775807", "include_page_breaks", "t", "")
	f.Add("xml_keep_tags", "1", "encoding", "latin-1", "")
	f.Add("content_type", "application/pdf", "strategy", "ocr_only", "")
	f.Add("files", "text", "files[]", "x", "")
	srv := New(Config{})
	doc := []byte("A Title\n\nThis document has a sentence that reads like narrative text for the classifier.\n")
	f.Fuzz(func(t *testing.T, n1, v1, n2, v2, accept string) {
		// A small document must never take long, whatever the parameters: a hang is a failure.
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() {
			done <- post(t, srv, http.Header{"Accept": {accept}}, field(n1, v1), file("doc.txt", doc, "text/plain"), field(n2, v2))
		}()
		select {
		case rec := <-done:
			checkAnswer(t, rec, n1+" "+n2)
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer within 10 s for %q=%q %q=%q", n1, v1, n2, v2)
		}
	})
}

// FuzzBody sends arbitrary bytes as a multipart body: parsing must fail cleanly.
func FuzzBody(f *testing.F) {
	f.Add([]byte("--X\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\n\r\nhello world\r\n--X--\r\n"))
	f.Add([]byte("--X\r\nContent-Disposition: form-data; name=\"strategy\"\r\n\r\nfast\r\n--X--\r\n"))
	f.Add([]byte("--X\r\nContent-Disposition: form-data; name=\"files\"; filename=\"\"\r\nContent-Type: application/gzip\r\n\r\n\x1f\x8b\r\n--X--\r\n"))
	f.Add([]byte("--X\r\n\r\n--X"))
	f.Add([]byte{})
	srv := New(Config{MaxBodyBytes: 1 << 16})
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/general/v0/general", bytes.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary=X")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		fields := string(body)
		if bytes.Contains(body, []byte(".gz")) || bytes.Contains(body, []byte("gzip")) {
			fields += " content_type" // bad gzip data is a documented 500
		}
		checkAnswer(t, rec, fields)
	})
}
