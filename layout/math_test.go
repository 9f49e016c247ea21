package layout

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/internal/pdftest"
)

// A page of a paper as TeX sets it: a paragraph, a block of displayed equations aligned at
// "=" in math fonts (CMMI10 letters, CMSY10 operators, CMR10 digits) with their numbers at
// the right margin, another paragraph, then a table of figures. The equations stay text; the
// table is a Table.
func TestDisplayMathIsNotATable(t *testing.T) {
	f := pdftest.FirstExtra(1)
	font := func(name string) string {
		// Not embedded: widths given, as a PDF must for fonts outside the standard 14.
		return fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 126 /Widths [%s] >>",
			name, strings.TrimSpace(strings.Repeat("500 ", 95)))
	}
	res := fmt.Sprintf("<< /Font << /F1 %d 0 R /MI %d 0 R /SY %d 0 R /RM %d 0 R >> >>", f, f+1, f+2, f+3)
	var c strings.Builder
	c.WriteString(paragraph(72, 720, "The model is fitted to the data in two steps, and the",
		"quantities it uses are defined as follows for every sample."))
	for i, eq := range [][3]string{{"f(x)", "ax + b", "(1)"}, {"g(y)", "cy - d", "(2)"}, {"h(z)", "f(g(z))", "(3)"}} {
		y := 670 - 16*float64(i)
		c.WriteString(pdftest.Text("MI", 10, 200, y, eq[0]) + pdftest.Text("SY", 10, 250, y, "=") +
			pdftest.Text("MI", 10, 270, y, eq[1]) + pdftest.Text("RM", 10, 520, y, eq[2]))
	}
	c.WriteString(paragraph(72, 600, "The results of the three runs are given in the table",
		"below, with the time each one took in seconds."))
	for i, row := range [][4]string{{"Run", "Loss", "Accuracy", "Time"}, {"First", "0.412", "81.2", "12.0"},
		{"Second", "0.380", "83.5", "11.4"}, {"Third", "0.371", "84.1", "11.9"}} {
		y := 550 - 14*float64(i)
		for k, cell := range row {
			c.WriteString(pdftest.Text("F1", 10, 120+100*float64(k), y, cell))
		}
	}
	d := pdftest.Doc{Pages: []pdftest.Page{{Content: c.String(), Resources: res}},
		Extra: []string{pdftest.Helvetica, font("CMMI10"), font("CMSY10"), font("CMR10")}}
	els := layoutBytes(t, d.Bytes())
	var tables []string
	eq := false
	for _, e := range els {
		if e.Type == element.Table {
			tables = append(tables, e.Text)
		}
		eq = eq || (e.Type != element.Table && strings.Contains(e.Text, "ax + b"))
	}
	if len(tables) != 1 || !strings.Contains(tables[0], "Accuracy") || !eq {
		t.Errorf("tables %q; equations as text: %v\n%q", tables, eq, texts(els))
	}
}
