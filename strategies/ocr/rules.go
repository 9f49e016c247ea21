package ocr

import "image"

// removeRules returns a copy of img with ruling (long, thin, dark horizontal and vertical
// runs: table borders, frames) painted white. Tesseract's page segmentation reads ruling as
// characters and splits cells badly; text strokes are never that long, and a filled area (a
// tinted table header) is not thin, so its text stays.
func removeRules(img *image.Gray) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(b)
	copy(out.Pix, img.Pix)
	const dark = 128
	maxThick := max(8, min(w, h)/150)
	isDark := func(x, y int) bool { return x >= 0 && y >= 0 && x < w && y < h && img.Pix[y*img.Stride+x] < dark }
	thickness := func(x, y, dx, dy int) int {
		n := 1
		for k := 1; k <= maxThick+1 && isDark(x+k*dx, y+k*dy); k++ {
			n++
		}
		for k := 1; k <= maxThick+1 && isDark(x-k*dx, y-k*dy); k++ {
			n++
		}
		return n
	}
	minH, minV := max(60, w/10), max(60, h/10)
	for y := 0; y < h; y++ {
		for x := 0; x < w; {
			if !isDark(x, y) {
				x++
				continue
			}
			s := x
			for x < w && isDark(x, y) {
				x++
			}
			if x-s >= minH && thickness(s+(x-s)/4, y, 0, 1) <= maxThick && thickness(s+(x-s)/2, y, 0, 1) <= maxThick && thickness(s+3*(x-s)/4, y, 0, 1) <= maxThick {
				o := out.Pix[y*out.Stride:]
				for k := s; k < x; k++ {
					o[k] = 255
				}
			}
		}
	}
	for x := 0; x < w; x++ {
		for y := 0; y < h; {
			if !isDark(x, y) {
				y++
				continue
			}
			s := y
			for y < h && isDark(x, y) {
				y++
			}
			if y-s >= minV && thickness(x, s+(y-s)/4, 1, 0) <= maxThick && thickness(x, s+(y-s)/2, 1, 0) <= maxThick && thickness(x, s+3*(y-s)/4, 1, 0) <= maxThick {
				for k := s; k < y; k++ {
					out.Pix[k*out.Stride+x] = 255
				}
			}
		}
	}
	return out
}
