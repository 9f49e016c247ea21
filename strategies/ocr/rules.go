package ocr

import "image"

// removeRules returns a copy of img with long horizontal and vertical dark runs (table ruling,
// frames) painted white. Tesseract's page segmentation reads ruling as characters and splits
// cells badly; text strokes are never that long.
func removeRules(img *image.Gray) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(b)
	copy(out.Pix, img.Pix)
	const dark = 150
	minH, minV := max(60, w/10), max(60, h/10)
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+w]
		for x := 0; x < w; {
			if row[x] >= dark {
				x++
				continue
			}
			s := x
			for x < w && row[x] < dark {
				x++
			}
			if x-s >= minH {
				o := out.Pix[y*out.Stride:]
				for k := s; k < x; k++ {
					o[k] = 255
				}
			}
		}
	}
	for x := 0; x < w; x++ {
		for y := 0; y < h; {
			if img.Pix[y*img.Stride+x] >= dark {
				y++
				continue
			}
			s := y
			for y < h && img.Pix[y*img.Stride+x] < dark {
				y++
			}
			if y-s >= minV {
				for k := s; k < y; k++ {
					out.Pix[k*out.Stride+x] = 255
				}
			}
		}
	}
	return out
}
