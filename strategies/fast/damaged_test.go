package fast

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/internal/pdftest"
)

// twoPages builds a PDF whose pages have the given content-stream objects (dictionary and data).
func twoPages(contents ...[2]string) []byte {
	var objs []string
	obj := func(s string) { objs = append(objs, s) }
	kids := ""
	for i := range contents {
		kids += fmt.Sprintf("%d 0 R ", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, len(contents)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, c := range contents {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", c[0], len(c[1]), c[1]))
	}
	return pdftest.File(objs...)
}

func run(t *testing.T, data []byte) ([]element.Element, string, error) {
	t.Helper()
	var logs bytes.Buffer
	doc := engine.NewDocument("damaged.pdf", data)
	doc.MIMEType = "application/pdf"
	opts := engine.DefaultOptions()
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	var out []element.Element
	err := Partition(ctx0(opts), doc, opts.Keys(), func(e element.Element) error {
		out = append(out, e)
		return nil
	})
	return out, logs.String(), err
}

// A partly damaged PDF keeps what reads and says once what was lost; a PDF of which nothing
// reads is an error, never an empty success.
func TestDamagedDocument(t *testing.T) {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte("BT /F1 12 Tf 72 700 Td (Kept despite a bad checksum) Tj ET"))
	w.Close()
	badSum := z.Bytes()
	badSum[len(badSum)-1] ^= 0xFF
	broken := [2]string{"/Filter /FlateDecode", "\xff\xfe not deflate"}

	els, logs, err := run(t, twoPages([2]string{"/Filter /FlateDecode", string(badSum)}, broken,
		[2]string{"", "BT /F1 12 Tf 72 700 Td (Third page reads) Tj ET"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := cct(els); got != "Kept despite a bad checksum\nThird page reads" {
		t.Errorf("text %q", got)
	}
	if n := strings.Count(logs, "level=WARN"); n != 1 || !strings.Contains(logs, "skipped=2") || !strings.Contains(logs, "read_in_part=1") {
		t.Errorf("%d warnings, want one naming page 2 skipped and page 1 read in part:\n%s", n, logs)
	}

	_, _, err = run(t, twoPages(broken, broken))
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable || !strings.Contains(ee.Msg, "no page could be read") {
		t.Errorf("unreadable document: %v, want a 422", err)
	}
}

// A form XObject with a /BBox of ±32768 holding ordinary text mid-page gives a NarrativeText
// or Title inside the page, not a Footer with a box of the whole plane.
func TestHugeFormBBoxIsNotAFooter(t *testing.T) {
	els, err := partitionFile(t, "../../pdf/testdata/robust/TestFigureBoxBoundedByPage.pdf", func(o *engine.Options) {
		o.Coordinates = true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(els) != 1 || els[0].Text != "Form text" {
		t.Fatalf("elements %+v", els)
	}
	if typ := els[0].Type; typ == element.Footer || typ == element.Header {
		t.Errorf("typed %s", typ)
	}
	for _, pt := range els[0].Metadata.Coordinates.Points {
		if pt[0] < 0 || pt[0] > 600 || pt[1] < 0 || pt[1] > 800 {
			t.Errorf("point %v outside the 600×800 page", pt)
		}
	}
}

// A page whose text is in a font without widths gives nothing, as pdfminer and the reference
// do, but is named in a warning, never a silent empty page.
func TestWidthlessTextWarned(t *testing.T) {
	f := pdftest.FirstExtra(2)
	res := fmt.Sprintf("<< /Font << /F1 %d 0 R /F2 %d 0 R >> >>", f, f+1)
	doc := pdftest.Doc{
		Pages: []pdftest.Page{
			{Content: pdftest.Text("F1", 11, 72, 700, "Readable in Helvetica"), Resources: res},
			{Content: pdftest.Text("F2", 11, 72, 700, "Drawn in a bare CMMI10"), Resources: res},
		},
		Extra: []string{pdftest.Helvetica, "<< /Type /Font /Subtype /Type1 /BaseFont /CMMI10 >>"},
	}
	els, logs, err := run(t, doc.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := cct(els); got != "Readable in Helvetica" {
		t.Errorf("text %q, want page 1's only (pdfminer finds no text box on page 2)", got)
	}
	if n := strings.Count(logs, "level=WARN"); n != 1 || !strings.Contains(logs, "pages=2") {
		t.Errorf("%d warnings, want one naming page 2:\n%s", n, logs)
	}
}
