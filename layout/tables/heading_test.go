package tables_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// TestNumberedHeadingsAreNoRows: numbered headings in bold ("2.1<quad>Options"), a section's
// over its first subsection's, each subsection's over a short paragraph, as a manual sets
// them: the number and the title are two phrases
// of one heading, not two cells, and the page holds no table.
func TestNumberedHeadingsAreNoRows(t *testing.T) {
	first := pdftest.FirstExtra(1)
	var b strings.Builder
	b.WriteString(pdftest.Text("F1", 10, 72, 760, "The text block is as wide as this line of the introduction, which runs from margin to margin."))
	for _, l := range []struct {
		font      string
		size, y   float64
		num, text string
	}{
		{"F2", 14, 700, "2", "Implementation"},
		{"F2", 12, 680, "2.1", "Identification"},
		{"F1", 10, 664, "", "The package identifies itself."},
		{"F2", 12, 646, "2.2", "Options"},
		{"F1", 10, 630, "", "There are none."},
		{"F2", 12, 612, "2.3", "Limits"},
		{"F1", 10, 596, "", "None are known."},
	} {
		// Paragraph lines shorter than half the text width (a paragraph's last line) fit
		// inside a table block; a full line (the first, at the top) would end it.
		if l.num == "" {
			b.WriteString(pdftest.Text(l.font, l.size, 72, l.y, l.text))
			continue
		}
		b.WriteString(pdftest.Text(l.font, l.size, 72, l.y, l.num))
		b.WriteString(pdftest.Text(l.font, l.size, 72+2.5*l.size, l.y, l.text))
	}
	data := pdftest.Doc{
		Pages: []pdftest.Page{{Content: b.String(), Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R /F2 %d 0 R >> >>", first, first+1)}},
		Extra: []string{pdftest.Helvetica, pdftest.HelveticaBold},
	}.Bytes()
	ts, _ := pdfTables(t, data)
	for _, tb := range ts {
		t.Errorf("headings read as a %v table %dx%d:\n%s", tb.Kind, tb.Rows, tb.Cols, tb.HTML())
	}
}

// TestNumberedRowsStayATable: the same numbers and titles in the body's weight and size, over
// a label row, are a table of objectives.
func TestNumberedRowsStayATable(t *testing.T) {
	var b strings.Builder
	b.WriteString(pdftest.Text("F1", 10, 72, 760, "The text block is as wide as this line of the introduction, which runs from margin to margin."))
	b.WriteString(pdftest.Text("F1", 10, 72, 700, "Objective"))
	b.WriteString(pdftest.Text("F1", 10, 130, 700, "Statement"))
	for i, r := range [][2]string{{"1.1", "Improve hiring"}, {"1.2", "Reform pay"}, {"1.3", "Reduce cost"}, {"2.1", "Share data"}} {
		y := 686 - 14*float64(i)
		b.WriteString(pdftest.Text("F1", 10, 72, y, r[0]))
		b.WriteString(pdftest.Text("F1", 10, 130, y, r[1]))
	}
	ts, _ := pdfTables(t, onePagePDF("", b.String()))
	if len(ts) != 1 || ts[0].Rows != 5 || ts[0].Cols != 2 {
		t.Fatalf("%d tables, want one 5x2", len(ts))
	}
}
