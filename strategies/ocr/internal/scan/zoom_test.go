package scan

import (
	"image"
	"testing"
)

// ShrinkFactor is the smallest whole factor whose reduced image (sides rounded up) fits.
func TestShrinkFactor(t *testing.T) {
	for _, c := range []struct{ w, h, k int }{
		{1000, 1000, 1}, {12288, 12800, 1}, {16000, 12000, 2}, {24000, 24000, 2}, {30001, 30001, 3},
	} {
		if k := ShrinkFactor(c.w, c.h, MaxRenderPixels); k != c.k {
			t.Errorf("%d×%d: factor %d, want %d", c.w, c.h, k, c.k)
		}
		k := ShrinkFactor(c.w, c.h, MaxRenderPixels)
		if dw, dh := (c.w+k-1)/k, (c.h+k-1)/k; float64(dw)*float64(dh) > MaxRenderPixels {
			t.Errorf("%d×%d reduced by %d is %d×%d, over the limit", c.w, c.h, k, dw, dh)
		}
	}
}

// Shrink averages k × k blocks, the last partial ones included: a one-pixel dark line is grey,
// not lost, and the size is rounded up.
func TestShrink(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 7, 5))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for x := range 7 {
		img.Pix[1*img.Stride+x] = 0 // a dark line on row 1
	}
	img.Pix[4*img.Stride+6] = 0 // a dark corner pixel: its partial block is column 6, rows 3-4
	got := Shrink(img, 3)
	if b := got.Bounds(); b.Dx() != 3 || b.Dy() != 2 {
		t.Fatalf("size %v, want 3×2", b)
	}
	if v := got.GrayAt(0, 0).Y; v != 170 {
		t.Errorf("block over the line: %d, want 170 (one dark row of three)", v)
	}
	if v := got.GrayAt(2, 1).Y; v != 128 {
		t.Errorf("partial corner block: %d, want 128 (one of its two pixels is dark)", v)
	}
	if Shrink(img, 1) != img {
		t.Error("factor 1 copies")
	}
}
