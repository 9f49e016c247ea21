package tables_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
	"github.com/quarrydocs/quarry/layout/tables"
)

// Code listings and tables of contents line up in columns without being tables. Each fixture
// below is a one-page PDF in standard fonts (Helvetica /F1, Courier /F2), read through pdf:
// the negative beside a positive that shares its look but is a table.

// twoFontPDF is a one-page PDF whose content uses /F1 (Helvetica) and /F2 (Courier).
func twoFontPDF(content string) []byte {
	first := pdftest.FirstExtra(1)
	return pdftest.Doc{
		Pages: []pdftest.Page{{Content: content, Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R /F2 %d 0 R >> >>", first, first+1)}},
		Extra: []string{pdftest.Helvetica, "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>"},
	}.Bytes()
}

// codeListing draws a numbered listing in Courier at (x, y): line numbers in Helvetica at the
// left, code indented by spaces, comments aligned by runs of spaces (so its lines break into
// "columns" at those runs).
func codeListing(b *strings.Builder, x, y float64) {
	code := []string{
		"int main(void) {           // entry point",
		"    int n = 42;            // the answer",
		"    long total = 0;",
		"    for (int i = 0; i < n; i++) {",
		"        total += i;        // running sum",
		"    }",
		"    printf(\"%ld\", total);  // print it",
		"    return 0;              // done",
		"}",
	}
	for i, s := range code {
		yy := y - 11*float64(i)
		b.WriteString(pdftest.Text("F1", 7, x-14, yy, fmt.Sprint(i+1)))
		b.WriteString(pdftest.Text("F2", 9, x, yy, s))
	}
}

func TestCodeListingIsNoTable(t *testing.T) {
	var b strings.Builder
	codeListing(&b, 90, 700)
	ts, _ := pdfTables(t, twoFontPDF(b.String()))
	for _, tb := range ts {
		t.Errorf("a code listing read as a %v table %dx%d:\n%s", tb.Kind, tb.Rows, tb.Cols, tb.HTML())
	}
}

// TestFixedPitchCellsStayATable: a borderless table whose first and third columns hold
// identifiers in Courier, its columns placed by the widest entry (off the character grid of
// the first column), is a table, and so is the same table below a listing.
func TestFixedPitchCellsStayATable(t *testing.T) {
	rows := [][3]string{{"\\tiny", "5", "\\scriptsize"}, {"\\small", "9", "\\footnotesize"}, {"\\normalsize", "10", "\\large"}, {"\\Large", "14.4", "\\huge"}}
	table := func(b *strings.Builder, y float64) {
		for i, r := range rows {
			yy := y - 12*float64(i)
			b.WriteString(pdftest.Text("F2", 9, 90, yy, r[0]))
			b.WriteString(pdftest.Text("F1", 9, 170, yy, r[1]))
			b.WriteString(pdftest.Text("F2", 9, 213, yy, r[2]))
		}
	}
	var b strings.Builder
	table(&b, 700)
	ts, _ := pdfTables(t, twoFontPDF(b.String()))
	if len(ts) != 1 || ts[0].Rows != 4 || ts[0].Cols != 3 {
		t.Fatalf("%d tables, want one 4x3: %v", len(ts), ts)
	}
	b.Reset()
	codeListing(&b, 90, 700)
	table(&b, 560)
	ts, _ = pdfTables(t, twoFontPDF(b.String()))
	if len(ts) != 1 || ts[0].Rows != 4 || ts[0].Cols != 3 || !strings.Contains(ts[0].Text(), "\\footnotesize") {
		for _, tb := range ts {
			t.Logf("%v %dx%d %s", tb.Kind, tb.Rows, tb.Cols, tb.HTML())
		}
		t.Fatalf("%d tables, want the 4x3 table alone", len(ts))
	}
}

// leaders draws TeX's leader dots (every 4.5 pt, on a grid of their own) from x0 to x1.
func leaders(b *strings.Builder, x0, x1, y float64) {
	for x := 4.5 * float64(int(x0/4.5)+1); x < x1; x += 4.5 {
		b.WriteString(pdftest.Text("F1", 10, x, y, "."))
	}
}

func TestContentsIsNoTable(t *testing.T) {
	type entry struct {
		num, title string
		page       int
		leader     bool
	}
	es := []entry{{"1", "Introduction", 1, false}, {"1.1", "Scope", 1, true}, {"1.2", "Terms and definitions", 2, true},
		{"2", "Method", 4, false}, {"2.1", "Sampling", 4, true}, {"2.2", "Measurement", 7, true}, {"3", "Results", 9, false},
		{"3.1", "Main findings", 10, true}, {"3.2", "Limits", 12, true}, {"A", "Tables", 14, false}}
	var b strings.Builder
	for i, e := range es {
		y := 700 - 14*float64(i)
		title := 90.0
		if e.leader {
			title = 110
		}
		b.WriteString(pdftest.Text("F1", 10, 72, y, e.num))
		b.WriteString(pdftest.Text("F1", 10, title, y, e.title))
		if e.leader {
			leaders(&b, title+6*float64(len(e.title))+6, 480, y)
		}
		pg := fmt.Sprint(e.page)
		b.WriteString(pdftest.Text("F1", 10, 500-10*helvWidth(pg), y, pg))
	}
	ts, _ := pdfTables(t, twoFontPDF(b.String()))
	for _, tb := range ts {
		t.Errorf("a table of contents read as a %v table %dx%d:\n%s", tb.Kind, tb.Rows, tb.Cols, tb.HTML())
	}
}

// TestLeaderStatementStaysATable: a statement with leaders from each label to its amounts (as
// older annual reports set them) is a table: its rows end in amounts, not rising page numbers.
func TestLeaderStatementStaysATable(t *testing.T) {
	rows := [][3]string{{"Net sales", "1,234", "1,100"}, {"Cost of sales", "812", "790"}, {"Gross margin", "422", "310"},
		{"Operating expenses", "275", "268"}, {"Operating income", "147", "42"}}
	var b strings.Builder
	b.WriteString(pdftest.Text("F1", 10, 380, 714, "2023"))
	b.WriteString(pdftest.Text("F1", 10, 450, 714, "2022"))
	for i, r := range rows {
		y := 700 - 14*float64(i)
		b.WriteString(pdftest.Text("F1", 10, 72, y, r[0]))
		leaders(&b, 72+6*float64(len(r[0]))+6, 350, y)
		for k, x := range []float64{402, 472} {
			b.WriteString(pdftest.Text("F1", 10, x-10*helvWidth(r[k+1]), y, r[k+1]))
		}
	}
	ts, _ := pdfTables(t, twoFontPDF(b.String()))
	if len(ts) != 1 || ts[0].Rows < 5 {
		t.Fatalf("%d tables, want the statement", len(ts))
	}
	if txt := ts[0].Text(); !strings.Contains(txt, "Operating income") || !strings.Contains(txt, "1,234") {
		t.Errorf("statement text %q", txt)
	}
	_ = tables.Borderless
}

// TestListingWithCommentsInAnotherSize: a listing printed from a browser: line numbers in
// Helvetica, code in Courier 9, whole-line comments in Courier 12 (another pitch), many lines
// a lone brace; the comments indented by spaces so that lines break into "columns".
func TestListingWithCommentsInAnotherSize(t *testing.T) {
	lines := []struct {
		size float64
		s    string
	}{
		{9, "func next(buf []byte) int {"}, {12, "    // Skip the header."}, {9, "    if len(buf) < 2 {"}, {9, "        return -1"},
		{9, "    }"}, {12, "    // Find the end of the line."}, {9, "    for i := range buf {"}, {9, "        if buf[i] == 10 {"},
		{9, "            return i + 1"}, {9, "        }"}, {9, "    }"}, {9, "    return 0"}, {9, "}"},
	}
	var b strings.Builder
	for i, l := range lines {
		y := 700 - 13*float64(i)
		b.WriteString(pdftest.Text("F1", 7, 40, y, fmt.Sprint(116+i)))
		b.WriteString(pdftest.Text("F2", l.size, 72, y, l.s))
	}
	ts, _ := pdfTables(t, twoFontPDF(b.String()))
	for _, tb := range ts {
		t.Errorf("a listing read as a %v table %dx%d:\n%s", tb.Kind, tb.Rows, tb.Cols, tb.HTML())
	}
}

// TestContentsWithoutLeaders: a book's contents with no leaders: numbered titles, their
// page numbers flush right. And a back-of-book index in three columns, entries followed by
// their pages in the same cell. Neither is a table; a schedule of dated amounts is.
func TestContentsWithoutLeaders(t *testing.T) {
	var b strings.Builder
	for i, e := range []struct {
		title string
		page  int
	}{{"1 Getting Started", 1}, {"1.1 Files and Folders", 2}, {"1.2 The Terminal", 5}, {"1.3 Text Editors", 9},
		{"2 Types", 21}, {"2.1 Numbers", 22}, {"2.2 Strings", 27}, {"3 Variables", 32}} {
		y := 700 - 14*float64(i)
		b.WriteString(pdftest.Text("F1", 10, 72, y, e.title))
		pg := fmt.Sprint(e.page)
		b.WriteString(pdftest.Text("F1", 10, 400-10*helvWidth(pg), y, pg))
	}
	ts, _ := pdfTables(t, twoFontPDF(b.String()))
	for _, tb := range ts {
		t.Errorf("a contents without leaders read as a %v table %dx%d:\n%s", tb.Kind, tb.Rows, tb.Cols, tb.HTML())
	}

	b.Reset()
	index := [][]string{
		{"abstract type 24, 171", "break statement 24, 46", "channel 18, 225"},
		{"address-of operator 24, 32", "buffered channel 226", "closure 135, 140"},
		{"API 107", "byte slice 73, 74", "comment 5, 25"},
		{"append 88, 90, 91", "bytes package 73", "composite literal 14"},
		{"argument 119", "cache 272, 275", "constant 75, 78"},
		{"array 81, 83", "call by value 120", "conversion 40, 79"},
	}
	for i, r := range index {
		for k, s := range r {
			b.WriteString(pdftest.Text("F1", 9, 72+150*float64(k), 700-12*float64(i), s))
		}
	}
	ts, _ = pdfTables(t, twoFontPDF(b.String()))
	for _, tb := range ts {
		t.Errorf("an index read as a %v table %dx%d:\n%s", tb.Kind, tb.Rows, tb.Cols, tb.HTML())
	}

	b.Reset()
	b.WriteString(pdftest.Text("F1", 10, 72, 714, "Three Months Ending"))
	for i, r := range [][2]string{{"December 31, 2023", "21,006"}, {"March 31, 2024", "14,860"}, {"June 30, 2024", "8,551"},
		{"September 30, 2024", "3,109"}, {"Thereafter", "2,688"}, {"Total", "50,214"}} {
		y := 700 - 14*float64(i)
		b.WriteString(pdftest.Text("F1", 10, 72, y, r[0]))
		b.WriteString(pdftest.Text("F1", 10, 400-10*helvWidth(r[1]), y, r[1]))
	}
	ts, _ = pdfTables(t, twoFontPDF(b.String()))
	if len(ts) != 1 || ts[0].Rows < 6 {
		t.Fatalf("%d tables, want the schedule", len(ts))
	}
}
