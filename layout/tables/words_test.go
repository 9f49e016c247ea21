package tables_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/layout/tables"
)

// helvetica holds the standard Helvetica advance widths (thousandths of an em) of the letters
// the fixtures below draw, to place each word after the previous one.
var helvetica = map[rune]float64{
	'A': 667, 'D': 722, 'E': 667, 'R': 722, 'S': 667, 'T': 611, 'U': 722, 'V': 667, 'W': 944,
	'a': 556, 'b': 556, 'd': 556, 'e': 556, 'i': 222, 'l': 222, 'm': 833, 'n': 556, 'o': 556,
	'r': 333, 's': 500, 't': 278, 'u': 556, ' ': 278,
}

func helveticaWidth(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		w += helvetica[r]
	}
	return w * size / 1000
}

// glyphRun lays out the words of s as glyphs at size from x: letters track apart by spacing
// ems, words by gap ems (no space glyph between them, as producers that draw each word with
// its own Td leave).
func glyphRun(s string, x, size, spacing, gap float64) []tables.Glyph {
	var gs []tables.Glyph
	for i, w := range strings.Fields(s) {
		if i > 0 {
			x += gap * size
		}
		for _, r := range w {
			adv := helvetica[r] * size / 1000
			gs = append(gs, tables.Glyph{Text: string(r), Box: tables.Rect{X0: x, Y0: 100, X1: x + adv, Y1: 100 + size}, Size: size, Upright: true})
			x += adv + spacing*size
		}
	}
	return gs
}

func wordTexts(ws []tables.Word) string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Text)
	}
	return strings.Join(out, "|")
}

// TestWordsSplitAtTightGaps: words drawn without a space glyph, a little under a space width
// apart, are words of their own (pdfminer and pdftotext break at a tenth of an em), while
// kerned and letter-spaced words stay whole.
func TestWordsSplitAtTightGaps(t *testing.T) {
	for _, tc := range []struct {
		name string
		gs   []tables.Glyph
		want string
	}{
		{"a quarter em apart", glyphRun("Start Date", 50, 9, 0, 0.25), "Start|Date"},
		{"a fifth em apart", glyphRun("To be determined", 50, 9, 0, 0.2), "To|be|determined"},
		{"an eighth em apart", glyphRun("Vulnerable Road Users", 50, 10, 0, 0.125), "Vulnerable|Road|Users"},
		{"one-letter words", glyphRun("a I a", 50, 10, 0, 0.22), "a|I|a"},
		{"touching", glyphRun("Start Date", 50, 9, 0, 0), "StartDate"},
		// Tracked by 0.15 em (over the word margin): the letters stay one word.
		{"letter-spaced", glyphRun("SPACED", 50, 10, 0.15, 0), "SPACED"},
		{"letter-spaced words", glyphRun("WIDE TEAM", 50, 10, 0.12, 0.12), "WIDE|TEAM"},
		{"two letters spaced", glyphRun("TO", 50, 10, 0.08, 0), "TO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := wordTexts(tables.Words(tc.gs)); got != tc.want {
				t.Errorf("words %q, want %q", got, tc.want)
			}
		})
	}
	// Kerning: each glyph nudged by up to ±0.05 em, as TJ adjustments move it.
	gs := glyphRun("WAVERED", 50, 10, 0, 0)
	for i := range gs {
		d := []float64{0.5, -0.5, 0.3, -0.2}[i%4]
		gs[i].Box.X0 += d
		gs[i].Box.X1 += d
	}
	if got := wordTexts(tables.Words(gs)); got != "WAVERED" {
		t.Errorf("kerned word split: %q", got)
	}
}

// TestTableCellWordsByTd reads a ruled table whose cells draw each word with its own Td,
// 0.22 em after the previous word and with no space glyph (as the DOT strategic plan's
// tables do), and a kerned (TJ) and a letter-spaced (Tc) cell: the cells keep their spaces
// and the kerned and tracked words stay whole.
func TestTableCellWordsByTd(t *testing.T) {
	cells := [][]string{{"Start Date", "End Date"}, {"To be determined", "Road Users"}, {"WAVE", "SPACED"}}
	var b strings.Builder
	b.WriteString("0.5 w\n")
	xs := []float64{100, 260, 420}
	ys := []float64{700, 680, 660, 640}
	for _, y := range ys {
		fmt.Fprintf(&b, "%g %g m %g %g l S\n", xs[0], y, xs[2], y)
	}
	for _, x := range xs {
		fmt.Fprintf(&b, "%g %g m %g %g l S\n", x, ys[0], x, ys[3])
	}
	const size = 9.0
	for r, row := range cells[:2] {
		for c, s := range row {
			x, y := xs[c]+4, ys[r+1]+6
			for _, w := range strings.Fields(s) {
				fmt.Fprintf(&b, "BT /F1 %g Tf %.3f %.3f Td (%s) Tj ET\n", size, x, y, w)
				x += helveticaWidth(w, size) + 0.22*size
			}
		}
	}
	// Kerned: A and V drawn 80 thousandths closer, V and E 40.
	fmt.Fprintf(&b, "BT /F1 %g Tf %g %g Td [(WA) 80 (V) 40 (E)] TJ ET\n", size, xs[0]+4, ys[3]+6)
	// Tracked by 0.15 em of character spacing.
	fmt.Fprintf(&b, "BT /F1 %g Tf %g Tc %g %g Td (SPACED) Tj ET\n", size, 0.15*size, xs[1]+4, ys[3]+6)
	ts, _ := pdfTables(t, onePagePDF("", b.String()))
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	want := "Start Date | End Date\nTo be determined | Road Users\nWAVE | SPACED"
	if got := grid(ts[0]); got != want {
		t.Errorf("grid\n%s\nwant\n%s", got, want)
	}
}

// TestDoubledLettersOfCondensedText: a cell drawn at 50 % horizontal scaling, whose "ii" and
// "11" glyphs are under a fifth of an em apart, keeps its doubled letters (they are one
// advance apart, not a fake-bold copy), while a word drawn twice 0.3 pt apart is read once.
func TestDoubledLettersOfCondensedText(t *testing.T) {
	var b strings.Builder
	b.WriteString("0.5 w\n")
	xs := []float64{100, 200, 300}
	ys := []float64{700, 680, 660, 640}
	for _, y := range ys {
		fmt.Fprintf(&b, "%g %g m %g %g l S\n", xs[0], y, xs[2], y)
	}
	for _, x := range xs {
		fmt.Fprintf(&b, "%g %g m %g %g l S\n", x, ys[0], x, ys[3])
	}
	cells := [][]string{{"Place", "Code"}, {"Hawaii", "1100"}, {"Bold", "22"}}
	for r, row := range cells {
		for c, s := range row {
			fmt.Fprintf(&b, "BT /F1 10 Tf 50 Tz %g %g Td (%s) Tj ET\n", xs[c]+4, ys[r+1]+6, s)
		}
	}
	fmt.Fprintf(&b, "BT /F1 10 Tf 50 Tz %g %g Td (Bold) Tj ET\n", xs[0]+4.3, ys[3]+6)
	ts, _ := pdfTables(t, onePagePDF("", b.String()))
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	want := "Place | Code\nHawaii | 1100\nBold | 22"
	if got := grid(ts[0]); got != want {
		t.Errorf("grid\n%s\nwant\n%s", got, want)
	}
}

// TestLastGlyphAboveNextLine: the last glyph of a short line has the next line's first glyph
// right under it (a label column, a line of code): it is read along its line, not as turned
// text, so the word keeps it ("AWS", not "AW").
func TestLastGlyphAboveNextLine(t *testing.T) {
	up := glyphRun("AWS", 72, 10, 0, 0)
	x := up[len(up)-1].Box.X0
	down := glyphRun("Total", x, 10, 0, 0)
	for i := range down {
		down[i].Box.Y0, down[i].Box.Y1 = 88, 98
	}
	ws := tables.Words(append(up, down...))
	if got := wordTexts(ws); got != "AWS|Total" {
		t.Errorf("words %q, want AWS|Total", got)
	}
	for _, w := range ws {
		if w.Dir != 0 {
			t.Errorf("%q read at %d°", w.Text, w.Dir)
		}
	}
}
