package readorder

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// page draws a title and two columns of three paragraphs, the left column first in the
// content stream or, with rightFirst, the right one.
func page(rightFirst bool) []byte {
	col := func(x float64, tag string) string {
		var b strings.Builder
		y := 700.0
		for p := 1; p <= 3; p++ {
			for l := 0; l < 3; l++ {
				s := fmt.Sprintf("%s%d line %d of a paragraph in this column", tag, p, l)
				if l == 2 {
					s = fmt.Sprintf("%s%d ends here.", tag, p)
				}
				b.WriteString(pdftest.Text("F1", 10, x, y, s))
				y -= 12
			}
			y -= 14
		}
		return b.String()
	}
	left, right := col(72, "left"), col(320, "right")
	body := left + right
	if rightFirst {
		body = right + left
	}
	d := pdftest.Doc{Extra: []string{pdftest.Helvetica}}
	d.Pages = []pdftest.Page{{
		Content:   pdftest.Text("F1", 16, 150, 740, "A Title Across Both Columns") + body,
		Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", pdftest.FirstExtra(1)),
	}}
	return d.Bytes()
}

// The content stream's order scores a layout that reads the columns as they were written 1,
// and a stream that draws the right column first tells a different order.
func TestMeasure(t *testing.T) {
	s, err := Measure(context.Background(), page(false))
	if err != nil {
		t.Fatal(err)
	}
	if s.Pages != 1 || len(s.PerPage) != 1 || s.VsStream < 0.999 || s.VsFast <= 0 {
		t.Errorf("written in reading order: %+v", s)
	}
	r, err := Measure(context.Background(), page(true))
	if err != nil {
		t.Fatal(err)
	}
	if r.VsStream > 0.9 {
		t.Errorf("right column drawn first: layout vs stream %.3f, want a clear difference", r.VsStream)
	}
	if _, err := Measure(context.Background(), []byte("not a pdf")); err == nil {
		t.Error("no error on a non-PDF")
	}
}
