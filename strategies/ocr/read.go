//go:build cgo

package ocr

import (
	"image"

	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// Pages (zoom included) of more than bandFrom pixels are read in horizontal bands of about
// bandPixels pixels (at least minBandRows rows): Tesseract's working memory follows the image
// it is given, and on a 40-megapixel page of dense text it outgrows the page itself. Ordinary
// pages (A4 or Letter at 300 DPI, about 9 megapixels, and their zoomed copies up to 16) are
// read whole, as before.
const (
	bandFrom    = 16 << 20
	bandPixels  = 6 << 20
	minBandRows = 512
)

// read recognises a page (zoom > 1: a copy scaled up by zoom, for small text) and returns the
// words in the page's pixels. A large page is read band by band, each band cut where the page
// is blank (scan.Bands), scaled and encoded on its own, so neither the encoding nor Tesseract
// ever holds more than a band; the bands' words are put back in page coordinates, in band
// order. bilevel applies to an unscaled page only (resampling makes grey).
func (t *tesseract) read(img *image.Gray, bilevel bool, zoom float64, langs string) ([]scan.Word, error) {
	b := img.Bounds()
	zoom = max(zoom, 1)
	rows := 0 // whole
	if float64(b.Dx())*float64(b.Dy())*zoom*zoom > bandFrom {
		rows = max(int(bandPixels/(float64(b.Dx())*zoom*zoom)), minBandRows)
	}
	return t.readBands(img, bilevel, zoom, langs, rows)
}

// readBands is read with bands of about rows rows (0: the page whole).
func (t *tesseract) readBands(img *image.Gray, bilevel bool, zoom float64, langs string, rows int) ([]scan.Word, error) {
	b := img.Bounds()
	bands := []image.Rectangle{b}
	if rows > 0 {
		bands = scan.Bands(img, rows)
	}
	if len(bands) == 1 {
		return t.readBand(img, bilevel, zoom, langs)
	}
	var words []scan.Word
	for _, band := range bands {
		ws, err := t.readBand(img.SubImage(band).(*image.Gray), bilevel, zoom, langs)
		if err != nil {
			return nil, err
		}
		words = scan.AppendBand(words, ws, band.Min.Sub(b.Min))
	}
	return words, nil
}

// readBand recognises img (or img scaled by zoom) in one call, the words in img's pixels
// counted from its top-left corner.
func (t *tesseract) readBand(img *image.Gray, bilevel bool, zoom float64, langs string) ([]scan.Word, error) {
	if zoom <= 1 {
		return t.recognize(scan.EncodeForOCR(img, bilevel), langs)
	}
	big := scan.Resize(img, zoom)
	words, err := t.recognize(scan.EncodeForOCR(big, false), langs)
	size := image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy())
	for i := range words {
		words[i].Box = scan.Unzoom(words[i].Box, zoom, size)
	}
	return words, err
}
