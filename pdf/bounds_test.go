package pdf

import (
	"strings"
	"testing"
)

// Glyphs a broken matrix throws off the page or blows up past its size are dropped; the page's
// real text and pdfminer's tolerance for slightly off-page text stay.
func TestGlyphsBoundedByPage(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"huge CTM", "q 100000 0 0 100000 0 0 cm BT /F1 12 Tf 0.001 0.001 Td (Giant) Tj ET Q"},
		{"far translation", "BT /F1 12 Tf 1 0 0 1 -32768 -32768 Tm (Far away) Tj ET"},
		{"huge font matrix", "BT /F1 12 Tf 5000 0 0 5000 10 10 Tm (Blown up) Tj ET"},
		{"non-finite", "BT /F1 12 Tf " + strings.Repeat("1"+strings.Repeat("0", 300)+" ", 2) + "0 0 " +
			strings.Repeat("9"+strings.Repeat("0", 307)+" ", 2) + "Tm (Overflow) Tj ET"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := onePage("<< /Font << /F1 5 0 R >> >>",
				tc.content+" BT /F1 12 Tf 72 700 Td (Real text) Tj ET BT /F1 12 Tf 1 0 0 1 -20 400 Tm (Bleed) Tj ET", helv)
			dumpFixture(t, data)
			p := readPage(t, data)
			if got := strings.Join(boxTexts(p), "|"); got != "Real text|Bleed" {
				t.Errorf("got %q", got)
			}
			if p.OffPage == 0 && tc.name != "non-finite" { // non-finite glyphs are never made
				t.Error("OffPage not counted")
			}
			for _, b := range p.Boxes {
				if b.X0 < -p.Width || b.X1 > 2*p.Width || b.Y0 < -p.Height || b.Y1 > 2*p.Height {
					t.Errorf("box %v,%v-%v,%v outside the page", b.X0, b.Y0, b.X1, b.Y1)
				}
			}
		})
	}
}
