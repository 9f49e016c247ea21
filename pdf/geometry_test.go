package pdf

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"math"
	"strings"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 0.01 }

func TestStrokedLineUnderCTM(t *testing.T) {
	p := readPage(t, onePage("<< >>", "q 2 0 0 2 10 10 cm 1.5 w 0 0 m 100 0 l S Q"))
	g := p.Geometry
	if len(g.Segments) != 1 {
		t.Fatalf("segments = %+v", g.Segments)
	}
	s := g.Segments[0]
	if !near(s.X0, 10) || !near(s.X1, 210) || !near(s.Y0, 10) || !near(s.Y1, 10) || !near(s.Width, 3) || s.Kind != SegStroke {
		t.Errorf("segment = %+v, want (10,10)-(210,10) width 3 stroke", s)
	}
}

func TestRectanglesAndRules(t *testing.T) {
	p := readPage(t, onePage("<< >>", strings.Join([]string{
		"10 20 100 50 re S",                                    // stroked rectangle
		"0.5 g 10 100 200 0.5 re f",                            // thin filled: a horizontal rule
		"0 g 300 100 0.8 150 re f",                             // thin filled: a vertical rule
		"1 g 10 300 100 100 re f",                              // white filled rectangle
		"0 0 1 rg 200 300 m 250 300 l 250 350 l 200 350 l h f", // rectangle as a polygon
		"400 400 m 450 400 l 425 450 l h f",                    // triangle: fill edges
		"10 500 m 50 550 60 560 100 500 c S",                   // curve
	}, "\n")))
	g := p.Geometry
	if len(g.Rects) != 3 {
		t.Fatalf("rects = %+v", g.Rects)
	}
	if r := g.Rects[0]; !r.Stroke || r.Fill || !near(r.X0, 10) || !near(r.Y1, 70) || !near(r.LineWidth, 1) {
		t.Errorf("stroked rect = %+v", r)
	}
	if r := g.Rects[1]; !r.Fill || r.FillGray != 1 {
		t.Errorf("white rect = %+v", r)
	}
	if r := g.Rects[2]; !r.Fill || !near(r.X0, 200) || !near(r.X1, 250) || !near(r.Y0, 300) || !near(r.Y1, 350) || r.FillGray > 0.2 {
		t.Errorf("polygon rect = %+v", r)
	}
	var rules, edges, curves int
	for _, s := range g.Segments {
		switch s.Kind {
		case SegRule:
			rules++
			if s.Horizontal(0.01) && (!near(s.Y0, 100.25) || !near(s.Width, 0.5) || !near(float64(s.Gray), 0.5)) {
				t.Errorf("horizontal rule = %+v", s)
			}
			if s.Vertical(0.01) && (!near(s.X0, 300.4) || !near(s.Y0, 100) || !near(s.Y1, 250)) {
				t.Errorf("vertical rule = %+v", s)
			}
		case SegFillEdge:
			edges++
		case SegCurve:
			curves++
		}
	}
	if rules != 2 || edges != 3 || curves != 1 {
		t.Errorf("rules, fill edges, curves = %d, %d, %d; want 2, 3, 1: %+v", rules, edges, curves, g.Segments)
	}
}

func TestTouchingPiecesMerge(t *testing.T) {
	var b strings.Builder
	for x := 0; x < 10; x++ {
		fmt.Fprintf(&b, "%d 100 m %d 100 l S\n", 10+x*20, 30+x*20)
	}
	b.WriteString("10 200 m 50 200 l S 60 200 m 90 200 l S\n") // a gap: two segments
	p := readPage(t, onePage("<< >>", b.String()))
	segs := p.Geometry.Segments
	if len(segs) != 3 || !near(segs[0].X0, 10) || !near(segs[0].X1, 210) {
		t.Errorf("segments = %+v, want one merged 10..210 then two", segs)
	}
}

func TestDegenerateLines(t *testing.T) {
	p := readPage(t, onePage("<< /Font << /F1 5 0 R >> >>",
		"0 0 m 0 0 l S 5 5 m S 10 10 0 0 re f 1e400 0 m 5 5 l S 0 w 10 10 m 100 10 l S BT /F1 12 Tf 72 700 Td (text) Tj ET", helv))
	segs := p.Geometry.Segments
	if len(segs) != 1 || segs[0].Width != 0 || !near(segs[0].X1, 100) {
		t.Errorf("segments = %+v, want the one hairline", segs)
	}
	if len(p.Boxes) != 1 {
		t.Errorf("text lost: %v", boxTexts(p))
	}
}

func TestClipHidesContent(t *testing.T) {
	p := readPage(t, onePage("<< /Font << /F1 5 0 R >> /XObject << /Im1 6 0 R >> >>", strings.Join([]string{
		"q 0 0 300 300 re W n",
		"400 400 m 500 400 l S",                  // outside: hidden
		"100 100 m 500 100 l S",                  // cut at x=300
		"q 50 0 0 50 350 350 cm /Im1 Do Q",       // image outside: hidden
		"BT /F1 12 Tf 400 500 Td (hidden) Tj ET", // glyphs outside: marked
		"BT /F1 12 Tf 50 200 Td (shown) Tj ET",
		"Q",
		"q 0 0 m W n 10 10 m 100 10 l S Q", // empty clip hides everything
		"450 450 m 500 450 l S",            // after Q: visible again
	}, "\n"), helv, stream("/Type /XObject /Subtype /Image /Width 4 /Height 4 /ColorSpace /DeviceGray /BitsPerComponent 8", strings.Repeat("\x80", 16))))
	g := p.Geometry
	if len(g.Segments) != 2 || !near(g.Segments[0].X1, 300) || !near(g.Segments[1].Y0, 450) {
		t.Errorf("segments = %+v", g.Segments)
	}
	if len(g.Images) != 0 {
		t.Errorf("images = %+v", g.Images)
	}
	clipped := 0
	for _, gl := range p.Glyphs {
		if gl.Clipped {
			clipped++
		}
	}
	if clipped != len("hidden") {
		t.Errorf("clipped glyphs = %d, want %d", clipped, len("hidden"))
	}
	// pdfminer does not clip: the fast strategy's boxes keep both texts.
	if got := boxTexts(p); len(got) != 2 {
		t.Errorf("boxes = %q", got)
	}
	if g.Hidden < 5 {
		t.Errorf("hidden = %d", g.Hidden)
	}
}

func TestImagePlacements(t *testing.T) {
	form := stream("/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << /XObject << /Im1 6 0 R >> >>",
		"q 100 0 0 100 0 0 cm /Im1 Do Q")
	p := readPage(t, onePage("<< /XObject << /Im1 6 0 R /Fm 7 0 R >> >>", strings.Join([]string{
		"q 200 0 0 100 20 30 cm /Im1 Do Q",
		"q 0 50 -40 0 300 300 cm /Im1 Do Q", // rotated
		"q 10 0 0 20 5 600 cm BI /W 2 /H 3 /CS /G /BPC 8 /F /DCT ID \xff\xd8 junk EI Q",
		"q 1 0 0 1 400 400 cm /Fm Do Q",
	}, "\n"), "<< >>", stream("/Type /XObject /Subtype /Image /Width 4 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", "x"), form))
	im := p.Geometry.Images
	if len(im) != 4 {
		t.Fatalf("images = %+v", im)
	}
	want := [][4]float64{{20, 30, 220, 130}, {260, 300, 300, 350}, {5, 600, 15, 620}, {400, 400, 500, 500}}
	for i, w := range want {
		if !near(im[i].X0, w[0]) || !near(im[i].Y0, w[1]) || !near(im[i].X1, w[2]) || !near(im[i].Y1, w[3]) {
			t.Errorf("image %d box = %v,%v,%v,%v want %v", i, im[i].X0, im[i].Y0, im[i].X1, im[i].Y1, w)
		}
	}
	if im[0].PixW != 4 || im[0].PixH != 2 || im[0].Ref != 6 || im[0].Filter != "FlateDecode" || im[0].Inline {
		t.Errorf("xobject image = %+v", im[0])
	}
	if !im[2].Inline || im[2].PixW != 2 || im[2].PixH != 3 || im[2].Filter != "DCTDecode" {
		t.Errorf("inline image = %+v", im[2])
	}
}

// A page drawing a million segments (a map, a dense chart) finishes quickly and keeps a
// bounded number of them, reporting the rest.
func TestMillionSegmentsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20 MB content stream")
	}
	var b strings.Builder
	b.Grow(24 << 20)
	for i := 0; i < 1_000_000; i++ {
		x, y := i%500, (i/500)%700
		fmt.Fprintf(&b, "%d %d m %d %d l S\n", x, y, x+1, y+3)
	}
	// and one path of a million points
	b.WriteString("0 0 m\n")
	for i := 0; i < 1_000_000; i++ {
		fmt.Fprintf(&b, "%d %d l\n", i%600, i%17)
	}
	b.WriteString("S\n")
	start := time.Now()
	p := readPage(t, onePage("<< >>", b.String()))
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("page took %v", el)
	}
	g := p.Geometry
	if n := len(g.Segments) + len(g.Rects); n > MaxPathItems {
		t.Errorf("kept %d items, bound %d", n, MaxPathItems)
	}
	if g.Dropped < 1_000_000 || g.DroppedX1 < 499 || g.DroppedY1 < 600 {
		t.Errorf("dropped = %d box %v,%v,%v,%v", g.Dropped, g.DroppedX0, g.DroppedY0, g.DroppedX1, g.DroppedY1)
	}
}

func TestImageJPEG(t *testing.T) {
	jpegData := tinyJPEG(3, 2)
	data := onePage("<< >>", "", stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", jpegData),
		stream("/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8", "\x00\xff\xff\x00"),
		stream("/Type /XObject /Subtype /Image /Width 2 /Height 1 /ColorSpace /DeviceRGB /BitsPerComponent 8", "\xff\x00\x00\x00\x00\xff"),
		stream("/Type /XObject /Subtype /Image /Width 8 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 1", "\xaa"))
	d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := d.ImageJPEG(5); !ok || string(b) != jpegData {
		t.Errorf("DCT image: %v %q", ok, b)
	}
	for _, ref := range []int{6, 7} {
		b, ok := d.ImageJPEG(ref)
		if !ok {
			t.Fatalf("object %d not encoded", ref)
		}
		img, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil || img.Bounds().Dx() != 2 {
			t.Errorf("object %d: %v %v", ref, err, img.Bounds())
		}
	}
	if b, ok := d.ImageJPEG(8); !ok || len(b) < 4 {
		t.Error("a 1-bit image was not encoded")
	}
	if _, ok := d.ImageJPEG(4); ok {
		t.Error("a content stream was taken for an image")
	}
}
