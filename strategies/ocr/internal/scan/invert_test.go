package scan

import (
	"image"
	"testing"
)

// TestInvertDark: a dark bar with light marks is inverted exactly to its edges; light paper,
// text strokes and a single heavy stroke are left alone (and a page with nothing dark is
// returned as is, not copied).
func TestInvertDark(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 800, 600))
	for i := range img.Pix {
		img.Pix[i] = 250
	}
	set := func(r image.Rectangle, v uint8) {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				img.Pix[y*img.Stride+x] = v
			}
		}
	}
	// Dark-on-light "text": thin strokes.
	for x := 50; x < 750; x += 9 {
		set(image.Rect(x, 40, x+3, 60), 10)
	}
	if InvertDark(img) != img {
		t.Fatal("page without dark ground was copied")
	}
	bar := image.Rect(103, 201, 611, 263) // not on tile edges
	set(bar, 15)
	for x := 120; x < 590; x += 9 { // light "text" on it
		set(image.Rect(x, 220, x+3, 240), 240)
	}
	stroke := image.Rect(300, 400, 318, 560) // one heavy stroke, one tile wide
	set(stroke, 0)
	out := InvertDark(img)
	if out == img {
		t.Fatal("dark bar not found")
	}
	for _, c := range []struct {
		p    image.Point
		want uint8
	}{
		{image.Pt(104, 202), 240}, {image.Pt(610, 262), 240}, // bar corners: ground now light
		{image.Pt(121, 230), 15},                             // its marks now dark
		{image.Pt(102, 230), 250}, {image.Pt(611, 230), 250}, // paper beside it untouched
		{image.Pt(300, 200), 250}, {image.Pt(300, 263), 250},
		{image.Pt(51, 50), 10},  // ordinary text
		{image.Pt(305, 450), 0}, // heavy stroke kept
	} {
		if got := out.GrayAt(c.p.X, c.p.Y).Y; got != c.want {
			t.Errorf("%v: %d, want %d", c.p, got, c.want)
		}
	}
	if img.GrayAt(104, 202).Y != 15 {
		t.Error("the page image itself was changed")
	}
}
