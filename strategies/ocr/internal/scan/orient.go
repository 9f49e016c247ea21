package scan

import "image"

// NeedsOSD reports whether a page's first reading is poor enough to check its orientation:
// few words read with confidence among many read at all, which is what sideways or inverted
// text gives. Upright pages (most words confident) and empty ones cost nothing more.
//
// Text turned a quarter, though, Tesseract often reads confidently as vertical lines, word
// by word in a scrambled order (a 90° page: every word right, every paragraph jumbled); such
// a page shows as words of several letters whose boxes are taller than wide, and is checked
// too.
func NeedsOSD(words []Word) bool {
	n, good := 0, 0
	for _, w := range words {
		if w.Conf < 0 {
			continue
		}
		n++
		if w.Conf >= 60 && len([]rune(w.Text)) >= 2 {
			good++
		}
	}
	return n >= 5 && good*2 < n || Sideways(words)
}

// Sideways reports whether most words of four letters or more lie in boxes taller than wide:
// text read as vertical lines.
func Sideways(words []Word) bool {
	long, tall := 0, 0
	for _, w := range words {
		if w.Conf < 0 || len([]rune(w.Text)) < 4 {
			continue
		}
		long++
		if w.Box.Dy() > w.Box.Dx() {
			tall++
		}
	}
	return long >= 5 && tall*2 > long
}

// rotate turns img clockwise by quarter turns (1 = 90°), into a new image.
func Rotate(img *image.Gray, quarters int) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch quarters % 4 {
	case 0:
		return img
	case 2:
		out := image.NewGray(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			src := img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):][:w]
			dst := out.Pix[(h-1-y)*out.Stride:][:w]
			for x, v := range src {
				dst[w-1-x] = v
			}
		}
		return out
	}
	out := image.NewGray(image.Rect(0, 0, h, w))
	cw := quarters%4 == 1
	for y := 0; y < h; y++ {
		src := img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):][:w]
		for x, v := range src {
			// Clockwise: (x, y) → (h-1-y, x); counter-clockwise: (x, y) → (y, w-1-x).
			if cw {
				out.Pix[x*out.Stride+h-1-y] = v
			} else {
				out.Pix[(w-1-x)*out.Stride+y] = v
			}
		}
	}
	return out
}

// MeanConf is the mean confidence of the words read (those with one).
func MeanConf(words []Word) float64 {
	sum, n := 0.0, 0
	for _, w := range words {
		if w.Conf >= 0 {
			sum += w.Conf
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
