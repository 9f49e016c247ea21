package tables

import (
	"strings"
	"testing"
)

// Heads of two levels in borderless and booktabs tables: a top line of group labels, each over
// several columns of the line of column labels under it. A group label is one cell spanning
// those columns (colspan), whether a partial rule (booktabs' \cmidrule) marks its columns or it
// is only centred over them; a line of labels set closer than a gutter, one word over each
// column, stays one cell per column.

// groupCols are the column positions of the group-head fixtures: a stub and six columns of
// figures in two groups of three.
var groupCols = []float64{72, 150, 200, 250, 320, 370, 420}

// groupBody returns three rows of figures under a head whose last line is at y.
func groupBody(y float64) []Word {
	var ws []Word
	for i, label := range []string{"BM25", "DPR", "Hybrid"} {
		ws = append(ws, row(y-12*float64(i+1), groupCols, label, "59.1", "66.9", "55.0", "73.7", "76.7", "71.1")...)
	}
	return ws
}

// centredAt places s so that its centre is at x.
func centredAt(s string, x, y float64) []Word {
	p := phrase(s, 0, y)
	w := p[len(p)-1].Box.X1
	return phrase(s, x-w/2, y)
}

func headOf(t *testing.T, p *Page) string {
	t.Helper()
	ts := find(t, p)
	if len(ts) != 1 {
		t.Fatalf("%d tables, want 1", len(ts))
	}
	h := ts[0].HTML()
	if ts[0].HeaderRows != 2 {
		t.Errorf("%d header rows, want 2: %s", ts[0].HeaderRows, h)
	}
	return h
}

func TestCentredGroupHeads(t *testing.T) {
	// A word centred over the middle one of three labels, overlapping it alone, is the first
	// line of that label, not a group label.
	ws := phrase("Model", 72, 700)
	ws = append(ws, centredAt("Net", 215, 700)...)
	ws = append(ws, row(688, groupCols, "", "NQ-dev", "TQA-dev", "WQ-dev", "NQ-dev", "TQA-dev", "WQ-dev")...)
	ws = append(ws, groupBody(688)...)
	ts := find(t, &Page{Words: ws})
	if len(ts) != 1 {
		t.Fatalf("%d tables, want 1", len(ts))
	}
	if h := ts[0].HTML(); strings.Contains(h, "colspan") {
		t.Errorf("a word over one label spanned columns:\n%s", h)
	}

	// "Exact-Match score" centred over the first group's labels (150..280), "Top-100
	// accuracy" over the second's (320..450); no rule under them.
	ws = phrase("Model", 72, 700)
	ws = append(ws, centredAt("Exact-Match score", 215, 700)...)
	ws = append(ws, centredAt("Top-100 accuracy", 385, 700)...)
	ws = append(ws, row(688, groupCols, "", "NQ-dev", "TQA-dev", "WQ-dev", "NQ-dev", "TQA-dev", "WQ-dev")...)
	ws = append(ws, groupBody(688)...)
	h := headOf(t, &Page{Words: ws})
	want := `<thead><tr><th rowspan="2">Model</th><th colspan="3">Exact-Match score</th><th colspan="3">Top-100 accuracy</th></tr><tr><th>NQ-dev</th><th>TQA-dev</th><th>WQ-dev</th><th>NQ-dev</th><th>TQA-dev</th><th>WQ-dev</th></tr></thead>`
	if !strings.Contains(h, want) {
		t.Errorf("head:\n%s\nwant\n%s", h, want)
	}
}

func TestRuledGroupHeads(t *testing.T) {
	// Group labels set flush left over their columns (not centred), each with a partial rule
	// under it over exactly its columns, between a top rule and a rule under the head.
	page := func(cmidrules bool, under ...Segment) *Page {
		var ws []Word
		segs := []Segment{hseg(714, 68, 440)}
		ws = append(ws, phrase("Model", 72, 700)...)
		ws = append(ws, phrase("Accuracy (%)", 150, 700)...)
		ws = append(ws, phrase("Speed", 320, 700)...)
		if cmidrules {
			segs = append(segs, hseg(699, 148, 265), hseg(699, 318, 435))
		}
		segs = append(segs, under...)
		ws = append(ws, row(688, groupCols, "", "NQ", "TQA", "WQ", "NQ", "TQA", "WQ")...)
		segs = append(segs, hseg(686, 68, 440))
		ws = append(ws, groupBody(688)...)
		segs = append(segs, hseg(650, 68, 440))
		return &Page{Words: ws, Segments: segs}
	}
	h := headOf(t, page(true))
	want := `<th rowspan="2">Model</th><th colspan="3">Accuracy (%)</th><th colspan="3">Speed</th></tr><tr><th>NQ</th>`
	if !strings.Contains(h, want) {
		t.Errorf("head:\n%s\nwant\n%s", h, want)
	}
	// One rule under both group labels is neither's own: no label spans the other's columns.
	if h := headOf(t, page(false, hseg(699, 148, 435))); strings.Contains(h, `colspan="6"`) || strings.Contains(h, `colspan="3">Accuracy`) {
		t.Errorf("a rule under both labels spanned them:\n%s", h)
	}
	// Without the partial rules, labels set flush left are not taken for group labels.
	if h := headOf(t, page(false)); strings.Contains(h, `colspan="3">Accuracy`) || strings.Contains(h, `colspan="3">Speed`) {
		t.Errorf("flush-left labels without rules spanned:\n%s", h)
	}
}

func TestCloseLabelsStaySeparate(t *testing.T) {
	// Column labels wider than their figures, set closer than a gutter so that they read as
	// one phrase, one word centred over each column, units under them: four cells, no span.
	xs := []float64{72, 152.5, 180, 210, 245}
	ws := phrase("Method", 72, 700)
	ws = append(ws, phrase("Top-1 Top-5 Top-20 Top-100", 150, 700)...)
	ws = append(ws, row(688, []float64{72, 155, 182.5, 212.5, 247.5}, "", "(%)", "(%)", "(%)", "(%)")...)
	for i, label := range []string{"Gold", "Dist.", "BM25"} {
		ws = append(ws, row(676-12*float64(i), xs, label, "44.9", "66.8", "78.1", "85.0")...)
	}
	ts := find(t, &Page{Words: ws})
	if len(ts) != 1 {
		t.Fatalf("%d tables, want 1", len(ts))
	}
	h := ts[0].HTML()
	if strings.Contains(h, "colspan") {
		t.Errorf("labels spanned columns:\n%s", h)
	}
	g := gridOf(ts[0])
	for c, want := range []string{"Top-1", "Top-5", "Top-20", "Top-100"} {
		if got := g[0][c+1]; !strings.HasPrefix(got, want) {
			t.Errorf("head cell %d = %q, want %s", c+1, got, want)
		}
	}
}

func TestGroupHeadsBetweenColumnRules(t *testing.T) {
	// Short group labels, each centred over three columns but reaching over the middle label
	// only: column rules through the head beside them mark them as the groups' labels. Without
	// the rules they are too, as together they cover every column but the stub once (one
	// such word over one group of two is the first line of the label under it:
	// TestCentredGroupHeads).
	page := func(rules bool) *Page {
		ws := phrase("Model", 72, 700)
		ws = append(ws, centredAt("Dev", 205, 700)...)
		ws = append(ws, centredAt("Test", 375, 700)...)
		ws = append(ws, row(688, groupCols, "", "NQ", "TQA", "WQ", "NQ", "TQA", "WQ")...)
		ws = append(ws, groupBody(688)...)
		var segs []Segment
		if rules {
			segs = append(segs, vseg(140, 689, 711), vseg(300, 689, 711))
		}
		return &Page{Words: ws, Segments: segs}
	}
	ts := find(t, page(true))
	if len(ts) != 1 {
		t.Fatalf("%d tables, want 1", len(ts))
	}
	want := `<thead><tr><th rowspan="2">Model</th><th colspan="3">Dev</th><th colspan="3">Test</th></tr><tr><th>NQ</th>`
	if h := ts[0].HTML(); !strings.Contains(h, want) {
		t.Errorf("head:\n%s\nwant\n%s", h, want)
	}
	ts = find(t, page(false))
	if len(ts) != 1 {
		t.Fatalf("without rules: %d tables, want 1", len(ts))
	}
	if h := ts[0].HTML(); !strings.Contains(h, want) {
		t.Errorf("without rules, head:\n%s\nwant\n%s", h, want)
	}
	// Only "Dev": the columns of the second group have nothing above them.
	ws := phrase("Model", 72, 700)
	ws = append(ws, centredAt("Dev", 205, 700)...)
	ws = append(ws, row(688, groupCols, "", "NQ", "TQA", "WQ", "NQ", "TQA", "WQ")...)
	ws = append(ws, groupBody(688)...)
	ts = find(t, &Page{Words: ws})
	if len(ts) != 1 {
		t.Fatalf("one label: %d tables, want 1", len(ts))
	}
	if h := ts[0].HTML(); strings.Contains(h, "colspan") {
		t.Errorf("a word over one label of one group spanned columns:\n%s", h)
	}
}

// TestOneWordOverOddColumns: one word centred over the three columns of figures, reaching over
// the middle label only, no rule: the group label of all three.
func TestOneWordOverOddColumns(t *testing.T) {
	xs := []float64{72, 150, 200, 250}
	ws := phrase("Model", 72, 700)
	ws = append(ws, centredAt("Accuracy", 215, 700)...)
	ws = append(ws, row(688, xs, "", "Top-1", "Top-5", "Top-20")...)
	for i, label := range []string{"BM25", "DPR", "Hybrid"} {
		ws = append(ws, row(676-12*float64(i), xs, label, "59.1", "66.9", "55.0")...)
	}
	h := headOf(t, &Page{Words: ws})
	want := `<thead><tr><th rowspan="2">Model</th><th colspan="3">Accuracy</th></tr><tr><th>Top-1</th><th>Top-5</th><th>Top-20</th></tr></thead>`
	if !strings.Contains(h, want) {
		t.Errorf("head:\n%s\nwant\n%s", h, want)
	}
}
