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

// A form XObject whose /BBox is ±32768 ("draw anywhere") gets the box of its text, inside the
// page, rather than a box of the whole plane.
func TestFigureBoxBoundedByPage(t *testing.T) {
	data := onePage("<< /Font << /F1 5 0 R >> /XObject << /X1 6 0 R >> >>", "/X1 Do", helv,
		stream("/Type /XObject /Subtype /Form /BBox [-32768 -32768 32768 32768] /Resources << /Font << /F1 5 0 R >> >>",
			"BT /F1 10 Tf 72 500 Td (Form text) Tj ET"))
	dumpFixture(t, data)
	p := readPage(t, data)
	if len(p.Figures) != 1 {
		t.Fatalf("%d figures", len(p.Figures))
	}
	f := p.Figures[0]
	if f.X0 < 71 || f.X0 > 73 || f.Y0 < 495 || f.Y1 > 512 || f.X1 > 130 {
		t.Errorf("figure box %v,%v-%v,%v, want around the text at 72,500", f.X0, f.Y0, f.X1, f.Y1)
	}
}
