package tables_test

import (
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// helvWidth is the width (in em) of s in Helvetica, from the font's AFM, for the characters
// of the fixtures below.
func helvWidth(s string) float64 {
	w := map[rune]float64{'T': 611, 'o': 556, 'p': 556, '-': 333, ' ': 278, 'R': 722, 'e': 556,
		't': 278, 'r': 333, 'i': 222, 'v': 500, 'a': 556, 'l': 222, 'A': 667, 'c': 500, 'u': 556,
		'y': 500, 'C': 722, 'P': 667, 'U': 722, 'G': 778}
	var n float64
	for _, r := range s {
		if r >= '0' && r <= '9' {
			n += 556
			continue
		}
		n += w[r]
	}
	return n / 1000
}

// TestGroupHeadsPDF: a booktabs table through pdf: "Retrieval Accuracy" centred over four
// columns with no rule under it, "Speed (ms)" set flush left over two columns with a partial
// rule under them, "Method" beside them over nothing.
func TestGroupHeadsPDF(t *testing.T) {
	const size = 9.0
	var b strings.Builder
	b.WriteString("0.5 w 68 712 m 410 712 l S 328 697 m 391 697 l S 68 685 m 410 685 l S 68 645 m 410 645 l S\n")
	xs := []float64{72, 150, 190, 230, 270, 330, 370}
	show := func(x, y float64, s string) { b.WriteString(pdftest.Text("F1", size, x, y, s)) }
	show(72, 700, "Method")
	span := xs[4] + size*helvWidth("Top-100")
	show((xs[1]+span)/2-size*helvWidth("Retrieval Accuracy")/2, 700, "Retrieval Accuracy")
	show(330, 700, "Speed (ms)")
	for i, s := range []string{"", "Top-1", "Top-5", "Top-20", "Top-100", "GPU", "CPU"} {
		if s != "" {
			show(xs[i], 688, s)
		}
	}
	for r, label := range []string{"BM25", "DPR", "Hybrid"} {
		for i, s := range []string{label, "44.9", "66.8", "78.1", "85.0", "12", "140"} {
			show(xs[i], 673-12*float64(r), s)
		}
	}
	ts, _ := pdfTables(t, onePagePDF("", b.String()))
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	want := `<thead><tr><th rowspan="2">Method</th><th colspan="4">Retrieval Accuracy</th><th colspan="2">Speed (ms)</th></tr><tr><th>Top-1</th><th>Top-5</th><th>Top-20</th><th>Top-100</th><th>GPU</th><th>CPU</th></tr></thead>`
	if h := ts[0].HTML(); !strings.Contains(h, want) {
		t.Errorf("HTML\n%s\nwant\n%s", h, want)
	}
}

// TestOneWordGroupHeadPDF: "Accuracy" centred over three columns of figures, reaching over the
// middle label alone, without any rule: one cell over the three (a word over one column of
// a two-group head would be that label's first line: TestCentredGroupHeads).
func TestOneWordGroupHeadPDF(t *testing.T) {
	const size = 9.0
	var b strings.Builder
	xs := []float64{72, 150, 200, 250}
	show := func(x, y float64, s string) { b.WriteString(pdftest.Text("F1", size, x, y, s)) }
	show(72, 700, "Method")
	span := xs[3] + size*helvWidth("Top-20")
	show((xs[1]+span)/2-size*helvWidth("Accuracy")/2, 700, "Accuracy")
	for i, s := range []string{"Top-1", "Top-5", "Top-20"} {
		show(xs[i+1], 688, s)
	}
	for r, label := range []string{"BM25", "DPR", "Hybrid"} {
		for i, s := range []string{label, "44.9", "66.8", "78.1"} {
			show(xs[i], 673-12*float64(r), s)
		}
	}
	ts, _ := pdfTables(t, onePagePDF("", b.String()))
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	want := `<thead><tr><th rowspan="2">Method</th><th colspan="3">Accuracy</th></tr><tr><th>Top-1</th><th>Top-5</th><th>Top-20</th></tr></thead>`
	if h := ts[0].HTML(); !strings.Contains(h, want) {
		t.Errorf("HTML\n%s\nwant\n%s", h, want)
	}
}
