package layout

import (
	"bytes"
	"context"
	"fmt"
	"github.com/quarrydocs/quarry/pdf"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// widthlessFonts are font dictionaries that give pdfminer no advance widths for the codes a
// page shows: a non-embedded Type 1 font without /Widths (a bare CMMI10), /Widths too short
// for the codes (FirstChar past them), /Widths all zero, a TrueType font without widths, and a
// CID font whose /DW is 0 without /W.
var widthlessFonts = map[string]string{
	"type1-no-widths":    "<< /Type /Font /Subtype /Type1 /BaseFont /CMMI10 /FontDescriptor %d 0 R >>",
	"type1-short-widths": "<< /Type /Font /Subtype /Type1 /BaseFont /CMR10 /FirstChar 200 /LastChar 202 /Widths [500 500 500] /FontDescriptor %d 0 R >>",
	"type1-zero-widths":  "<< /Type /Font /Subtype /Type1 /BaseFont /CMR10 /FirstChar 32 /LastChar 126 /Widths [" + strings.Repeat("0 ", 95) + "] /FontDescriptor %d 0 R >>",
	"truetype-no-widths": "<< /Type /Font /Subtype /TrueType /BaseFont /Calibri /FontDescriptor %d 0 R >>",
	"cid-dw-zero":        "<< /Type /Font /Subtype /Type0 /BaseFont /Calibri /Encoding /Identity-H /ToUnicode %[2]d 0 R /DescendantFonts [<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Calibri /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 0 /FontDescriptor %[1]d 0 R >>] >>",
}

const widthlessDescriptor = "<< /Type /FontDescriptor /FontName /%s /Flags 32 /FontBBox [0 -250 1000 750] /ItalicAngle 0 /Ascent 750 /Descent -250 /CapHeight 700 /StemV 80 %s >>"

// identityToUnicode maps two-byte codes 0x0020–0x007E to the same characters.
var identityToUnicode = pdftest.Stream("", "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T def 1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0020> <007E> <0020> endbfrange endcmap CMapName currentdict /CMap defineresource pop end end")

// widthlessDoc is a page of two paragraphs in the font named by kind; descriptor adds entries
// to its font descriptor (such as "/AvgWidth 450").
func widthlessDoc(kind, descriptor string) []byte {
	f := pdftest.FirstExtra(1)
	lines := []string{"The quick brown fox jumps over the lazy dog.", "Pack my box with five dozen liquor jugs."}
	var content strings.Builder
	for i, l := range lines {
		if kind == "cid-dw-zero" {
			var hex strings.Builder
			for _, r := range l {
				fmt.Fprintf(&hex, "%04X", r)
			}
			fmt.Fprintf(&content, "BT /F1 11 Tf 72 %d Td <%s> Tj ET\n", 700-14*i, hex.String())
			continue
		}
		content.WriteString(pdftest.Text("F1", 11, 72, float64(700-14*i), l))
	}
	d := pdftest.Doc{
		Pages: []pdftest.Page{{Content: content.String(), Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", f)}},
		Extra: []string{
			fmt.Sprintf(widthlessFonts[kind], f+1, f+2),
			fmt.Sprintf(widthlessDescriptor, "X", descriptor),
			identityToUnicode,
		},
	}
	return d.Bytes()
}

// Text in a font that declares no widths is laid out (with substitute widths) into its words,
// where pdfminer, hence fast, finds no text at all: every line of zero-width glyphs is empty.
func TestWidthlessFontsLaidOut(t *testing.T) {
	for kind := range widthlessFonts {
		data := widthlessDoc(kind, "")
		d, err := pdf.Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		fp, err := d.Page(context.Background(), 1, pdf.DefaultLAParams())
		if err != nil {
			t.Fatal(err)
		}
		if len(fp.Glyphs) != 84 || len(fp.Boxes) != 0 {
			t.Errorf("%s: pdfminer's path has %d glyphs in %d boxes, want 84 in none (pdfminer.six: no text box)", kind, len(fp.Glyphs), len(fp.Boxes))
		}
		// Without substitute widths the page is not laid out into an empty page: it goes to OCR.
		if ok, why := Usable(fp); ok || !strings.Contains(why, "empty glyph boxes") {
			t.Errorf("%s: zero-width page usable = %v (%s), want not usable", kind, ok, why)
		}
		got := strings.Join(texts(layoutBytes(t, data)), "\n")
		for _, want := range []string{"The quick brown fox jumps over the lazy dog.", "Pack my box with five dozen liquor jugs."} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: %q missing from the layout: %q", kind, want, got)
			}
		}
	}
}

// A page drawing glyphs squeezed to nothing (Tz 0) is sent to OCR, not laid out as empty.
func TestSqueezedTextNotUsable(t *testing.T) {
	d := docOf("BT /F1 11 Tf 0 Tz 72 700 Td (Squeezed to nothing at all) Tj ET")
	data := d.Bytes()
	doc, err := pdf.Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := doc.Page(context.Background(), 1, Params(pdf.DefaultLAParams()))
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := Usable(p); ok || !strings.Contains(why, "empty glyph boxes") {
		t.Errorf("usable = %v (%s), want not usable", ok, why)
	}
}

// A page whose lines lost the text its glyphs hold is not usable.
func TestPageTextLost(t *testing.T) {
	p := &pdf.Page{Width: 612, Height: 792, Glyphs: []pdf.Glyph{{Text: "A", X0: 72, Y0: 700, X1: 80, Y1: 711}}}
	if ok, why := Usable(p); ok || !strings.Contains(why, "no text laid out") {
		t.Errorf("usable = %v (%s), want not usable", ok, why)
	}
	p.Boxes = []*pdf.TextBox{{Lines: []*pdf.Line{{Items: []pdf.LineItem{{Text: "A"}}}}}}
	if ok, why := Usable(p); !ok {
		t.Errorf("usable = false (%s), want usable", why)
	}
}
