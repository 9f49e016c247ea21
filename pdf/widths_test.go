package pdf

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// The substitute widths of fonts that declare none, in the documented order, and only with
// LAParams.SubstituteWidths: pdfminer's path (fast) keeps its zero widths.
func TestSubstituteWidths(t *testing.T) {
	zeros := "/FirstChar 32 /LastChar 126 /Widths [" + strings.Repeat("0 ", 95) + "]"
	for _, c := range []struct {
		name, font, desc string
		want             float64 // advance of "T" at 10 pt, in points
	}{
		{"no widths: half an em", "/BaseFont /CMMI10", "/Flags 32", 5},
		{"AvgWidth", "/BaseFont /CMMI10", "/Flags 32 /AvgWidth 420", 4.2},
		{"MissingWidth before AvgWidth", "/BaseFont /CMR10 " + zeros, "/Flags 32 /MissingWidth 300 /AvgWidth 420", 3},
		{"widths too short", "/BaseFont /CMR10 /FirstChar 200 /LastChar 201 /Widths [700 700]", "/Flags 32 /AvgWidth 420", 4.2},
		{"Times family by name", "/BaseFont /TimesNewRomanPSMT", "/Flags 32", 6.11},
		{"Arial bold by name", "/BaseFont /ABCDEF+Arial-BoldMT", "/Flags 32", 6.11},
		{"fixed pitch: Courier", "/BaseFont /LetterGothic", "/Flags 33", 6},
		// An embedded font draws a code past its /Widths with /MissingWidth, 0, and all-zero
		// widths as zeros (spec, viewers: XY-pic's arrow tips); without /Widths, with its
		// program's widths, for which a substitute stands in.
		{"embedded, code past widths", "/BaseFont /ABCDEF+CMR10 /FirstChar 200 /LastChar 201 /Widths [700 700]", "/Flags 32 /AvgWidth 420 /FontFile 9 0 R", 0},
		{"embedded, widths all zero", "/BaseFont /ABCDEF+XYATIP " + zeros, "/Flags 4 /AvgWidth 420 /FontFile3 9 0 R", 0},
		{"embedded, no widths", "/BaseFont /ABCDEF+CMMI10", "/Flags 32 /AvgWidth 420 /FontFile 9 0 R", 4.2},
		// A code the font gives 0 while others have widths is a zero-width glyph, kept.
		{"explicit zero kept", "/BaseFont /CMR10 /FirstChar 84 /LastChar 85 /Widths [0 500]", "/Flags 32 /AvgWidth 420", 0},
	} {
		f := pdftest.FirstExtra(1)
		doc := pdftest.Doc{
			Pages: []pdftest.Page{{Content: pdftest.Text("F1", 10, 72, 700, "T"), Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", f)}},
			Extra: []string{
				fmt.Sprintf("<< /Type /Font /Subtype /Type1 %s /FontDescriptor %d 0 R >>", c.font, f+1),
				"<< /Type /FontDescriptor /FontName /X /FontBBox [0 -250 1000 750] /Ascent 750 /Descent -250 /ItalicAngle 0 /StemV 80 " + c.desc + " >>",
			},
		}
		data := doc.Bytes()
		d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		params := DefaultLAParams()
		p, err := d.Page(context.Background(), 1, params)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Glyphs) != 1 {
			t.Fatalf("%s: %d glyphs", c.name, len(p.Glyphs))
		}
		if pm := p.Glyphs[0].Adv; pm != 0 && c.name != "MissingWidth before AvgWidth" {
			t.Errorf("%s: pdfminer's advance %g, want 0", c.name, pm)
		}
		params.SubstituteWidths = true
		p, err = d.Page(context.Background(), 1, params)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Glyphs[0].Adv; math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: substitute advance %g, want %g", c.name, got, c.want)
		}
	}
}

// A CID font with /DW 0 and no /W gets /AvgWidth, else half an em; one with /W widths keeps
// an explicit zero.
func TestSubstituteCIDWidths(t *testing.T) {
	for _, c := range []struct {
		name, cid, desc string
		want            float64
	}{
		{"DW 0", "/DW 0", "", 5},
		{"DW 0, AvgWidth", "/DW 0", "/AvgWidth 600", 6},
		{"W gives 0 to this CID only", "/DW 0 /W [84 [0] 85 [500]]", "/AvgWidth 600", 0},
		{"no DW: 1000", "", "", 10},
	} {
		f := pdftest.FirstExtra(1)
		doc := pdftest.Doc{
			Pages: []pdftest.Page{{Content: "BT /F1 10 Tf 72 700 Td <0054> Tj ET", Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", f)}},
			Extra: []string{
				fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> %s /FontDescriptor %d 0 R >>] >>", c.cid, f+1),
				"<< /Type /FontDescriptor /FontName /X /Flags 32 /FontBBox [0 -250 1000 750] /Ascent 750 /Descent -250 /ItalicAngle 0 /StemV 80 " + c.desc + " >>",
			},
		}
		data := doc.Bytes()
		d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		params := DefaultLAParams()
		params.SubstituteWidths = true
		p, err := d.Page(context.Background(), 1, params)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Glyphs) != 1 {
			t.Fatalf("%s: %d glyphs", c.name, len(p.Glyphs))
		}
		if got := p.Glyphs[0].Adv; math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: advance %g, want %g", c.name, got, c.want)
		}
	}
}
