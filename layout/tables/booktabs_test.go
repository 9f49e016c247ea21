package tables

import (
	"strings"
	"testing"
)

// Booktabs tables in the right column of a two-column paper page, as LaTeX sets them: a
// rule over the table, a rule under its head, a rule under its last row, no column rules;
// few rows; the column labels set closer than a gutter, so that the head line reads as one
// phrase; a caption under each table, between the first table's bottom rule and the second
// table's top rule.

// booktabsPage returns the page and where the second table's rules are.
func booktabsPage() *Page {
	var ws []Word
	y := 766.0
	for range 4 {
		var p []Word
		p, y = paragraph(lorem, 72, y, 218)
		ws = append(ws, p...)
	}
	var segs []Segment
	// Table A: a head of one line over two rows.
	xa := []float64{313, 380, 410, 440, 475}
	segs = append(segs, hseg(778, 308, 525))
	ws = append(ws, row(766, xa, "", "Top-1", "Top-5", "Top-20", "Top-100")...)
	segs = append(segs, hseg(763, 308, 525))
	ws = append(ws, row(751, xa, "Gold", "44.9", "66.8", "78.1", "85.0")...)
	ws = append(ws, row(739, xa, "Dist. Sup.", "43.9", "65.3", "77.1", "84.4")...)
	segs = append(segs, hseg(736, 308, 525))
	cap, _ := paragraph("Table 5: Retrieval accuracy on the development set of Natural Questions, trained on passages that match the gold context.", 308, 722, 215)
	ws = append(ws, cap...)
	// Table B: a two-line head (a label spanning the figures' columns), row labels centred on
	// the two rows they label, rules between the groups.
	xb := []float64{313, 340, 390, 420, 450, 485}
	segs = append(segs, hseg(680, 309, 524))
	ws = append(ws, phrase("Sim Loss", 313, 668)...)
	// The group label centred over the figures' columns (390..520), as LaTeX sets it.
	ws = append(ws, phrase("Retrieval Accuracy", 411.25, 668)...)
	ws = append(ws, row(656, xb, "", "", "Top-1", "Top-5", "Top-20", "Top-100")...)
	segs = append(segs, hseg(653, 309, 524))
	ws = append(ws, row(641, xb, "", "NLL", "44.9", "66.8", "78.1", "85.0")...)
	ws = append(ws, phrase("DP", 313, 635)...)
	ws = append(ws, row(629, xb, "", "Triplet", "41.6", "65.0", "77.2", "84.5")...)
	segs = append(segs, hseg(626, 309, 524))
	ws = append(ws, row(614, xb, "", "NLL", "43.5", "64.7", "76.1", "83.1")...)
	ws = append(ws, phrase("L2", 313, 608)...)
	ws = append(ws, row(602, xb, "", "Triplet", "42.2", "66.0", "78.1", "84.9")...)
	segs = append(segs, hseg(599, 309, 524))
	return &Page{Words: ws, Segments: segs}
}

func TestBooktabsSmallTables(t *testing.T) {
	ts := find(t, booktabsPage())
	if len(ts) != 2 {
		for _, tb := range ts {
			t.Logf("%v %q", tb.Box, gridOf(tb))
		}
		t.Fatalf("%d tables, want 2", len(ts))
	}
	a, b := ts[0], ts[1]
	sameGrid(t, a, [][]string{
		{"", "Top-1", "Top-5", "Top-20", "Top-100"},
		{"Gold", "44.9", "66.8", "78.1", "85.0"},
		{"Dist. Sup.", "43.9", "65.3", "77.1", "84.4"},
	})
	if a.HeaderRows != 1 || a.Kind != PartlyRuled {
		t.Errorf("table A: %d header rows, kind %v; want 1, partly ruled", a.HeaderRows, a.Kind)
	}
	if a.Box.X0 < 300 || a.Box.Y0 < 730 {
		t.Errorf("table A took in prose or its caption: box %+v", a.Box)
	}
	g := gridOf(b)
	if len(g) != 6 {
		t.Fatalf("table B rows %d, want 6: %q", len(g), g)
	}
	if head := strings.Join(g[0], " "); !strings.Contains(head, "Retrieval Accuracy") || !strings.Contains(strings.Join(strings.Fields(head), " "), "Sim Loss") {
		t.Errorf("table B head %q", g[0])
	}
	for i, want := range [][]string{
		{"", "", "Top-1", "Top-5", "Top-20", "Top-100"},
		{"DP", "NLL", "44.9", "66.8", "78.1", "85.0"},
		{"", "Triplet", "41.6", "65.0", "77.2", "84.5"},
		{"L2", "NLL", "43.5", "64.7", "76.1", "83.1"},
		{"", "Triplet", "42.2", "66.0", "78.1", "84.9"},
	} {
		if got := strings.Join(g[i+1], "|"); got != strings.Join(want, "|") {
			t.Errorf("table B row %d = %q, want %q", i+1, g[i+1], want)
		}
	}
	// The group label is one cell over the four columns of figures it is centred on; "Sim" and
	// "Loss", a word over each column, stay two cells, each over both head rows.
	if h := b.HTML(); !strings.Contains(h, `<thead><tr><th rowspan="2">Sim</th><th rowspan="2">Loss</th><th colspan="4">Retrieval Accuracy</th></tr><tr><th>Top-1</th>`) {
		t.Errorf("table B head: %s", h)
	}
	// Row labels centred on their two rows span both (rowspan).
	if h := b.HTML(); !strings.Contains(h, `<tr><td rowspan="2">DP</td><td>NLL</td>`) || !strings.Contains(h, `<tr><td rowspan="2">L2</td><td>NLL</td>`) {
		t.Errorf("table B row labels: %s", h)
	}
	if b.HeaderRows != 2 {
		t.Errorf("table B: %d header rows, want 2", b.HeaderRows)
	}
	for _, w := range append(a.Words, b.Words...) {
		if strings.HasPrefix(booktabsPage().Words[w].Text, "Retrieval") && booktabsPage().Words[w].Box.Y0 > 700 {
			t.Errorf("a table took in its caption")
		}
	}
}

// TestRulesAroundACaptionAreNoHead: two rows of figures under a rule, a caption above it set
// apart from the rules (another table's bottom rule over it): the caption is no head, and two
// rows alone are no table.
func TestRulesAroundACaptionAreNoHead(t *testing.T) {
	var ws []Word
	var segs []Segment
	segs = append(segs, hseg(736, 308, 525))
	cap, _ := paragraph("Table 5: Retrieval accuracy on the development set of Natural Questions.", 308, 718, 215)
	ws = append(ws, cap...)
	segs = append(segs, hseg(690, 308, 525))
	xa := []float64{313, 380, 410, 440, 475}
	ws = append(ws, row(678, xa, "Gold", "44.9", "66.8", "78.1", "85.0")...)
	ws = append(ws, row(666, xa, "Dist. Sup.", "43.9", "65.3", "77.1", "84.4")...)
	if ts := find(t, &Page{Words: ws, Segments: segs}); len(ts) != 0 {
		t.Errorf("%d tables: %q", len(ts), gridOf(ts[0]))
	}
}
