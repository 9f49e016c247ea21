package tables_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// stackedBoxes draws a table as LaTeX users box it: the head in a frame of its own, then one
// frame per group of rows, each gap frames apart; rules between the columns inside each frame.
// It returns the content and the number of rows drawn.
func stackedBoxes(gap float64) (string, int) {
	var b strings.Builder
	xs := []float64{100, 150, 200, 300}
	show := func(x, y float64, s string) { b.WriteString(pdftest.Text("F1", 9, x+4, y, s)) }
	box := func(top float64, lines [][3]string) float64 {
		bottom := top - 12*float64(len(lines)) - 2
		fmt.Fprintf(&b, "0.5 w %g %g m %g %g l S %g %g m %g %g l S\n", xs[0], top, xs[3], top, xs[0], bottom, xs[3], bottom)
		for _, x := range xs {
			fmt.Fprintf(&b, "%g %g m %g %g l S\n", x, top, x, bottom)
		}
		for i, l := range lines {
			for k, s := range l {
				show(xs[k], top-10-12*float64(i), s)
			}
		}
		return bottom - gap
	}
	y := box(700, [][3]string{{"family", "series", "font names"}})
	y = box(y, [][3]string{{"pag", "m", "AvantGarde-Book"}, {"pag", "b", "AvantGarde-Demi"}})
	box(y, [][3]string{{"pbk", "l", "Bookman-Light"}, {"pbk", "db", "Bookman-Demi"}})
	return b.String(), 5
}

// TestStackedFramesAreOneTable: frames of the same width two points apart are one table, its
// head included; set a line apart they are separate tables (and the head alone none).
func TestStackedFramesAreOneTable(t *testing.T) {
	content, rows := stackedBoxes(2)
	ts, _ := pdfTables(t, onePagePDF("", content))
	if len(ts) != 1 || ts[0].Rows != rows || ts[0].Cols != 3 {
		for _, tb := range ts {
			t.Logf("%dx%d %s", tb.Rows, tb.Cols, tb.HTML())
		}
		t.Fatalf("%d tables, want one %dx3", len(ts), rows)
	}
	if g := ts[0].Grid(); g[0][0] != "family" || g[4][2] != "Bookman-Demi" {
		t.Errorf("grid %q", g)
	}
	content, _ = stackedBoxes(14)
	ts, _ = pdfTables(t, onePagePDF("", content))
	if len(ts) != 2 {
		t.Errorf("frames a line apart: %d tables, want 2", len(ts))
	}
}
