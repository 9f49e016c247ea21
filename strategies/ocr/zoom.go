package ocr

import (
	"fmt"
	"image"
	"sort"

	"golang.org/x/image/draw"
)

// Text-height bounds of the reference's Tesseract agent: outside them the image is rescaled so
// that the median word height becomes optimumTextHeight.
const (
	minTextHeight     = 12
	maxTextHeight     = 100
	optimumTextHeight = 20
	maxZoom           = 4
)

// zoomFor returns the factor to scale an image by before reading it again (1 = keep).
func zoomFor(words []Word) float64 {
	var hs []int
	for _, w := range words {
		if w.Conf > 0 && w.Box.Dy() > 0 {
			hs = append(hs, w.Box.Dy())
		}
	}
	if len(hs) < 3 {
		return 1
	}
	sort.Ints(hs)
	h := hs[len(hs)/2]
	if h >= minTextHeight {
		return 1 // large text reads fine; shrinking would only lose detail
	}
	return min(float64(optimumTextHeight)/float64(h), maxZoom)
}

func resize(img *image.Gray, zoom float64) *image.Gray {
	b := img.Bounds()
	dst := image.NewGray(image.Rect(0, 0, int(float64(b.Dx())*zoom+0.5), int(float64(b.Dy())*zoom+0.5)))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

func unzoom(r image.Rectangle, zoom float64, bounds image.Rectangle) image.Rectangle {
	f := func(v int) int { return int(float64(v)/zoom + 0.5) }
	return image.Rect(f(r.Min.X), f(r.Min.Y), f(r.Max.X), f(r.Max.Y)).Intersect(bounds)
}

func encodePGM(img *image.Gray) []byte {
	b := img.Bounds()
	head := fmt.Sprintf("P5\n%d %d\n255\n", b.Dx(), b.Dy())
	out := make([]byte, 0, len(head)+b.Dx()*b.Dy())
	out = append(out, head...)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		off := (y - b.Min.Y) * img.Stride
		out = append(out, img.Pix[off:off+b.Dx()]...)
	}
	return out
}

// isBilevel reports whether a grey image holds only black and white: a scan already
// binarised (fax, 1-bit PNG or TIFF).
func isBilevel(img *image.Gray) bool {
	for _, v := range img.Pix {
		if v != 0 && v != 255 {
			return false
		}
	}
	return true
}

// encodePBM writes a bilevel image as a binary PBM (P4, 1 = black). Tesseract takes a 1-bit
// image as already binarised and skips its own thresholding, which on a large grey page
// costs more than half the recognition time.
func encodePBM(img *image.Gray) []byte {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	head := fmt.Sprintf("P4\n%d %d\n", w, h)
	rowBytes := (w + 7) / 8
	out := make([]byte, len(head), len(head)+rowBytes*h)
	copy(out, head)
	for y := range h {
		row := img.Pix[y*img.Stride : y*img.Stride+w]
		packed := make([]byte, rowBytes)
		for x, v := range row {
			if v < 128 {
				packed[x>>3] |= 0x80 >> (x & 7)
			}
		}
		out = append(out, packed...)
	}
	return out
}

// encodeForOCR is the image Tesseract reads: 1-bit when the page is bilevel, grey otherwise.
func encodeForOCR(img *image.Gray, bilevel bool) []byte {
	if bilevel {
		return encodePBM(img)
	}
	return encodePGM(img)
}
