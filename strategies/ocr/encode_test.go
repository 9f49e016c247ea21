package ocr

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
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
			want := encodePGM(img)
			if bilevel {
				want = encodePBM(img)
			}
			if !sameImage(encodeSPIX(img, bilevel), want) {
				t.Errorf("%dx%d bilevel=%v: spix and PNM differ", size[0], size[1], bilevel)
			}
		}
	}
	big := greyPattern(90, 40, false)
	sub := big.SubImage(image.Rect(13, 5, 70, 33)).(*image.Gray)
	if !sameImage(encodeSPIX(sub, false), encodePGM(sub)) {
		t.Error("sub-image: spix and PGM differ")
	}
	bl := greyPattern(90, 40, true)
	subBl := bl.SubImage(image.Rect(13, 5, 70, 33)).(*image.Gray)
	if !sameImage(encodeSPIX(subBl, true), encodePBM(subBl)) {
		t.Error("bilevel sub-image: spix and PBM differ")
	}
	if sameImage(encodeSPIX(greyPattern(33, 7, false), false), encodePGM(greyPattern(33, 8, false))) {
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

	bl := greyPattern(45, 9, true)
	pal := image.NewPaletted(bl.Bounds(), color.Palette{color.Black, color.White})
	for i, v := range bl.Pix {
		pal.Pix[i] = v / 255
	}
	buf.Reset()
	if err := png.Encode(&buf, pal); err != nil {
		t.Fatal(err)
	}
	got, err = decodeGrey(buf.Bytes(), -1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Pix, bl.Pix) || !isBilevel(got) {
		t.Errorf("1-bit PNG decoded differently")
	}
}

// A page without ruling is not copied and has no mask.
func TestRemoveRulesNoRuling(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 300, 200))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for y := 20; y < 180; y += 20 { // a page of "words": short dark blocks
		for x := 20; x < 280; x++ {
			if x%40 < 30 {
				for k := range 10 {
					img.Pix[(y+k)*img.Stride+x] = 30
				}
			}
		}
	}
	clean, mask := removeRules(img)
	if clean != img || mask != nil {
		t.Errorf("page without ruling: copy %v, mask %v", clean != img, mask != nil)
	}
	grid := drawGrid()
	orig := bytes.Clone(grid.Pix)
	clean, mask = removeRules(grid)
	if clean == grid || mask == nil || !bytes.Equal(grid.Pix, orig) {
		t.Fatal("ruling: the input must stay as it was and the result be a copy with a mask")
	}
	for i, on := range mask.on {
		if on != (clean.Pix[i] == 255 && orig[i] < 128) {
			t.Fatalf("pixel %d: mask %v, before %d, after %d", i, on, orig[i], clean.Pix[i])
		}
	}
}
