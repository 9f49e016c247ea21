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

// TestNeedsOSDSideways: confidently read words of several letters in boxes taller than wide
// (text turned a quarter, read as vertical lines) call for orientation detection; the same
// words lying flat, or short words in tall boxes (digits in a column), do not.
func TestNeedsOSDSideways(t *testing.T) {
	var flat, upright, digits []Word
	for i := range 8 {
		flat = append(flat, Word{Text: "water", Conf: 95, Box: image.Rect(0, i*30, 100, i*30+20)})
		upright = append(upright, Word{Text: "water", Conf: 95, Box: image.Rect(i*30, 0, i*30+20, 100)})
		digits = append(digits, Word{Text: "12", Conf: 95, Box: image.Rect(i*30, 0, i*30+14, 20)})
	}
	if NeedsOSD(flat) {
		t.Error("flat words: OSD asked for")
	}
	if !NeedsOSD(upright) {
		t.Error("words in tall boxes: OSD not asked for")
	}
	if NeedsOSD(digits) {
		t.Error("single digits: OSD asked for")
	}
}
