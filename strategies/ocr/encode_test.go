//go:build cgo

package ocr

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// greyPattern is a w×h grey image whose pixels all differ from their neighbours, so a pixel
// shifted or swapped inside a word shows.
func greyPattern(w, h int, bilevel bool) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := uint8(x*7 + y*13 + x*y)
			if bilevel {
				v = uint8(255 * ((x/3 + y + x*x) % 2))
			}
			img.Pix[y*img.Stride+x] = v
		}
	}
	return img
}

// Tesseract must read exactly the pixels it read from PGM and PBM, whatever the width (rows
// not a whole number of words) and for a sub-image (stride wider than the image).
func TestSPIXMatchesPNM(t *testing.T) {
	// (leptonica reads no image file under 12 bytes, hence no tiny PBM)
	for _, size := range [][2]int{{1, 64}, {3, 30}, {4, 24}, {31, 3}, {32, 5}, {33, 7}, {101, 17}} {
		for _, bilevel := range []bool{false, true} {
			img := greyPattern(size[0], size[1], bilevel)
			want := scan.EncodePGM(img)
			if bilevel {
				want = scan.EncodePBM(img)
			}
			if !sameImage(scan.EncodeSPIX(img, bilevel), want) {
				t.Errorf("%dx%d bilevel=%v: spix and PNM differ", size[0], size[1], bilevel)
			}
		}
	}
	big := greyPattern(90, 40, false)
	sub := big.SubImage(image.Rect(13, 5, 70, 33)).(*image.Gray)
	if !sameImage(scan.EncodeSPIX(sub, false), scan.EncodePGM(sub)) {
		t.Error("sub-image: spix and PGM differ")
	}
	bl := greyPattern(90, 40, true)
	subBl := bl.SubImage(image.Rect(13, 5, 70, 33)).(*image.Gray)
	if !sameImage(scan.EncodeSPIX(subBl, true), scan.EncodePBM(subBl)) {
		t.Error("bilevel sub-image: spix and PBM differ")
	}
	if sameImage(scan.EncodeSPIX(greyPattern(33, 7, false), false), scan.EncodePGM(greyPattern(33, 8, false))) {
		t.Error("sameImage does not tell images apart")
	}
}

// decodeGrey copies leptonica's raster row by row: the pixels come out as written, for an
// 8-bit grey PNG of odd width and for a 1-bit paletted one (a fax-like scan).
func TestDecodeGreyPixels(t *testing.T) {
	want := greyPattern(37, 11, false)
	var buf bytes.Buffer
	if err := png.Encode(&buf, want); err != nil {
		t.Fatal(err)
	}
	got, err := decodeGrey(buf.Bytes(), -1)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Bounds().Eq(want.Bounds()) || !bytes.Equal(got.Pix, want.Pix) {
		t.Errorf("grey PNG decoded differently")
	}

	// Both palette orders: leptonica drops a black-and-white palette from a 1-bit PNG and
	// keeps 1 = black.
	bl := greyPattern(45, 9, true)
	for _, palette := range []color.Palette{{color.Black, color.White}, {color.White, color.Black}} {
		pal := image.NewPaletted(bl.Bounds(), palette)
		for i, v := range bl.Pix {
			pal.Pix[i] = uint8(palette.Index(color.Gray{Y: v}))
		}
		buf.Reset()
		if err := png.Encode(&buf, pal); err != nil {
			t.Fatal(err)
		}
		got, err = decodeGrey(buf.Bytes(), -1)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Pix, bl.Pix) || !scan.IsBilevel(got) {
			t.Errorf("1-bit PNG (palette %v) decoded differently", palette)
		}
	}
}
