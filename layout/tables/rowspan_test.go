package tables_test

import (
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// TestRowLabelOnTwoRowsPDF: a borderless table whose row labels ("DP", "L2") are each set
// centred between the two rows they label, as LaTeX's \multirow sets them: each label is one
// cell over both rows (rowspan 2), the rows below it stay two rows; a label on its own row's
// line ("BM25") spans nothing.
func TestRowLabelOnTwoRowsPDF(t *testing.T) {
	const size = 9.0
	var b strings.Builder
	xs := []float64{72, 110, 170, 210, 250}
	show := func(x, y float64, s string) { b.WriteString(pdftest.Text("F1", size, x, y, s)) }
	for i, s := range []string{"Sim", "Loss", "Top-1", "Top-5", "Top-20"} {
		show(xs[i], 700, s)
	}
	y := 686.0
	for _, g := range []struct {
		label string
		rows  [][4]string
	}{
		{"DP", [][4]string{{"NLL", "44.9", "66.8", "78.1"}, {"Triplet", "41.6", "65.0", "77.2"}}},
		{"L2", [][4]string{{"NLL", "43.5", "64.7", "76.1"}, {"Triplet", "42.2", "66.0", "78.1"}}},
		{"BM25", [][4]string{{"n/a", "40.1", "60.2", "70.3"}}},
	} {
		for k, r := range g.rows {
			for i, s := range r {
				show(xs[i+1], y-12*float64(k), s)
			}
		}
		// The label's middle halfway between its rows' middles.
		show(xs[0], y-6*float64(len(g.rows)-1), g.label)
		y -= 12 * float64(len(g.rows))
	}
	ts, _ := pdfTables(t, onePagePDF("", b.String()))
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	h := ts[0].HTML()
	for _, want := range []string{
		`<tr><td rowspan="2">DP</td><td>NLL</td><td>44.9</td><td>66.8</td><td>78.1</td></tr><tr><td>Triplet</td><td>41.6</td>`,
		`<tr><td rowspan="2">L2</td><td>NLL</td><td>43.5</td><td>64.7</td><td>76.1</td></tr><tr><td>Triplet</td><td>42.2</td>`,
		`<tr><td>BM25</td><td>n/a</td>`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML\n%s\nwant\n%s", h, want)
		}
	}
	if ts[0].Rows != 6 {
		t.Errorf("%d rows, want 6", ts[0].Rows)
	}
}

// TestRowLabelOnTwoRowsOfTwoCells: the same with two cells beside each label (a loss and one
// score): the rows stay apart and the label spans them; two wrapped cells beside a value
// centred on both lines stay one row.
func TestRowLabelOnTwoRowsOfTwoCells(t *testing.T) {
	const size = 9.0
	var b strings.Builder
	show := func(x, y float64, s string) { b.WriteString(pdftest.Text("F1", size, x, y, s)) }
	xs := []float64{72, 110, 170}
	for i, s := range []string{"Sim", "Loss", "Top-1"} {
		show(xs[i], 700, s)
	}
	for g, label := range []string{"DP", "L2", "Cos"} {
		y := 686 - 24*float64(g)
		show(xs[1], y, "NLL")
		show(xs[2], y, "44.9")
		show(xs[1], y-12, "Triplet")
		show(xs[2], y-12, "41.6")
		show(xs[0], y-6, label)
	}
	ts, _ := pdfTables(t, onePagePDF("", b.String()))
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	h := ts[0].HTML()
	if want := `<tr><td rowspan="2">L2</td><td>NLL</td><td>44.9</td></tr><tr><td>Triplet</td><td>41.6</td></tr>`; !strings.Contains(h, want) {
		t.Errorf("HTML\n%s\nwant\n%s", h, want)
	}

	b.Reset()
	for i, s := range []string{"Item", "Note", "Qty"} {
		show(xs[i]+[]float64{0, 0, 80}[i], 700, s)
	}
	for g, r := range [][4]string{{"Hex bolt", "zinc plated", "steel, M8", "12"}, {"Wing nut", "brass", "for M8 bolts", "40"}, {"Washer", "flat", "M8, DIN 125", "7"}} {
		y := 686 - 24*float64(g)
		show(xs[0], y, r[0])
		show(xs[1]+40, y, r[2])
		show(xs[0], y-12, r[1])
		show(xs[1]+40, y-12, "(spare)")
		show(xs[2]+80, y-6, r[3])
	}
	ts, _ = pdfTables(t, onePagePDF("", b.String()))
	if len(ts) != 1 || ts[0].Rows != 4 {
		for _, tb := range ts {
			t.Logf("%s", tb.HTML())
		}
		t.Errorf("%d tables, want one of 4 rows (wrapped cells beside a centred value)", len(ts))
	}
}
