package tables_test

import (
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// TestStatementHead: a 10-Q statement's head through pdf: the period over its two dates, the
// units note in the stub beside the dates, each date ("Sep 30, 2023") over a column of
// currency signs and the figures beside it, section labels of the stub alone ("Assets",
// "Cash equivalents:") above the first figures, a value with its unit ("11.6 years"). The
// date row is a head row and each date one cell over its sign and figure columns; the
// section labels are the body's first rows.
func TestStatementHead(t *testing.T) {
	var b strings.Builder
	show := func(x, y float64, s string) { b.WriteString(pdftest.Text("F1", 9, x, y, s)) }
	right := func(x, y float64, s string) { show(x-9*helvWidth(s), y, s) }
	b.WriteString("0.5 w 60 706 m 520 706 l S\n")
	show(390-9*helvWidth("Three Months Ended")/2, 710, "Three Months Ended")
	show(60, 696, "(In Millions)")
	show(300, 696, "Sep 30, 2023")
	show(420, 696, "Oct 1, 2022")
	b.WriteString("60 692 m 520 692 l S\n")
	show(60, 680, "Assets")
	show(60, 668, "Cash equivalents:")
	rows := [][3]string{{"Corporate debt", "1,234", "1,100"}, {"Government debt", "812", "790"}, {"Money market funds", "4,221", "3,901"}, {"Total", "6,267", "5,791"}, {"Remaining term", "11.6 years", "10.3 years"}}
	for i, r := range rows {
		y := 656 - 12*float64(i)
		show(70, y, r[0])
		if i == 0 || i == 3 {
			show(300, y, "$")
			show(420, y, "$")
		}
		right(360, y, r[1])
		right(480, y, r[2])
	}
	ts, _ := pdfTables(t, onePagePDF("", b.String()))
	if len(ts) != 1 {
		for _, tb := range ts {
			t.Logf("%s", tb.HTML())
		}
		t.Fatalf("%d tables, want 1", len(ts))
	}
	h := ts[0].HTML()
	for _, want := range []string{
		`<tr><th>(In Millions)</th><th colspan="2">Sep 30, 2023</th><th colspan="2">Oct 1, 2022</th></tr></thead><tbody><tr><td>Assets</td>`,
		`<tr><td>Corporate debt</td><td>$</td><td>1,234</td><td>$</td><td>1,100</td></tr>`,
		`<tr><td>Remaining term</td><td></td><td>11.6 years</td><td></td><td>10.3 years</td></tr>`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML\n%s\nwant\n%s", h, want)
		}
	}
}
