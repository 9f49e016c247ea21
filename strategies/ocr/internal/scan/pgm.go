package scan

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"math"
	"strconv"
)

// MaxPixels bounds a page image (about 24000 × 24000); a bigger one is refused rather than
// allocated.
const MaxPixels = 600 << 20

// MaxRenderPixels bounds a rendered PDF page (an A0 poster at 300 DPI is 139 megapixels): a
// larger page is rendered at a lower resolution, so that the page, which is held whole while
// it is read, stays within memory a server can give it.
const MaxRenderPixels = 150 << 20

// RenderPixels is the number of pixels pdftoppm makes of a w × h point page at dpi (each side
// rounded up, with a pixel to spare).
func RenderPixels(dpi int, w, h float64) float64 {
	return (w*float64(dpi)/72 + 2) * (h*float64(dpi)/72 + 2)
}

// FitDPI is dpi, or the highest lower resolution at which a w × h point page renders to at
// most limit pixels (1 at the least).
func FitDPI(dpi int, w, h, limit float64) int {
	for dpi > 1 && RenderPixels(dpi, w, h) > limit {
		dpi = max(1, min(dpi-1, int(float64(dpi)*math.Sqrt(limit/RenderPixels(dpi, w, h)))))
	}
	return dpi
}

// ParsePGM reads a binary 8-bit PGM (P5) as produced by pdftoppm -gray. The image shares b's
// pixel bytes: a page is not copied.
func ParsePGM(b []byte) (*image.Gray, error) {
	if !bytes.HasPrefix(b, []byte("P5")) {
		return nil, errors.New("pgm: not a binary greymap")
	}
	pos := 2
	var vals [3]int
	for i := range vals {
		// Skip whitespace and comments.
		for pos < len(b) {
			if b[pos] == '#' {
				for pos < len(b) && b[pos] != '\n' {
					pos++
				}
				continue
			}
			if b[pos] == ' ' || b[pos] == '\t' || b[pos] == '\n' || b[pos] == '\r' {
				pos++
				continue
			}
			break
		}
		start := pos
		for pos < len(b) && b[pos] >= '0' && b[pos] <= '9' {
			pos++
		}
		n, err := strconv.Atoi(string(b[start:pos]))
		if err != nil {
			return nil, fmt.Errorf("pgm: bad header: %w", err)
		}
		vals[i] = n
	}
	pos++ // the single whitespace after maxval
	w, h, maxval := vals[0], vals[1], vals[2]
	if w <= 0 || h <= 0 || w*h > MaxPixels || maxval != 255 {
		return nil, fmt.Errorf("pgm: unsupported image %dx%d maxval %d", w, h, maxval)
	}
	if len(b)-pos < w*h {
		return nil, errors.New("pgm: truncated")
	}
	return &image.Gray{Pix: b[pos : pos+w*h : pos+w*h], Stride: w, Rect: image.Rect(0, 0, w, h)}, nil
}
