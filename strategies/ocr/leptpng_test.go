//go:build cgo

package ocr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"

	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// TestPNGRowDecoder: colour PNGs decoded row by row give exactly the grey pixels of
// leptonica's full decode (darkest channel), for truecolour, alpha, 16-bit and palette images,
// odd sizes included; grey PNGs are left to leptonica.
func TestPNGRowDecoder(t *testing.T) {
	const w, h = 37, 23
	val := func(x, y, k int) uint8 { return uint8(x*7 + y*13 + k*61 + x*y*k) }
	rgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	rgb := image.NewRGBA(image.Rect(0, 0, w, h))
	deep := image.NewRGBA64(image.Rect(0, 0, w, h))
	pal := make(color.Palette, 16)
	for i := range pal {
		pal[i] = color.NRGBA{uint8(i * 16), uint8(255 - i*9), uint8(i * i), uint8(255 - i*3)}
	}
	paletted := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			rgba.SetNRGBA(x, y, color.NRGBA{val(x, y, 0), val(x, y, 1), val(x, y, 2), val(x, y, 3)})
			rgb.SetRGBA(x, y, color.RGBA{val(x, y, 0), val(x, y, 1), val(x, y, 2), 255})
			deep.SetRGBA64(x, y, color.RGBA64{uint16(val(x, y, 0)) * 257, uint16(val(x, y, 1))*257 + 100, uint16(val(x, y, 2)) * 251, 65535})
			paletted.SetColorIndex(x, y, uint8((x+y)%16))
		}
	}
	for name, img := range map[string]image.Image{"rgba": rgba, "rgb": rgb, "16-bit": deep, "palette": paletted} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		got, ok, err := decodePNGGrey(buf.Bytes())
		if !ok || err != nil {
			t.Fatalf("%s: not decoded (ok=%v, err=%v)", name, ok, err)
		}
		want, err := decodeLeptonica(buf.Bytes(), -1)
		if err != nil {
			t.Fatal(err)
		}
		if got.Bounds() != want.Bounds() || !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%s: row decoder and leptonica differ", name)
		}
	}
	var grey bytes.Buffer
	png.Encode(&grey, greyPattern(w, h, false))
	if _, ok, _ := decodePNGGrey(grey.Bytes()); ok {
		t.Error("grey PNG taken by the row decoder")
	}
	if _, ok, _ := decodePNGGrey([]byte("\x89PNG\r\n\x1a\n\x00\x00")); ok {
		t.Error("truncated PNG claimed")
	}
}

// TestJPEGRowDecoder: colour JPEGs decoded scanline by scanline give exactly leptonica's grey
// pixels; grey JPEGs are left to leptonica.
func TestJPEGRowDecoder(t *testing.T) {
	const w, h = 53, 29
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetRGBA(x, y, color.RGBA{uint8(x * 5), uint8(y * 9), uint8(x*y + 40), 255})
		}
	}
	for _, q := range []int{50, 95} {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
			t.Fatal(err)
		}
		got, ok, err := decodeJPEGGrey(buf.Bytes())
		if !ok || err != nil {
			t.Fatalf("quality %d: not decoded (ok=%v, err=%v)", q, ok, err)
		}
		want, err := decodeLeptonica(buf.Bytes(), -1)
		if err != nil {
			t.Fatal(err)
		}
		if got.Bounds() != want.Bounds() || !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("quality %d: scanline decoder and leptonica differ", q)
		}
	}
	ref, err := os.ReadFile(filepath.Join(refDir, "docs", "example.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := decodeJPEGGrey(ref); ok && err == nil {
		want, _ := decodeLeptonica(ref, -1)
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Error("example.jpg: scanline decoder and leptonica differ")
		}
	}
	// Grey JPEGs too: libjpeg's own grey samples, as leptonica keeps them.
	var grey bytes.Buffer
	jpeg.Encode(&grey, greyPattern(w, h, false), nil)
	got, ok, err := decodeJPEGGrey(grey.Bytes())
	if !ok || err != nil {
		t.Fatalf("grey JPEG not decoded (ok=%v, err=%v)", ok, err)
	}
	if want, err := decodeLeptonica(grey.Bytes(), -1); err != nil || !bytes.Equal(got.Pix, want.Pix) {
		t.Errorf("grey JPEG: scanline decoder and leptonica differ (err %v)", err)
	}
	// A file cut in its scan is an error, not an image filled with grey past the cut.
	cut := grey.Bytes()[:grey.Len()*2/3]
	if _, ok, err := decodeJPEGGrey(cut); !ok || err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated JPEG: ok=%v err=%v", ok, err)
	}
}

// TestJPEGScaledDecode: a colour JPEG reduced by k is decoded by libjpeg at 1/2, 1/4 or 1/8
// scale and the rest reduced after: the result has exactly the size of the full decode
// reduced by k (odd sizes included, so that boxes scale back to the same pixels) and about its
// pixels (DCT scaling is not a block mean, but close); an odd k decodes at full size.
func TestJPEGScaledDecode(t *testing.T) {
	const w, h = 203, 117
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(255)
			if (x/7+y/5)%3 == 0 {
				v = uint8(40 + x%50)
			}
			img.SetRGBA(x, y, color.RGBA{v, v / 2, v, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	full, err := decodeGrey(buf.Bytes(), -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ k, denom int }{{2, 2}, {3, 1}, {4, 4}, {6, 2}, {8, 8}, {16, 8}, {24, 8}} {
		if d := jpegDenom(c.k); d != c.denom {
			t.Errorf("k %d: libjpeg scale 1/%d, want 1/%d", c.k, d, c.denom)
		}
		limit := float64((w+c.k-1)/c.k) * float64((h+c.k-1)/c.k)
		got, k, err := decodeGreyFit(buf.Bytes(), -1, limit)
		if err != nil || k != c.k {
			t.Fatalf("k %d: reduced by %d (err %v)", c.k, k, err)
		}
		want := scan.Shrink(full, c.k)
		if got.Bounds() != want.Bounds() {
			t.Fatalf("k %d: %v, want %v", c.k, got.Bounds(), want.Bounds())
		}
		var diff int
		for i := range got.Pix {
			diff += max(int(got.Pix[i])-int(want.Pix[i]), int(want.Pix[i])-int(got.Pix[i]))
		}
		if mean := float64(diff) / float64(len(got.Pix)); mean > 8 {
			t.Errorf("k %d: mean difference %.1f grey levels from the block mean", c.k, mean)
		}
	}
}

// TestTIFFRowDecoder: 8-bit grey and colour TIFF frames decoded a scanline at a time give
// exactly leptonica's grey pixels, uncompressed and deflated, in a multi-frame file too;
// bilevel frames are left to leptonica.
func TestTIFFRowDecoder(t *testing.T) {
	const w, h = 53, 29
	rgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			rgba.SetNRGBA(x, y, color.NRGBA{uint8(x * 5), uint8(y * 9), uint8(x*y + 40), 255})
		}
	}
	grey := greyPattern(w, h, false)
	for _, src := range []image.Image{rgba, grey} {
		for _, comp := range []tiff.CompressionType{tiff.Uncompressed, tiff.Deflate} {
			var buf bytes.Buffer
			if err := tiff.Encode(&buf, src, &tiff.Options{Compression: comp}); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%T compression %d", src, comp)
			got, ok, err := decodeTIFFGrey(buf.Bytes(), 0)
			if !ok || err != nil {
				t.Fatalf("%s: not decoded (ok=%v, err=%v)", name, ok, err)
			}
			want, err := decodeLeptonica(buf.Bytes(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if got.Bounds() != want.Bounds() || !bytes.Equal(got.Pix, want.Pix) {
				t.Errorf("%s: scanline decoder and leptonica differ", name)
			}
		}
	}
	// The second frame of a two-frame file is the second page.
	two := twoFrameTIFF(grey.Pix, w, h)
	got, ok, err := decodeTIFFGrey(two, 1)
	if !ok || err != nil || !bytes.Equal(got.Pix, grey.Pix) {
		t.Errorf("frame 1: ok=%v err=%v", ok, err)
	}
	if _, ok, _ := decodeTIFFGrey(two, 2); ok {
		t.Error("a third frame of a two-frame TIFF claimed")
	}
	// A bilevel TIFF (Go's encoder writes a black-and-white paletted image at 1 bit).
	bw := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	var buf bytes.Buffer
	if err := tiff.Encode(&buf, bw, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := decodeTIFFGrey(buf.Bytes(), 0); ok {
		t.Error("bilevel TIFF taken by the scanline decoder")
	}
	if _, ok, _ := decodeTIFFGrey([]byte("II*\x00\x08\x00\x00\x00"), 0); ok {
		t.Error("truncated TIFF claimed")
	}
}

// TestReducedAsRowsCome: a grey or colour TIFF and a grey JPEG over the limit are reduced as
// their rows are decoded, never held at full size: the TIFFs give exactly the full decode's
// block means, as do JPEGs whose factor libjpeg cannot scale by (odd k); an even k has libjpeg
// decode at a smaller scale first, close to the block means. Sizes are odd, so the last
// blocks are partial.
func TestReducedAsRowsCome(t *testing.T) {
	const w, h = 203, 117
	rgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(255)
			if (x/7+y/5)%3 == 0 {
				v = uint8(40 + x%50)
			}
			rgba.SetNRGBA(x, y, color.NRGBA{v, v / 2, uint8(x * y), 255})
		}
	}
	grey := greyPattern(w, h, false)
	type file struct {
		name  string
		data  []byte
		exact bool // every k gives the block means exactly
	}
	var files []file
	for _, src := range []image.Image{rgba, grey} {
		for _, comp := range []tiff.CompressionType{tiff.Uncompressed, tiff.Deflate} {
			var buf bytes.Buffer
			if err := tiff.Encode(&buf, src, &tiff.Options{Compression: comp}); err != nil {
				t.Fatal(err)
			}
			files = append(files, file{fmt.Sprintf("%T TIFF compression %d", src, comp), buf.Bytes(), true})
		}
	}
	var gj bytes.Buffer
	if err := jpeg.Encode(&gj, grey, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	files = append(files, file{"grey JPEG", gj.Bytes(), false})
	for _, f := range files {
		full, err := decodeGrey(f.data, -1)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		for _, k := range []int{2, 3, 4, 5, 8} {
			limit := float64((w+k-1)/k) * float64((h+k-1)/k)
			got, gk, err := decodeGreyFit(f.data, -1, limit)
			if err != nil || gk != k {
				t.Fatalf("%s, k %d: reduced by %d (err %v)", f.name, k, gk, err)
			}
			want := scan.Shrink(full, k)
			if got.Bounds() != want.Bounds() {
				t.Fatalf("%s, k %d: %v, want %v", f.name, k, got.Bounds(), want.Bounds())
			}
			var diff int
			for i := range got.Pix {
				diff += max(int(got.Pix[i])-int(want.Pix[i]), int(want.Pix[i])-int(got.Pix[i]))
			}
			mean := float64(diff) / float64(len(got.Pix))
			if exact := f.exact || jpegDenom(k) == 1; exact && diff != 0 || mean > 8 {
				t.Errorf("%s, k %d: mean difference %.2f grey levels from the block means (exact: %v)", f.name, k, mean, exact)
			}
		}
	}
}

// TestBMPAndPNMRowDecoders: uncompressed BMPs (24-bit, 32-bit with alpha, 8-bit palette of
// colours and of greys, top-down rows) and binary PGM/PPM files read a row at a time give
// exactly leptonica's grey pixels at full size, and the block means reduced; a BMP shorter
// than its rows is an error before anything is read.
func TestBMPAndPNMRowDecoders(t *testing.T) {
	const w, h = 53, 29
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	nrgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	pal := make(color.Palette, 200)
	for i := range pal {
		pal[i] = color.RGBA{uint8(i), uint8(255 - i), uint8(i * 7), 255}
	}
	paletted := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{uint8(x * 5), uint8(y * 9), uint8(x*y + 40), 255}
			rgba.SetRGBA(x, y, c)
			nrgba.SetNRGBA(x, y, color.NRGBA{c.R, c.G, c.B, uint8(100 + x)})
			paletted.SetColorIndex(x, y, uint8((x*y+x)%len(pal)))
		}
	}
	grey := greyPattern(w, h, false)
	files := map[string][]byte{}
	for name, img := range map[string]image.Image{"24-bit": rgba, "32-bit": nrgba, "palette": paletted, "grey": grey} {
		var buf bytes.Buffer
		if err := bmp.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		files[name+" bmp"] = buf.Bytes()
	}
	// The same 24-bit picture with its rows stored top down (a negative height).
	b := files["24-bit bmp"]
	off, stride := int(binary.LittleEndian.Uint32(b[10:])), (w*3+3)/4*4
	td := append([]byte(nil), b...)
	neg := int32(-h)
	binary.LittleEndian.PutUint32(td[22:], uint32(neg))
	for y := 0; y < h; y++ {
		copy(td[off+y*stride:off+(y+1)*stride], b[off+(h-1-y)*stride:])
	}
	files["top-down bmp"] = td
	ppm := []byte(fmt.Sprintf("P6\n# a comment\n%d %d\n255\n", w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := rgba.RGBAAt(x, y)
			ppm = append(ppm, c.R, c.G, c.B)
		}
	}
	files["ppm"] = ppm
	files["pgm"] = append([]byte(fmt.Sprintf("P5 %d %d 255\n", w, h)), grey.Pix...)
	for name, data := range files {
		want, err := decodeLeptonica(data, -1)
		if err != nil {
			t.Fatalf("%s: leptonica: %v", name, err)
		}
		got, ok, err := decodeBMPGreyShrunk(data, 1)
		if !ok {
			got, ok, err = decodePNMGreyShrunk(data, 1)
		}
		if !ok || err != nil {
			t.Fatalf("%s: not decoded (ok=%v, err=%v)", name, ok, err)
		}
		if got.Bounds() != want.Bounds() || !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%s: row decoder and leptonica differ", name)
		}
		for _, k := range []int{2, 3, 5} {
			small, gk, err := decodeGreyFit(data, -1, float64((w+k-1)/k*((h+k-1)/k)))
			if err != nil || gk != k || !bytes.Equal(small.Pix, scan.Shrink(want, k).Pix) {
				t.Errorf("%s: reduced by %d (err %v), not the block means of %d", name, gk, err, k)
			}
		}
	}
	if _, ok, err := decodeBMPGreyShrunk(files["24-bit bmp"][:200], 1); !ok || err == nil {
		t.Errorf("cut BMP: ok=%v err=%v", ok, err)
	}
}
