package office_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all" // detection among every registered type
	"github.com/quarrydocs/quarry/formats/office"
)

// The OpenDocument tests build their documents at test time: by hand (a package is a ZIP
// whose first member, stored, is "mimetype"; a flat document is one XML file) and, for a
// spreadsheet as LibreOffice writes it, by converting a CSV with LibreOffice.

const odfNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
	`xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ` +
	`xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
	`xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ` +
	`xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" ` +
	`xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" ` +
	`xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"`

// spreadsheetBody holds two sheets; the numbers are typed cells, as a spreadsheet stores them.
const spreadsheetBody = `<office:body><office:spreadsheet>
<table:table table:name="Stock">
<table:table-row><table:table-cell office:value-type="string"><text:p>Stone</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>Tonnes</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell office:value-type="string"><text:p>Granite</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="42.5"><text:p>42.5</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell office:value-type="string"><text:p>Basalt</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="17"><text:p>17</text:p></table:table-cell></table:table-row>
</table:table>
<table:table table:name="Crews">
<table:table-row><table:table-cell office:value-type="string"><text:p>Night shift</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="9"><text:p>9</text:p></table:table-cell></table:table-row>
</table:table>
</office:spreadsheet></office:body>`

func frame(class, y, text string) string {
	return `<draw:frame presentation:class="` + class + `" svg:x="1cm" svg:y="` + y + `" svg:width="24cm" svg:height="3cm"><draw:text-box><text:p>` +
		text + `</text:p></draw:text-box></draw:frame>`
}

// presentationBody holds two slides, the first with speaker notes.
var presentationBody = `<office:body><office:presentation>
<draw:page draw:name="page1">` + frame("title", "1cm", "Quarry quarterly review") + frame("outline", "5cm", "Granite output rose by a third") +
	`<presentation:notes>` + frame("notes", "5cm", "Mention the new crusher") + `</presentation:notes></draw:page>
<draw:page draw:name="page2">` + frame("title", "1cm", "Safety record") + frame("outline", "5cm", "No incidents since March") + `</draw:page>
</office:presentation></office:body>`

// odfPackage builds an OpenDocument package of type mime around body.
func odfPackage(t *testing.T, mime, body string) []byte {
	t.Helper()
	return odfPackageContent(t, mime, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<office:document-content `+odfNS+` office:version="1.3">`+body+`</office:document-content>`)
}

// odfPackageContent builds an OpenDocument package of type mime whose content.xml is content.
func odfPackageContent(t *testing.T, mime, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, content string, method uint16) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	add("mimetype", mime, zip.Store)
	add("content.xml", content, zip.Deflate)
	add("META-INF/manifest.xml", `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<manifest:manifest `+odfNS+` manifest:version="1.3">`+
		`<manifest:file-entry manifest:full-path="/" manifest:media-type="`+mime+`"/>`+
		`<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`, zip.Deflate)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// flatODF builds a flat XML OpenDocument of type mime (the package's type) around body.
func flatODF(mime, body string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<office:document ` + odfNS +
		` office:version="1.3" office:mimetype="` + mime + `">` + body + `</office:document>`)
}

func detect(data []byte, name string) string {
	return engine.Detect(engine.NewDocument(name, data), "").MIME
}

// TestDetectOpenDocument: each type is recognised by its bytes whatever the name says, and a
// hint naming a package type is not believed for bytes that are no ZIP.
func TestDetectOpenDocument(t *testing.T) {
	cases := []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"ods package", "upload", odfPackage(t, office.MIMEODS, spreadsheetBody), office.MIMEODS},
		{"ods package named .zip", "sheet.zip", odfPackage(t, office.MIMEODS, spreadsheetBody), office.MIMEODS},
		{"odp package", "upload", odfPackage(t, office.MIMEODP, presentationBody), office.MIMEODP},
		{"odp package named .ods", "deck.ods", odfPackage(t, office.MIMEODP, presentationBody), office.MIMEODP},
		{"ots template", "t.ots", odfPackage(t, office.MIMEOTS, spreadsheetBody), office.MIMEOTS},
		{"otp template", "t.otp", odfPackage(t, office.MIMEOTP, presentationBody), office.MIMEOTP},
		{"flat ods", "sheet.fods", flatODF(office.MIMEODS, spreadsheetBody), office.MIMEFODS},
		{"flat odp", "deck.fodp", flatODF(office.MIMEODP, presentationBody), office.MIMEFODP},
		{"ods extension on text", "notes.ods", []byte("just some words\n"), "text/plain"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := detect(c.data, c.file); got != c.want {
				t.Errorf("Detect = %s, want %s", got, c.want)
			}
		})
	}
	hinted := engine.Detect(engine.NewDocument("x.ods", []byte("plain text, no archive\n")), office.MIMEODS).MIME
	if hinted == office.MIMEODS {
		t.Errorf("a hint naming ODS was believed for text bytes")
	}
}

// TestUnknownZipStillRefused: an archive that is no registered type keeps the reference's
// clear refusal, including one whose mimetype member names an unknown type.
func TestUnknownZipStillRefused(t *testing.T) {
	var plain bytes.Buffer
	zw := zip.NewWriter(&plain)
	w, _ := zw.Create("readme.txt")
	_, _ = w.Write([]byte("hello"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"plain.zip":       plain.Bytes(),
		"unknown.ods":     odfPackage(t, "application/x-quarry-unknown", "<office:body/>"),
		"no-mimetype.ods": plain.Bytes(),
	} {
		_, err := partition(t, name, data)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindUnsupported || !strings.Contains(ee.Error(), "File type application/zip is not supported") {
			t.Errorf("%s: want the unsupported application/zip error, got %v", name, err)
		}
	}
}

// encryptedPackage builds a password-protected package as ODF 1.2+ stores one: the manifest
// describes content.xml's AES-256 encryption, and content.xml holds what looks like ciphertext.
func encryptedPackage(t *testing.T, mime string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, content []byte, method uint16) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(content); err != nil {
			t.Fatal(err)
		}
	}
	add("mimetype", []byte(mime), zip.Store)
	add("content.xml", bytes.Repeat([]byte{0x9c, 0x3f, 0xe1, 0x07, 0x5a, 0xb8, 0x21, 0xd4}, 114), zip.Store)
	const zero = "AAAAAAAAAAAAAAAAAAAAAA=="
	add("META-INF/manifest.xml", []byte(`<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest `+odfNS+` manifest:version="1.3">
<manifest:file-entry manifest:full-path="/" manifest:media-type="`+mime+`"/>
<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml" manifest:size="900">
<manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" manifest:checksum="`+zero+zero+`">
<manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" manifest:initialisation-vector="`+zero+`"/>
<manifest:start-key-generation manifest:start-key-generation-name="http://www.w3.org/2000/09/xmldsig#sha256" manifest:key-size="32"/>
<manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:key-size="32" manifest:iteration-count="100000" manifest:salt="`+zero+`"/>
</manifest:encryption-data></manifest:file-entry></manifest:manifest>`), zip.Deflate)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBrokenOpenDocument: a package that says it is a spreadsheet or presentation but whose
// content is not XML, or is encrypted with a password (LibreOffice, headless, cannot ask for
// it), is an error, never an empty success nor a wait for input.
func TestBrokenOpenDocument(t *testing.T) {
	needSoffice(t)
	for name, data := range map[string][]byte{
		"broken.ods": odfPackageContent(t, office.MIMEODS, "\x00\x01 not XML at all <<<"),
		"broken.odp": odfPackageContent(t, office.MIMEODP, "\x00\x01 not XML at all <<<"),
		"locked.ods": encryptedPackage(t, office.MIMEODS),
		"locked.odp": encryptedPackage(t, office.MIMEODP),
	} {
		els, err := partition(t, name, data)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable {
			t.Errorf("%s: want an Unprocessable error, got %d elements and %v", name, len(els), err)
		}
	}
}

// texts returns the elements' texts and checks the filetype every element reports.
func texts(t *testing.T, els []element.Element, filetype string) []string {
	t.Helper()
	if len(els) == 0 {
		t.Fatal("no elements")
	}
	var out []string
	for _, e := range els {
		if e.Metadata.Filetype != filetype {
			t.Errorf("%s %q: filetype %q, want %q", e.Type, e.Text, e.Metadata.Filetype, filetype)
		}
		out = append(out, e.Text)
	}
	return out
}

// wantIn checks that every want occurs in one of the texts.
func wantIn(t *testing.T, got []string, want ...string) {
	t.Helper()
	all := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("missing %q in %q", w, got)
		}
	}
}

// pageOf returns the page number of the first element containing s (0 if none).
func pageOf(els []element.Element, s string) int {
	for _, e := range els {
		if strings.Contains(e.Text, s) && e.Metadata.PageNumber != nil {
			return *e.Metadata.PageNumber
		}
	}
	return 0
}

func TestOpenDocumentSpreadsheets(t *testing.T) {
	needSoffice(t)
	cases := []struct {
		name string
		data []byte
		mime string
	}{
		{"stock.ods", odfPackage(t, office.MIMEODS, spreadsheetBody), office.MIMEODS},
		{"stock.fods", flatODF(office.MIMEODS, spreadsheetBody), office.MIMEFODS},
		{"stock.ots", odfPackage(t, office.MIMEOTS, spreadsheetBody), office.MIMEOTS},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			els, err := partition(t, c.name, c.data)
			if err != nil {
				t.Fatal(err)
			}
			got := texts(t, els, c.mime)
			wantIn(t, got, "Stone", "Granite", "42.5", "Basalt", "17", "Night shift", "9")
			if p1, p2 := pageOf(els, "Granite"), pageOf(els, "Night shift"); p1 != 1 || p2 != 2 {
				t.Errorf("sheets on pages %d and %d, want 1 and 2", p1, p2)
			}
			for _, e := range els {
				if strings.Contains(e.Text, "Night shift") && e.Metadata.PageName != "Crews" {
					t.Errorf("second sheet's page_name %q, want Crews", e.Metadata.PageName)
				}
			}
		})
	}
}

// TestSpreadsheetMadeByLibreOffice: an .ods as LibreOffice writes it (from a CSV), with the
// members a real one carries (styles, settings, thumbnail), reads as its cells.
func TestSpreadsheetMadeByLibreOffice(t *testing.T) {
	needSoffice(t)
	csv := "Quarry,Output,Price\nNorth pit,1200,3.75\nSouth pit,860,4.10\n"
	ods, err := office.Converter{}.Convert(context.Background(), []byte(csv), ".csv", "ods")
	if err != nil {
		t.Fatal(err)
	}
	if got := detect(ods, "made.ods"); got != office.MIMEODS {
		t.Fatalf("LibreOffice's .ods detected as %s", got)
	}
	els, err := partition(t, "made.ods", ods)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, texts(t, els, office.MIMEODS), "North pit", "1200", "3.75", "South pit", "860", "4.1")
}

func TestOpenDocumentPresentations(t *testing.T) {
	needSoffice(t)
	cases := []struct {
		name string
		data []byte
		mime string
	}{
		{"review.odp", odfPackage(t, office.MIMEODP, presentationBody), office.MIMEODP},
		{"review.fodp", flatODF(office.MIMEODP, presentationBody), office.MIMEFODP},
		{"review.otp", odfPackage(t, office.MIMEOTP, presentationBody), office.MIMEOTP},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			els, err := partition(t, c.name, c.data)
			if err != nil {
				t.Fatal(err)
			}
			got := texts(t, els, c.mime)
			wantIn(t, got, "Quarry quarterly review", "Granite output rose by a third", "Safety record", "No incidents since March")
			if p1, p2 := pageOf(els, "Granite output"), pageOf(els, "No incidents"); p1 != 1 || p2 != 2 {
				t.Errorf("slides on pages %d and %d, want 1 and 2", p1, p2)
			}
		})
	}
}

// withNotes returns the package pptx with the empty body of its first notes slide filled.
func withNotes(t *testing.T, pptx []byte, notes string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(pptx), int64(len(pptx)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	filled := false
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == "ppt/notesSlides/notesSlide1.xml" && bytes.Contains(b, []byte("<a:t></a:t>")) {
			b = bytes.Replace(b, []byte("<a:t></a:t>"), []byte("<a:t>"+notes+"</a:t>"), 1)
			filled = true
		}
		w, err := zw.Create(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !filled {
		t.Fatal("the fixture's first notes slide has no empty text run to fill")
	}
	return buf.Bytes()
}

// TestPresentationRoundTrip: a presentation LibreOffice saved as .odp (from the reference's
// fake-power-point.pptx, with a title, bullets, a text box, and speaker notes written into
// it here) reads as the PPTX it came from: the same element types, texts and slides.
func TestPresentationRoundTrip(t *testing.T) {
	needSoffice(t)
	pptx, err := os.ReadFile(filepath.Join(refDir, "docs", "fake-power-point.pptx"))
	if err != nil {
		t.Fatal(err)
	}
	pptx = withNotes(t, pptx, "Mention the new crusher")
	odp, err := office.Converter{}.Convert(context.Background(), pptx, ".pptx", "odp")
	if err != nil {
		t.Fatal(err)
	}
	want, err := partition(t, "deck.pptx", pptx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := partition(t, "deck.odp", odp)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, texts(t, got, office.MIMEODP), "Adding a Bullet Slide", "Mention the new crusher")
	line := func(e element.Element) string {
		p := 0
		if e.Metadata.PageNumber != nil {
			p = *e.Metadata.PageNumber
		}
		return fmt.Sprintf("%s p%d %q", e.Type, p, e.Text)
	}
	var w, g []string
	for _, e := range want {
		w = append(w, line(e))
	}
	for _, e := range got {
		g = append(g, line(e))
	}
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("the .odp reads\n%s\nthe .pptx it came from\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}
