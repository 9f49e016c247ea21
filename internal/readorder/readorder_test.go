package readorder

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/pdf"

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

// Scored against a peer, boxes given in our own raw order agree with it; the same boxes
// reversed do not, and a peer with another page count is refused.
func TestMeasurePeer(t *testing.T) {
	data := page(false)
	d, err := pdf.Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.Page(context.Background(), 1, pdf.DefaultLAParams())
	if err != nil {
		t.Fatal(err)
	}
	var boxes []PeerBox
	for _, b := range p.Boxes {
		boxes = append(boxes, PeerBox{BBox: [4]float64{b.X0, b.Y0, b.X1, b.Y1}, Text: b.Text()})
	}
	if len(boxes) < 4 {
		t.Fatalf("%d boxes, want the title and six paragraphs", len(boxes))
	}
	s, err := MeasurePeer(context.Background(), data, [][]PeerBox{boxes})
	if err != nil {
		t.Fatal(err)
	}
	if s.RawVsPeer < 0.999 || s.PerPage[0].RawVsPeer < 0.999 || s.VsPeer != s.VsRaw {
		t.Errorf("same boxes: raw vs peer %.3f, layout vs peer %.3f (vs raw %.3f)", s.RawVsPeer, s.VsPeer, s.VsRaw)
	}
	slices.Reverse(boxes)
	r, err := MeasurePeer(context.Background(), data, [][]PeerBox{boxes})
	if err != nil {
		t.Fatal(err)
	}
	if r.RawVsPeer > 0.9 || r.VsPeer > 0.9*s.VsPeer {
		t.Errorf("reversed boxes: raw vs peer %.3f, layout vs peer %.3f, want a clear difference", r.RawVsPeer, r.VsPeer)
	}
	if _, err := MeasurePeer(context.Background(), data, [][]PeerBox{boxes, boxes}); err == nil {
		t.Error("no error for a peer of two pages on a one-page PDF")
	}
	if n, _ := Measure(context.Background(), data); n.VsPeer != 0 || n.RawVsPeer != 0 {
		t.Errorf("no peer, yet scored against one: %+v", n)
	}
}
