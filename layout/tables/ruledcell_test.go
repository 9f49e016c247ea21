package tables_test

import (
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// TestRuledDescriptionCell: a ruled table of operators (frame, column rules, a rule under the
// head only), each row a key in the first column and a description of several paragraphs in
// the last: a displayed formula line ("0 -Tl Td") and a paragraph starting in capitals stay
// in their row's cell; the next key starts a new row.
func TestRuledDescriptionCell(t *testing.T) {
	var b strings.Builder
	b.WriteString("0.5 w 96 610 m 542 610 l S 96 590 m 542 590 l S 96 470 m 542 470 l S ")
	b.WriteString("96 610 m 96 470 l S 166 610 m 166 470 l S 238 610 m 238 470 l S 542 610 m 542 470 l S\n")
	show := func(x, y float64, s string) { b.WriteString(pdftest.Text("F1", 10, x, y, s)) }
	show(101, 597, "OPERANDS")
	show(171, 597, "OPERATOR")
	show(243, 597, "DESCRIPTION")
	show(101, 577, "-")
	show(171, 577, "T*")
	for i, s := range []string{"Move to the start of the next line. This has the", "same effect as the code", "0 -Tl Td", "Where Tl is the current leading parameter."} {
		show(243, 577-12*float64(i), s)
	}
	show(101, 525, "tw")
	show(171, 525, "Tw")
	for i, s := range []string{"Set the word spacing, used to justify text,", "to tw unscaled text space units."} {
		show(243, 525-12*float64(i), s)
	}
	ts, _ := pdfTables(t, onePagePDF("", b.String()))
	if len(ts) != 1 {
		t.Fatalf("%d tables, want 1", len(ts))
	}
	g := ts[0].Grid()
	if len(g) != 3 {
		t.Fatalf("%d rows, want 3: %q", len(g), g)
	}
	if d := g[1][2]; !strings.Contains(d, "0 -Tl Td") || !strings.Contains(d, "Where Tl") {
		t.Errorf("first description %q", d)
	}
	if g[2][1] != "Tw" {
		t.Errorf("second row %q", g[2])
	}
}
