package layout

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/internal/pdftest"
)

// slantedText shows s at (x, y) turned deg degrees counter-clockwise, the font at size 1 and
// the text matrix scaled to size (as some producers write it) when scaled is set.
func slantedText(font string, size, deg, x, y float64, s string, scaled bool) string {
	c, sn := math.Cos(deg*math.Pi/180), math.Sin(deg*math.Pi/180)
	fs, k := size, 1.0
	if scaled {
		fs, k = 1, size
	}
	return fmt.Sprintf("BT /%s %g Tf %.4f %.4f %.4f %.4f %g %g Tm (%s) Tj ET\n", font, fs, k*c, k*sn, -k*sn, k*c, x, y, s)
}

// A watermark set at a slant over a page of paragraphs is one element whatever its angle,
// typed as the same watermark set upright is; the paragraphs under it keep all their words,
// in order. (Where it is read among them is the reading order's: order_test.go.) Before,
// pdfminer's lines (a turned glyph is upright to it below 90°) gave its letters one by one,
// some inside the paragraphs.
func TestSlantedWatermark(t *testing.T) {
	full := "a line of body text that runs all the way across its column to"
	body := paragraph(72, 700, full, full, full, "the end of it.") + paragraph(72, 640, full, full, full, "the end again.") + paragraph(72, 580, full, full, "the end.")
	paras := []string{
		"NarrativeText: " + strings.Repeat(full+" ", 3) + "the end of it.",
		"NarrativeText: " + strings.Repeat(full+" ", 3) + "the end again.",
		"NarrativeText: " + strings.Repeat(full+" ", 2) + "the end.",
	}
	for _, w := range []string{"DRAFT", "CONFIDENTIAL", "DO NOT COPY"} {
		// split parts the page's elements into the paragraphs and the rest.
		split := func(els []string) (ps, rest []string) {
			for _, e := range els {
				if strings.Contains(e, "body text") {
					ps = append(ps, e)
				} else {
					rest = append(rest, e)
				}
			}
			return ps, rest
		}
		_, upright := split(texts(layoutBytes(t, docOf(body+"0.8 g "+slantedText("F2", 72, 0, 90, 420, w, false)+"0 g ").Bytes())))
		if len(upright) != 1 || !strings.HasSuffix(upright[0], ": "+w) {
			t.Fatalf("upright %s: got %q", w, upright)
		}
		for _, deg := range []float64{15, 30, 45, 60, -30} {
			for _, scaled := range []bool{false, true} {
				c := body + "0.8 g " + slantedText("F2", 72, deg, 100, 420, w, scaled) + "0 g "
				ps, rest := split(texts(layoutBytes(t, docOf(c).Bytes())))
				if strings.Join(ps, "\n") != strings.Join(paras, "\n") || len(rest) != 1 || rest[0] != upright[0] {
					t.Errorf("%s at %v° (scaled matrix %v): got\n%s\n%s\nwant the paragraphs and %q", w, deg, scaled, strings.Join(ps, "\n"), strings.Join(rest, "\n"), upright[0])
				}
			}
		}
	}
}

// Not slanted text: upright glyphs placed along a slant — single closing braces on the lines
// of a listing, each indented less than the one above, and a matrix's diagonal dots drawn
// one by one as TeX's \ddots does — stay where they were: the glyphs' own angle, not their
// placement, makes slanted text.
func TestSlantedNotText(t *testing.T) {
	var c strings.Builder
	c.WriteString(pdftest.Text("F1", 10, 72, 700, "if (a) { if (b) { if (c) { run(); the listing goes on"))
	for i := 0; i < 4; i++ {
		c.WriteString(pdftest.Text("F1", 10, 72+float64(8*(3-i)), 688-float64(12*i), "}"))
	}
	els := layoutBytes(t, docOf(c.String()).Bytes())
	if got := strings.Join(texts(els), "\n"); strings.Contains(got, "}}") || strings.Count(got, "}") != 4 {
		t.Errorf("braces read as slanted text:\n%s", got)
	}
	dots := "BT /F1 10 Tf 200 520 Td (a) Tj 6 -4 Td (.) Tj 3 -3 Td (.) Tj 3 -3 Td (.) Tj 6 -4 Td (b) Tj ET\n"
	for _, e := range layoutBytes(t, docOf(paragraph(72, 540, "a matrix with its diagonal dots drawn under this line of text")+dots).Bytes()) {
		if e.Text == "..." || e.Type == element.Title {
			t.Errorf("dots read as slanted text: %s %q", e.Type, e.Text)
		}
	}
}
