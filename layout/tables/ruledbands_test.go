package tables

import (
	"strings"
	"testing"
)

// A ruled table of questions and passages (as in a paper's table of examples): rules between
// the questions, column rules, each question wrapped over two lines in the first column, each
// passage a title line over several lines of text. The title line and the question's second
// line both hold words in every column; the question's wrap makes them one row.
func TestRuledBandQuestionWrapsOverTitleLine(t *testing.T) {
	x := []float64{72, 169, 352, 534}
	var segs []Segment
	var ws []Word
	segs = append(segs, hseg(780, x[0], x[3]))
	ws = append(ws, row(768, []float64{76, 173, 356}, "Question", "Passage one", "Passage two")...)
	segs = append(segs, hseg(764, x[0], x[3]))
	y := 752.0
	var bands []float64
	for _, q := range [][3]string{
		{"Which sea lies", "between them?", "Title: Irish Sea"},
		{"Who plays the", "King in Winter?", "Title: No One"},
	} {
		ws = append(ws, phrase(q[0], 76, y)...)
		ws = append(ws, phrase(q[2], 173, y)...)
		ws = append(ws, phrase("Title: Cycling", 356, y)...)
		ws = append(ws, phrase(q[1], 76, y-12)...)
		p, _ := paragraph(lorem, 173, y-12, 170)
		ws = append(ws, p...)
		p, end := paragraph(lorem, 356, y-12, 170)
		ws = append(ws, p...)
		bands = append(bands, end+4)
		segs = append(segs, hseg(end+4, x[0], x[3]))
		y = end - 8
	}
	segs = append(segs, vseg(x[1], bands[1], 780), vseg(x[2], bands[1], 780))
	ts := find(t, &Page{Words: ws, Segments: segs})
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	g := gridOf(ts[0])
	if len(g) != 3 || len(g[0]) != 3 {
		t.Fatalf("%d rows: %q", len(g), g)
	}
	for i, q := range []string{"Which sea lies between them?", "Who plays the King in Winter?"} {
		if g[i+1][0] != q || !strings.HasPrefix(g[i+1][1], "Title:") || !strings.Contains(g[i+1][1], "committee") {
			t.Errorf("row %d = %q", i+1, g[i+1])
		}
	}
}

// A ruled table whose rules frame it but do not separate its rows, the labels filling the
// first column and not ending a sentence: each line is a row of its own.
func TestRuledBandRowsOfFiguresStayRows(t *testing.T) {
	x := []float64{72, 200, 280, 360}
	var segs []Segment
	segs = append(segs, hseg(780, x[0], x[3]), hseg(764, x[0], x[3]), hseg(700, x[0], x[3]))
	segs = append(segs, vseg(x[0], 700, 780), vseg(x[1], 700, 780), vseg(x[2], 700, 780), vseg(x[3], 700, 780))
	var ws []Word
	xs := []float64{76, 204, 284}
	ws = append(ws, row(768, xs, "Item", "2023", "2022")...)
	want := [][]string{{"Item", "2023", "2022"}}
	for k, r := range [][]string{
		{"Accounts receivable net", "36,953", "48,688"},
		{"Inventories and goods", "3,000", "2,500"},
		{"Other current assets", "23,682", "21,807"},
		{"Total current assets", "63,635", "72,995"},
	} {
		ws = append(ws, row(752-12*float64(k), xs, r...)...)
		want = append(want, r)
	}
	ts := find(t, &Page{Words: ws, Segments: segs})
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	sameGrid(t, ts[0], want)
}
