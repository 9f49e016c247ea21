package ocr

import "image"

// ruleMask marks the pixels of a page that belong to ruling (one byte per pixel, row-major).
type ruleMask struct {
	w, h int
	on   []bool
}

func (m *ruleMask) at(x, y int) bool { return m.on[y*m.w+x] }

// removeRules returns a copy of img with ruling (long, thin, dark horizontal and vertical
// runs: table borders, frames) painted white, and where that ruling was. Tesseract's page
// segmentation reads ruling as characters and splits cells badly; text strokes are never that
// long, and a filled area (a tinted table header) is not thin, so its text stays. The mask
// gives ruled tables their cells.
func removeRules(img *image.Gray) (*image.Gray, *ruleMask) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(b)
	copy(out.Pix, img.Pix)
	mask := &ruleMask{w: w, h: h, on: make([]bool, w*h)}
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
	// A run is a rule when it is thin at most of several points along it: where a rule crosses
	// another (a grid's inner junctions) it is locally thick.
	const samples = 8
	thin := func(at func(k int) int) bool {
		n := 0
		for k := 1; k <= samples; k++ {
			if at(k) <= maxThick {
				n++
			}
		}
		return n >= samples-2
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
			if x-s >= minH && thin(func(k int) int { return thickness(s+k*(x-s)/(samples+1), y, 0, 1) }) {
				o := out.Pix[y*out.Stride:]
				for k := s; k < x; k++ {
					o[k] = 255
					mask.on[y*w+k] = true
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
			if y-s >= minV && thin(func(k int) int { return thickness(x, s+k*(y-s)/(samples+1), 1, 0) }) {
				for k := s; k < y; k++ {
					out.Pix[k*out.Stride+x] = 255
					mask.on[k*w+x] = true
				}
			}
		}
	}
	return out, mask
}
