package scan

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"
)

// textLines draws text-like lines: rows of short dark dashes (words) with gaps between lines.
func textLines(w, h int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 235 // grey paper
	}
	for y0 := 80; y0+14 < h-80; y0 += 36 {
		for x := 70; x < w-70; x++ {
			if (x/45)%4 == 3 { // word gaps
				continue
			}
			for y := y0; y < y0+14; y++ {
				if (x+y)%3 != 0 {
					img.Pix[y*img.Stride+x] = 20
				}
			}
		}
	}
	return img
}

// TestFindSkew: tilts of 1-5° either way, upright or sideways, are found to within 0.2°, and
// a level page, a blank page and a page of noise report none.
func TestFindSkew(t *testing.T) {
	page := textLines(900, 1200)
	if a := FindSkew(page); a != 0 {
		t.Errorf("level page: skew %.2f°, want 0", a)
	}
	for _, deg := range []float64{1, -1.5, 2, 3, -4, 5} {
		for q := 0; q < 2; q++ {
			tilted := Deskew(Rotate(page, q), -deg) // Deskew(-a) tilts by +a
			got := FindSkew(tilted)
			if math.Abs(got-deg) > 0.2 {
				t.Errorf("%.1f° (%d°): found %.2f°", deg, q*90, got)
			}
			if back := FindSkew(Deskew(tilted, got)); back != 0 {
				t.Errorf("%.1f° (%d°): after deskew still %.2f°", deg, q*90, back)
			}
		}
	}
	blank := image.NewGray(image.Rect(0, 0, 500, 500))
	for i := range blank.Pix {
		blank.Pix[i] = 255
	}
	if a := FindSkew(blank); a != 0 {
		t.Errorf("blank page: skew %.2f°", a)
	}
	noise := image.NewGray(image.Rect(0, 0, 500, 500))
	r := rand.New(rand.NewPCG(7, 7))
	for i := range noise.Pix {
		noise.Pix[i] = uint8(r.IntN(256))
	}
	if a := FindSkew(noise); a != 0 {
		t.Errorf("noise: skew %.2f°", a)
	}
}
