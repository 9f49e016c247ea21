package layout

import (
	"os"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// A justified line of a narrow column stretched until pdfminer cuts it at a word space: its
// pieces are read in their line, not as blocks of their own. Two columns whose lines share
// baselines across a gutter of one em are not joined: no line runs over the gutter.
func TestJustifiedPiecesRejoin(t *testing.T) {
	c := pdftest.Text("F1", 10, 72, 700, "Column paragraph one.") + pdftest.Text("F1", 10, 230, 700, "Several") +
		paragraph(72, 688, "inconsistencies were found in the way that the", "departments reported their expenses to finance.") +
		pdftest.Text("F1", 10, 72, 652, "reduce") + pdftest.Text("F1", 10, 130, 652, "the time spent") + pdftest.Text("F1", 10, 245, 652, "on") +
		paragraph(72, 640, "reconciliation by about a third of its length.")
	got := texts(layoutBytes(t, docOf(c).Bytes()))
	want := []string{
		"NarrativeText: Column paragraph one. Several inconsistencies were found in the way that the departments reported their expenses to finance.",
		"NarrativeText: reduce the time spent on reconciliation by about a third of its length.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	var two strings.Builder
	for i := 0; i < 6; i++ {
		y := 700 - 12*float64(i)
		two.WriteString(pdftest.Text("F1", 10, 72, y, "left column words of a line"))
		two.WriteString(pdftest.Text("F1", 10, 215, y, "right column words of a line"))
	}
	got = texts(layoutBytes(t, docOf(two.String()).Bytes()))
	for _, e := range got {
		if strings.Contains(e, "left") && strings.Contains(e, "right") {
			t.Errorf("columns joined across the gutter: %q", got)
			break
		}
	}
}

// LibreOffice's export of a two-column section set justified (testdata/justified-columns.pdf,
// from justified-columns.fodt): a first line "Column paragraph 1.   Several" cut in two.
func TestLibreOfficeJustifiedColumns(t *testing.T) {
	data, err := os.ReadFile("testdata/justified-columns.pdf")
	if err != nil {
		t.Fatal(err)
	}
	got := texts(layoutBytes(t, data))
	for _, e := range got {
		if e == "NarrativeText: Several" || e == "NarrativeText: on" {
			t.Errorf("piece of a justified line read alone: %q", got)
		}
	}
	joined := strings.Join(got, "\n")
	for _, w := range []string{"Column paragraph 1. Several inconsistencies", "reduce the time spent on reconciliation"} {
		if !strings.Contains(joined, w) {
			t.Errorf("%q not read in its line", w)
		}
	}
}
