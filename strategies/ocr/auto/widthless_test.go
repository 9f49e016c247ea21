package auto

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/internal/pdftest"
)

// widthlessPDF: page 1 in Helvetica, page 2 in a bare CMMI10 (no /Widths, no FontFile: pdfminer
// gives its glyphs no width and lays out no text from them), page 3 squeezed to nothing by 0 Tz.
func widthlessPDF() []byte {
	f := pdftest.FirstExtra(3)
	res := fmt.Sprintf("<< /Font << /F1 %d 0 R /F2 %d 0 R >> >>", f, f+1)
	return pdftest.Doc{
		Pages: []pdftest.Page{
			{Content: pdftest.Text("F1", 11, 72, 700, "One is a sentence on a born-digital page."), Resources: res},
			{Content: pdftest.Text("F2", 11, 72, 700, "Two is set in a font without widths."), Resources: res},
			{Content: "BT /F1 11 Tf 0 Tz 72 700 Td (Three is squeezed to nothing.) Tj ET", Resources: res},
		},
		Extra: []string{pdftest.Helvetica, "<< /Type /Font /Subtype /Type1 /BaseFont /CMMI10 >>"},
	}.Bytes()
}

func pageTexts(els []element.Element) string {
	var got []string
	for _, e := range els {
		got = append(got, fmt.Sprintf("%d:%s", *e.Metadata.PageNumber, e.Text))
	}
	return strings.Join(got, "|")
}

// With the defaults (the layout path), the font without widths is laid out with substitute
// widths and the squeezed page goes to OCR; with table inference off (auto's per-page router
// over fast), both pages that pdfminer reads no text from go to OCR: neither is a silently
// empty page.
func TestTextWithoutWidthsNeverAnEmptyPage(t *testing.T) {
	ocr.calls = nil
	els, err := engine.Partition(context.Background(), engine.NewDocument("widthless.pdf", widthlessPDF()), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := "1:One is a sentence on a born-digital page.|2:Two is set in a font without widths.|3:ocr page 3"
	if got := pageTexts(els); got != want {
		t.Errorf("defaults: got %q\nwant %q", got, want)
	}

	fast, ok := engine.LookupStrategy("fast")
	if !ok {
		t.Fatal("fast not registered")
	}
	// ocr_only is not registered in this package's tests, so fast is not wrapped (Install).
	router := NewRouter(engine.Contract(fast), engine.Contract(fast), engine.Contract(ocr))
	opts := engine.DefaultOptions()
	opts.PDFInferTableStructure = false
	doc := engine.NewDocument("widthless.pdf", widthlessPDF())
	doc.MIMEType = "application/pdf"
	ocr.calls = nil
	els = nil
	if err := router.Partition(context.Background(), doc, opts.Keys(), func(e element.Element) error { els = append(els, e); return nil }); err != nil {
		t.Fatal(err)
	}
	want = "1:One is a sentence on a born-digital page.|2:ocr page 2|3:ocr page 3"
	if got := pageTexts(els); got != want {
		t.Errorf("router over fast: got %q\nwant %q", got, want)
	}
}
