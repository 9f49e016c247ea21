package layout

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/internal/pdftest"
)

// mathDoc is a one-page document with F1 Helvetica and F3 a TeX math italic (CMMI10, widths
// substituted).
func mathDoc(content string) pdftest.Doc {
	f := pdftest.FirstExtra(1)
	return pdftest.Doc{
		Pages: []pdftest.Page{{Content: content, Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R /F3 %d 0 R >> >>", f, f+1)}},
		Extra: []string{pdftest.Helvetica, "<< /Type /Font /Subtype /Type1 /BaseFont /CMMI10 >>"},
	}
}

// A display formula set between two paragraphs as pdfminer cuts it — its left side, a
// fraction's numerator and denominator on rows of their own, and the equation number at the
// right margin — is one Formula element between the paragraphs, in reading order. Before,
// its pieces were text fragments of their own (the bench's two-column paper, page 3).
// A formula set inline, its pieces level with the sentence's words, stays in the text.
func TestDisplayFormula(t *testing.T) {
	full := "a line of body text that runs all the way across its column to"
	c := paragraph(72, 700, full, full, "the formula:") +
		pdftest.Text("F3", 10, 200, 650, "f(x) =") +
		pdftest.Text("F3", 10, 240, 658, "a + b") + pdftest.Text("F3", 10, 240, 642, "c + d") +
		pdftest.Text("F1", 10, 520, 650, "(1)") +
		paragraph(72, 610, full, "the end.")
	got := texts(layoutBytes(t, mathDoc(c).Bytes()))
	want := []string{
		"NarrativeText: " + full + " " + full + " the formula:",
		"Formula: a + b f(x) = (1) c + d",
		"NarrativeText: " + full + " the end.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("display formula: got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	inline := pdftest.Text("F1", 10, 72, 700, "so the sum") + pdftest.Text("F3", 10, 125, 703, "a + b = c") +
		pdftest.Text("F1", 10, 170, 700, "holds for every value here.")
	for _, e := range layoutBytes(t, mathDoc(inline).Bytes()) {
		if e.Type == element.Formula {
			t.Errorf("inline formula typed %s: %q", e.Type, e.Text)
		}
	}
}
