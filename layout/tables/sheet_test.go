package tables_test

import (
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// TestSpreadsheetPrint: a sheet printed by a spreadsheet program: its name centred over the
// columns in a larger size (the page's running head), narrow columns (the dates closer than
// an em, so they run together), and one row whose long name reaches the next column, so that
// the whole row reads as one run of words. The sheet is one table whose head is the column
// labels, not the sheet's name, and the crowded row is one of its rows, cell by cell.
func TestSpreadsheetPrint(t *testing.T) {
	var b strings.Builder
	show := func(size, x, y float64, s string) { b.WriteString(pdftest.Text("F1", size, x, y, s)) }
	right := func(x, y float64, s string) { show(10, x-10*helvWidth(s), y, s) }
	show(12, 200, 780, "ubuntu")
	xs := []float64{59, 114, 205, 250, 308, 366}
	for i, s := range []string{"version", "codename", "series", "created", "release", "eol"} {
		show(10, xs[i], 760, s)
	}
	rows := [][6]string{
		{"4.10", "Warty Warthog", "warty", "2004-03-05", "2004-10-20", "2006-04-30"},
		{"5.04", "Hoary Hedgehog", "hoary", "2004-10-20", "2005-04-08", "2006-10-31"},
		{"5.10", "Breezy Badger", "breezy", "2005-04-08", "2005-10-12", "2007-04-13"},
		{"6.06", "Dapper Drake", "dapper", "2005-10-12", "2006-06-01", "2009-07-14"},
		{"6.10", "Edgy Eft", "edgy", "2006-06-01", "2006-10-26", "2008-04-25"},
		{"10.10", "Maverick Meerkats", "maverick", "2010-04-29", "2010-10-10", "2012-04-10"},
		{"11.04", "Natty Narwhal", "natty", "2010-10-10", "2011-04-28", "2012-10-28"},
		{"11.10", "Oneiric Ocelot", "oneiric", "2011-04-28", "2011-10-13", "2013-05-09"},
	}
	for r, row := range rows {
		y := 747 - 12.8*float64(r)
		right(106, y, row[0])
		for i := 1; i < 6; i++ {
			x := xs[i]
			if i >= 3 {
				x = xs[i] + 3 // dates right-aligned in their columns, under an em apart
			}
			show(10, x, y, row[i])
		}
	}
	ts, _ := pdfTables(t, onePagePDF("", b.String()))
	if len(ts) != 1 {
		for _, tb := range ts {
			t.Logf("%dx%d %s", tb.Rows, tb.Cols, tb.HTML())
		}
		t.Fatalf("%d tables, want 1", len(ts))
	}
	h := ts[0].HTML()
	if !strings.HasPrefix(h, "<table><thead><tr><th>version</th><th>codename</th>") {
		t.Errorf("head: %s", h)
	}
	if want := "<tr><td>10.10</td><td>Maverick Meerkats</td><td>maverick</td><td>2010-04-29</td><td>2010-10-10</td><td>2012-04-10</td></tr>"; !strings.Contains(h, want) {
		t.Errorf("crowded row:\n%s\nwant\n%s", h, want)
	}
	if ts[0].Rows != 9 || ts[0].Cols != 6 {
		t.Errorf("%dx%d, want 9x6", ts[0].Rows, ts[0].Cols)
	}
}
