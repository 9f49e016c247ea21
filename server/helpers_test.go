package server

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"testing"

	_ "github.com/quarrydocs/quarry/formats/all"
	_ "github.com/quarrydocs/quarry/strategies/fast"
)

// part is one multipart field: a file when filename is set.
type part struct {
	name, filename, contentType string
	data                        []byte
}

func file(name string, data []byte, ctype string) part {
	return part{name: "files", filename: name, contentType: ctype, data: data}
}

func field(name, value string) part { return part{name: name, data: []byte(value)} }

func multipartBody(t testing.TB, parts ...part) (*bytes.Buffer, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		var w io.Writer
		var err error
		if p.filename != "" || p.contentType != "" {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", `form-data; name="`+p.name+`"; filename="`+p.filename+`"`)
			if p.contentType != "" {
				h.Set("Content-Type", p.contentType)
			}
			w, err = mw.CreatePart(h)
		} else {
			w, err = mw.CreateFormField(p.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		w.Write(p.data)
	}
	mw.Close()
	return &b, mw.FormDataContentType()
}

// post sends a multipart request to h and returns the recorded response.
func post(t testing.TB, h http.Handler, header http.Header, parts ...part) *httptest.ResponseRecorder {
	t.Helper()
	body, ct := multipartBody(t, parts...)
	req := httptest.NewRequest(http.MethodPost, "/general/v0/general", body)
	req.Header.Set("Content-Type", ct)
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// elem is the part of an element the tests compare.
type elem struct {
	Type      string         `json:"type"`
	ElementID string         `json:"element_id"`
	Text      string         `json:"text"`
	Metadata  map[string]any `json:"metadata"`
}

func decodeElems(t testing.TB, body []byte) []elem {
	t.Helper()
	var out []elem
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("not an element array: %v\n%s", err, body)
	}
	return out
}
