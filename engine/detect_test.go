package engine_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/internal/cfbtest"
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

// cut drops an archive's central directory, as a download cut short does.
func cut(b []byte) []byte { return b[:bytes.LastIndex(b, []byte("PK\x01\x02"))] }

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
		// An archive cut short (no central directory) under a ZIP-based format's name is a
		// damaged file of that format (its reader answers "File is not a valid …"); nameless or
		// named .zip it stays a ZIP.
		{"cut pptx", "deck.pptx", "", cut(zipWith(t, map[string]string{"ppt/presentation.xml": "<p/>"})), "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
		{"cut zip", "a.zip", "", cut(zipWith(t, map[string]string{"ppt/presentation.xml": "<p/>"})), "application/zip"},
		{"cut, no name", "a", "", cut(zipWith(t, map[string]string{"ppt/presentation.xml": "<p/>"})), "application/zip"},

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
		// Well-formed XML in a .xml file is XML without a declaration, even when its root has an
		// HTML name a byte sniffer takes for HTML, or none it knows; HTML is still HTML.
		{"xml root named like html", "a.xml", "", []byte(`<a href="x"><p>one</p><table>two</table></a>`), "application/xml"},
		{"xml root unknown to the sniffer", "ns.xml", "", []byte("<a:foo xmlns:a=\"http://a\">\n <a:bar>text</a:bar>\n</a:foo>\n"), "application/xml"},
		{"xhtml in xml file", "page.xml", "", []byte(`<html xmlns="http://www.w3.org/1999/xhtml"><body><p>x</p></body></html>`), "text/html"},
		{"xhtml namespace under another root", "frag.xml", "", []byte(`<div xmlns="http://www.w3.org/1999/xhtml"><p>x</p></div>`), "text/html"},
		{"malformed html in xml file", "bad.xml", "", []byte(`<p>one<p>two<br></p>`), "text/html"},
		{"two roots in xml file", "two.xml", "", []byte(`<p>one</p><p>two</p>`), "text/html"},
		// XHTML is HTML, declared or not, in .xhtml or .xml files and by its MIME hint.
		{"xhtml with declaration in xml file", "ch.xml", "", []byte("<?xml version=\"1.0\"?>\n<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body><p>x</p></body></html>"), "text/html"},
		{"xhtml file", "ch.xhtml", "", []byte("<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body><p>x</p></body></html>"), "text/html"},
		{"xhtml hint", "ch", "application/xhtml+xml", []byte(`<html><body><p>x</p></body></html>`), "text/html"},
		{"rss stays xml", "feed", "", []byte("<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>t</title></channel></rss>"), "application/xml"},
		{"kml without declaration", "place.kml", "", []byte(`<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>Office</name></Placemark></kml>`), "application/xml"},
		{"not xml in a kml file", "notes.kml", "", []byte("just a note about places"), "text/plain"},
		{"xml-looking txt stays text", "notes.txt", "", []byte(`<a:foo xmlns:a="http://a"><a:bar>text</a:bar></a:foo>`), "text/plain"},
		{"xml without xml name stays html", "frag", "", []byte(`<p>one</p>`), "text/html"},
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

// TestDetectCFBRootStreams: a legacy Office file is named by the streams at its root, never by
// those of an object embedded one storage down (a workbook holding a Word document).
func TestDetectCFBRootStreams(t *testing.T) {
	stream := func(name string) *cfbtest.Node { return &cfbtest.Node{Name: name, Data: []byte("payload bytes")} }
	embed := func(name, inner string) *cfbtest.Node {
		return &cfbtest.Node{Name: name, Storage: true, Children: []*cfbtest.Node{stream(inner), stream("\x01CompObj")}}
	}
	cases := []struct {
		name  string
		nodes []*cfbtest.Node
		want  string
	}{
		{"xls with embedded doc", []*cfbtest.Node{stream("Workbook"), embed("MBD0001A2B3", "WordDocument")}, "application/vnd.ms-excel"},
		{"old xls (Book) with embedded ppt", []*cfbtest.Node{stream("Book"), embed("MBD00000001", "PowerPoint Document")}, "application/vnd.ms-excel"},
		{"doc with embedded workbook", []*cfbtest.Node{stream("WordDocument"), stream("1Table"), &cfbtest.Node{Name: "ObjectPool", Storage: true, Children: []*cfbtest.Node{embed("_1234", "Workbook")}}}, "application/msword"},
		{"ppt with embedded doc", []*cfbtest.Node{stream("PowerPoint Document"), stream("Current User"), embed("MBD0000AAAA", "WordDocument")}, "application/vnd.ms-powerpoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := engine.Detect(engine.NewDocument("file.bin", cfbtest.Build(c.nodes)), "")
			if got.MIME != c.want {
				t.Errorf("Detect = %s, want %s", got.MIME, c.want)
			}
		})
	}
}

func utf32Bytes(s string, big bool) []byte {
	var b bytes.Buffer
	for _, r := range "\ufeff" + s {
		v := [4]byte{byte(r), byte(r >> 8), byte(r >> 16), byte(r >> 24)}
		if big {
			v = [4]byte{v[3], v[2], v[1], v[0]}
		}
		b.Write(v[:])
	}
	return b.Bytes()
}

// TestUTF32Text: text with a UTF-32 byte-order mark (either order) is detected as text and
// decoded as UTF-32, not as UTF-16 with a NUL after every character.
func TestUTF32Text(t *testing.T) {
	const text = "Grüße aus Köln.\n\nThe quarterly report is ready for review by the board.\n"
	for _, big := range []bool{false, true} {
		for _, name := range []string{"notes.txt", "notes"} {
			data := utf32Bytes(text, big)
			if ft := engine.Detect(engine.NewDocument(name, data), ""); ft.MIME != "text/plain" {
				t.Errorf("big=%v %s: detected %s", big, name, ft.MIME)
				continue
			}
			out, err := partition(t, name, data, nil)
			if err != nil {
				t.Fatalf("big=%v: %v", big, err)
			}
			var got []string
			for _, e := range out {
				got = append(got, e.Text)
			}
			if want := "[Grüße aus Köln. The quarterly report is ready for review by the board.]"; fmt.Sprint(got) != want {
				t.Errorf("big=%v %s: got %q", big, name, got)
			}
		}
	}
}

// TestTextNamedPDF: a plain-text file named .pdf is settled as a PDF — what the reference's
// clients send for that name — so the CLI and the API both answer the invalid-PDF error
// instead of partitioning "a PDF" as text with success.
func TestTextNamedPDF(t *testing.T) {
	data := readDoc(t, "errors/failing-invalid.pdf")
	if ft := engine.Detect(engine.NewDocument("failing-invalid.pdf", data), ""); ft.MIME != "application/pdf" {
		t.Fatalf("detected %s", ft.MIME)
	}
	if ft := engine.Detect(engine.NewDocument("failing-invalid.txt", data), ""); ft.MIME != "text/plain" {
		t.Fatalf("as .txt detected %s", ft.MIME)
	}
	if ft := engine.Detect(engine.NewDocument("failing-invalid.pdf", data), "text/plain"); ft.MIME != "text/plain" {
		t.Fatalf("with a text hint detected %s", ft.MIME)
	}
}
