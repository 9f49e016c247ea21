package tables

import (
	"strings"
	"testing"
)

// A LaTeX booktabs table with column rules (| in the column spec): \toprule, \midrule and
// \bottomrule are padded with a few points the column rules do not cross, so every piece of
// a column rule stops 2 to 3.5 points short of the horizontal rules above and below it. The
// table of passages is one ruled grid of three columns holding every word, not pieces found
// by text alignment.
func TestColumnRulesStoppingShortOfBooktabsRules(t *testing.T) {
	xs := []float64{72, 170, 352}
	var ws []Word
	ws = append(ws, row(768, []float64{74, 172, 354}, "Question", "Passage one", "Passage two")...)
	passage := func(x, y float64, s string) {
		for i, l := range strings.Split(s, "\n") {
			ws = append(ws, phrase(l, x, y-float64(i)*11)...)
		}
	}
	passage(74, 750, "What is the body\nof water there?")
	passage(172, 750, "Title: Cycling\nthe region is not\nrecognised by it and\nthere is no team.")
	passage(354, 750, "Title: Irish Sea\nannual traffic is\nover twelve million\npassengers a year.")
	passage(74, 696, "Who plays the\nrole of Thoros?")
	passage(172, 696, "Title: No One\nhe may be no one\nbut there is still\nenough of a person.")
	passage(354, 696, "Title: Hagen\nis a stage and\nscreen actor who\nwas born in 1980.")
	segs := []Segment{hseg(778.6, 72, 534), hseg(765.0, 72, 534), hseg(706.8, 72, 534), hseg(652.5, 72, 534)}
	for _, x := range xs[1:] {
		segs = append(segs, vseg(x, 767.2, 775.2), vseg(x, 709.1, 761.7), vseg(x, 654.8, 703.5))
	}
	ts := find(t, &Page{Words: ws, Segments: segs})
	if len(ts) != 1 {
		t.Fatalf("%d tables, want 1", len(ts))
	}
	tb := ts[0]
	if tb.Kind != Ruled || tb.Cols != 3 || len(tb.Words) != len(ws) {
		t.Fatalf("kind %v, %d x %d, %d of %d words", tb.Kind, tb.Rows, tb.Cols, len(tb.Words), len(ws))
	}
	if g := tb.Grid(); g[0][0] != "Question" || g[0][2] != "Passage two" {
		t.Errorf("first row %q", g[0])
	}
}

// Only a vertical rule with a horizontal rule over its position close to both ends is extended.
func TestBridgeShortVerticals(t *testing.T) {
	hs := []hrule{{600, 50, 500}, {700, 50, 500}, {720, 300, 500}}
	cases := []struct {
		name   string
		v      vrule
		y0, y1 float64
	}{
		{"short of both", vrule{100, 603, 697}, 600, 700},
		{"touching both", vrule{100, 600, 700}, 600, 700},
		{"short of one, touching the other", vrule{100, 602, 700}, 600, 700},
		{"far from the lower rule", vrule{100, 620, 697}, 620, 697},
		{"beside the rules' ends", vrule{40, 603, 697}, 603, 697},
		{"no rule above", vrule{350, 703, 740}, 703, 740},
		{"between two close rules", vrule{350, 701, 719}, 700, 720},
	}
	for _, c := range cases {
		vs := []vrule{c.v}
		bridgeShortVerticals(hs, vs, 5)
		if vs[0].y0 != c.y0 || vs[0].y1 != c.y1 {
			t.Errorf("%s: %v, want %v..%v", c.name, vs[0], c.y0, c.y1)
		}
	}
}
