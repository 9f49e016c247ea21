package engine_test

import (
	"archive/zip"
	"bytes"
	"os"
	"testing"

	"github.com/quarrydocs/quarry/engine"
)

func zipWith(t *testing.T, members map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for name, body := range members {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(body))
	}
	w.Close()
	return b.Bytes()
}

func readDoc(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/reference/docs/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDetect(t *testing.T) {
	cases := []struct {
		name, file, hint string
		data             []byte
		want             string
	}{
		{"docx by members", "x.bin", "", zipWith(t, map[string]string{"word/document.xml": "<w/>"}), "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
		{"xlsx by members", "x", "", zipWith(t, map[string]string{"xl/workbook.xml": "<w/>"}), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
		{"pptx by members", "x", "", zipWith(t, map[string]string{"ppt/presentation.xml": "<p/>"}), "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
		{"epub by mimetype member", "book", "", zipWith(t, map[string]string{"mimetype": "application/epub+zip"}), "application/epub"},
		{"plain zip", "a.docx", "", zipWith(t, map[string]string{"a.txt": "x"}), "application/zip"},
		{"docx hint on non-zip bytes is discarded", "a.txt", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", []byte("hello world"), "text/plain"},
		{"usable hint trusted", "a.bin", "text/html", []byte("plain words"), "text/html"},
		{"hint with charset", "a.bin", "text/csv; charset=utf-8", []byte("a,b"), "text/csv"},
		{"alias hint", "a", "text/x-markdown", []byte("# x"), "text/markdown"},
		{"empty", "empty.txt", "", nil, "inode/x-empty"},
		{"json object", "data", "", []byte(`{"a": 1}`), "application/json"},
		{"ndjson lines", "data", "", []byte("{\"a\":1}\n{\"b\":2}\n"), "application/x-ndjson"},
		{"csv heuristic", "data", "", []byte("a,b,c\n1,2,3\n4,5,6\n"), "text/csv"},
		{"eml header", "mail", "", []byte("Date: Mon\nMessage-ID: <x>\nSubject: hi\nFrom: a@b\nTo: c@d\n\nbody"), "message/rfc822"},
		{"markdown by extension", "README.md", "", []byte("# Title\n\ntext"), "text/markdown"},
		{"xml", "f", "", []byte(`<?xml version="1.0"?><a>b</a>`), "application/xml"},
		{"xml named html", "f.html", "", []byte(`<?xml version="1.0"?><html><body>b</body></html>`), "text/html"},
		{"html", "f", "", []byte(`<!DOCTYPE html><html><body><p>x</p></body></html>`), "text/html"},
		{"pdf", "f", "", []byte("%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n"), "application/pdf"},
		{"png", "f", "", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "image/png"},
		{"random bytes", "blob", "", []byte{0x00, 0xff, 0x13, 0x37, 0x00, 0x01, 0x02, 0xfe, 0x80, 0x00}, "application/octet-stream"},
		{"source code as text", "main.go", "", []byte("package main\n\nfunc main() {}\n"), "text/plain"},
		{"legacy doc (CFB)", "duplicate-paragraphs.doc", "", readDoc(t, "duplicate-paragraphs.doc"), "application/msword"},
		{"legacy xls (CFB)", "tests-example.xls", "", readDoc(t, "tests-example.xls"), "application/vnd.ms-excel"},
		{"legacy ppt (CFB)", "fake-power-point.ppt", "", readDoc(t, "fake-power-point.ppt"), "application/vnd.ms-powerpoint"},
		{"msg (CFB)", "fake-email.msg", "application/x-ole-storage", readDoc(t, "fake-email.msg"), "application/vnd.ms-outlook"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := engine.Detect(engine.NewDocument(c.file, c.data), c.hint)
			if got.MIME != c.want {
				t.Errorf("Detect = %s, want %s", got.MIME, c.want)
			}
		})
	}
}
