package scan

import (
	"bytes"
	"image"
	"testing"
)

// turn rotates an image clockwise by quarter turns through image.Image's At/Set, independent
// of the package's own rotate.
func turn(src image.Image, quarters int) *image.Gray {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	var out *image.Gray
	if quarters%2 == 1 {
		out = image.NewGray(image.Rect(0, 0, h, w))
	} else {
		out = image.NewGray(image.Rect(0, 0, w, h))
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := src.At(b.Min.X+x, b.Min.Y+y)
			switch quarters % 4 {
			case 0:
				out.Set(x, y, c)
			case 1:
				out.Set(h-1-y, x, c)
			case 2:
				out.Set(w-1-x, h-1-y, c)
			case 3:
				out.Set(y, w-1-x, c)
			}
		}
	}
	return out
}

func TestRotate(t *testing.T) {
	src := greyPattern(7, 4, false)
	for q := 0; q < 4; q++ {
		if got, want := Rotate(src, q), turn(src, q); !bytes.Equal(got.Pix, want.Pix) || got.Bounds() != want.Bounds() {
			t.Errorf("%d quarter turns differ", q)
		}
	}
	sub := greyPattern(20, 9, false).SubImage(image.Rect(3, 2, 17, 8)).(*image.Gray)
	if got, want := Rotate(sub, 1), turn(sub, 1); !bytes.Equal(got.Pix, want.Pix) {
		t.Error("sub-image turned wrongly")
	}
}
