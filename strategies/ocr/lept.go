//go:build cgo

package ocr

/*
#cgo LDFLAGS: -lleptonica
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <leptonica/allheaders.h>

static int q_tiff_count(const l_uint8 *d, size_t n) {
	FILE *f = fopenReadFromMemory(d, n);
	if (!f) return -1;
	l_int32 c = 0;
	if (tiffGetCount(f, &c)) c = -1;
	fclose(f);
	return c;
}

// q_decode reads one image (frame >= 0: that TIFF frame) as an 8-bit grey PIX, or a 1-bit one
// without colormap as it is (q_copy expands it: a bilevel page is not converted twice); *code
// says why when it returns NULL.
static PIX *q_decode(const l_uint8 *d, size_t n, int frame, int *code) {
	PIX *p = frame >= 0 ? pixReadMemTiff(d, n, frame) : pixReadMem(d, n);
	if (!p) { *code = 1; return NULL; }
	if (pixGetDepth(p) == 1 && !pixGetColormap(p)) return p;
	// Colour: the darkest channel, so dark text stays dark on a tinted background (a table
	// header) where luminance would bring them close.
	PIX *g = NULL;
	if (pixGetDepth(p) == 32) g = pixConvertRGBToGrayMinMax(p, L_CHOOSE_MIN);
	else {
		PIX *c = pixRemoveColormap(p, REMOVE_CMAP_BASED_ON_SRC);
		if (c && pixGetDepth(c) == 32) g = pixConvertRGBToGrayMinMax(c, L_CHOOSE_MIN);
		else if (c) g = pixConvertTo8(c, 0);
		pixDestroy(&c);
	}
	pixDestroy(&p);
	if (!g || pixGetDepth(g) != 8 || pixGetColormap(g)) { pixDestroy(&g); *code = 2; return NULL; }
	return g;
}

// q_copy writes the pixels of an 8-bit PIX, or a 1-bit one as 0 (set) and 255, row after row
// into dst (w*h bytes). Leptonica packs pixels in 32-bit words, the leftmost in the most
// significant bits.
static void q_copy(PIX *g, l_uint8 *dst) {
	l_int32 w = pixGetWidth(g), h = pixGetHeight(g), wpl = pixGetWpl(g), d = pixGetDepth(g);
	l_uint32 *data = pixGetData(g);
	for (l_int32 i = 0; i < h; i++) {
		const l_uint32 *line = data + (size_t)i * wpl;
		l_uint8 *o = dst + (size_t)i * w;
		l_int32 j = 0;
		if (d == 1) {
			for (; j < w; j++) o[j] = (line[j >> 5] >> (31 - (j & 31))) & 1 ? 0 : 255;
			continue;
		}
		for (; j + 4 <= w; j += 4) {
			l_uint32 v = line[j >> 2];
			o[j] = v >> 24; o[j + 1] = v >> 16; o[j + 2] = v >> 8; o[j + 3] = v;
		}
		for (; j < w; j++) o[j] = GET_DATA_BYTE(line, j);
	}
}

// q_copy_shrink is q_copy reducing by k (> 1): each dst pixel (dw = ceil(w/k) a row) is the
// mean of a k × k block, so a page too large to be read whole is reduced straight from
// leptonica's raster, never expanded to full size first. sum is dw words of scratch.
static void q_copy_shrink(PIX *g, l_uint8 *dst, l_int32 k, l_uint32 *sum, l_uint32 *cnt) {
	l_int32 w = pixGetWidth(g), h = pixGetHeight(g), wpl = pixGetWpl(g), d = pixGetDepth(g);
	l_int32 dw = (w + k - 1) / k, dh = (h + k - 1) / k;
	l_uint32 *data = pixGetData(g);
	for (l_int32 by = 0; by < dh; by++) {
		memset(sum, 0, sizeof(l_uint32) * dw);
		memset(cnt, 0, sizeof(l_uint32) * dw);
		for (l_int32 i = by * k; i < h && i < (by + 1) * k; i++) {
			const l_uint32 *line = data + (size_t)i * wpl;
			for (l_int32 j = 0; j < w; j++) {
				l_uint32 v = d == 1 ? (((line[j >> 5] >> (31 - (j & 31))) & 1) ? 0 : 255) : GET_DATA_BYTE(line, j);
				sum[j / k] += v;
				cnt[j / k]++;
			}
		}
		l_uint8 *o = dst + (size_t)by * dw;
		for (l_int32 j = 0; j < dw; j++) o[j] = (l_uint8)((sum[j] + cnt[j] / 2) / cnt[j]);
	}
}

static void q_destroy(PIX *p) { pixDestroy(&p); }

// q_same reports whether two encoded images decode to equal PIXes (tests of the encoders).
static int q_same(const l_uint8 *a, size_t an, const l_uint8 *b, size_t bn) {
	PIX *pa = pixReadMem(a, an), *pb = pixReadMem(b, bn);
	l_int32 same = 0;
	if (pa && pb && pixGetDepth(pa) == pixGetDepth(pb) && !pixGetColormap(pa) && !pixGetColormap(pb) &&
	    pixGetXRes(pa) == pixGetXRes(pb) && pixGetYRes(pa) == pixGetYRes(pb))
		pixEqual(pa, pb, &same);
	pixDestroy(&pa);
	pixDestroy(&pb);
	return same;
}

*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"unsafe"

	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// setLeptonicaQuiet silences leptonica's stderr chatter about unreadable input; the errors
// are returned instead.
func init() { C.setMsgSeverity(C.L_SEVERITY_NONE) }

// tiffFrames counts the images in a TIFF file.
func tiffFrames(data []byte) (int, error) {
	if len(data) == 0 {
		return 0, errors.New("empty TIFF")
	}
	n := C.q_tiff_count((*C.l_uint8)(unsafe.Pointer(&data[0])), C.size_t(len(data)))
	if n < 0 {
		return 0, errors.New("unreadable TIFF")
	}
	return int(n), nil
}

// decodeGrey decodes an image (PNG, JPEG, BMP, TIFF, GIF, WebP, PNM; frame ≥ 0 selects a TIFF
// frame) with leptonica into an 8-bit grey image, copied once from leptonica's raster.
func decodeGrey(data []byte, frame int) (*image.Gray, error) {
	img, _, err := decodeGreyFit(data, frame, 0)
	return img, err
}

// maxDecodeBytes bounds what one whole-image decoder may hold for an image: leptonica's
// raster at the depth it keeps (a colour image: 4 bytes a pixel, before the grey copy) or
// libjpeg's coefficients of a progressive JPEG. It is one grey page of scan.MaxRenderPixels,
// the largest raster the row decoders and pdftoppm ever produce, so no path holds more than
// a maximal page; an image over it that no row decoder takes is refused from its header.
const maxDecodeBytes = float64(scan.MaxRenderPixels)

// decodeGreyFit is decodeGrey reducing an image of more than limit pixels (0: no limit) by the
// smallest whole factor k that fits, each pixel the mean of a k × k block; it returns k. The
// row decoders (PNG; JPEG grey, colour and CMYK; 8-bit grey and colour TIFF in strips;
// uncompressed BMP; binary PGM and PPM) reduce as the rows come — a JPEG decoded by libjpeg at
// 1/2, 1/4 or 1/8 scale first — so the page is never held at full size; leptonica, which
// reads the other images whole (bilevel, palette, tiled or 16-bit TIFF, run-length BMP, GIF,
// WebP, text PNM, interlaced PNG), may do so only while its raster stays within
// maxDecodeBytes, which the header says before anything is decoded, and the page is then
// reduced straight from its raster.
func decodeGreyFit(data []byte, frame int, limit float64) (*image.Gray, int, error) {
	if len(data) == 0 {
		return nil, 1, errors.New("empty image")
	}
	if err := scan.CheckSize(data, frame); err != nil {
		return nil, 1, err
	}
	k := 1
	if w, h, ok := scan.ImageSize(data, frame); ok && limit > 0 {
		k = scan.ShrinkFactor(w, h, limit)
	}
	if img, ok, err := decodeTIFFGreyShrunk(data, frame, k); ok {
		return img, k, err
	}
	if frame < 0 {
		if img, ok, err := decodePNGGreyShrunk(data, k); ok {
			return img, k, err
		}
		if img, ok, err := decodeJPEGGreyShrunk(data, k); ok {
			return img, k, err
		}
		if img, ok, err := decodeBMPGreyShrunk(data, k); ok {
			return img, k, err
		}
		if img, ok, err := decodePNMGreyShrunk(data, k); ok {
			return img, k, err
		}
	}
	if n, what, ok := scan.DecodedBytes(data, frame); ok && float64(n) > maxDecodeBytes {
		w, h, _ := scan.ImageSize(data, frame)
		return nil, k, fmt.Errorf("%w: %d × %d pixels (%s), which can only be read whole: %d MB decoded, more than the %d MB allowed; save it as PNG, JPEG or TIFF (read reduced) or scale it down",
			scan.ErrTooLarge, w, h, what, n>>20, int64(maxDecodeBytes)>>20)
	}
	if k > 1 {
		img, err := decodeLeptonicaShrunk(data, frame, k)
		return img, k, err
	}
	img, err := decodeLeptonica(data, frame)
	return img, 1, err
}

// decodeLeptonicaShrunk decodes with leptonica and reduces by k straight from its raster (the
// images no row decoder takes; decodeGreyFit has bounded the raster from the header).
func decodeLeptonicaShrunk(data []byte, frame int, k int) (*image.Gray, error) {
	var code C.int
	g := C.q_decode((*C.l_uint8)(unsafe.Pointer(&data[0])), C.size_t(len(data)), C.int(frame), &code)
	if g == nil {
		return nil, fmt.Errorf("cannot decode image (leptonica code %d)", int(code))
	}
	defer C.q_destroy(g)
	w, h := int(C.pixGetWidth(g)), int(C.pixGetHeight(g))
	if w <= 0 || h <= 0 || w*h > scan.MaxPixels {
		return nil, fmt.Errorf("unsupported image size %dx%d", w, h)
	}
	dw, dh := (w+k-1)/k, (h+k-1)/k
	img := image.NewGray(image.Rect(0, 0, dw, dh))
	scratch := make([]C.l_uint32, 2*dw)
	C.q_copy_shrink(g, (*C.l_uint8)(unsafe.Pointer(&img.Pix[0])), C.l_int32(k), &scratch[0], &scratch[dw])
	return img, nil
}

// decodeLeptonica is decodeGrey through leptonica's readers.
func decodeLeptonica(data []byte, frame int) (*image.Gray, error) {
	var code C.int
	g := C.q_decode((*C.l_uint8)(unsafe.Pointer(&data[0])), C.size_t(len(data)), C.int(frame), &code)
	if g == nil {
		return nil, fmt.Errorf("cannot decode image (leptonica code %d)", int(code))
	}
	defer C.q_destroy(g)
	w, h := int(C.pixGetWidth(g)), int(C.pixGetHeight(g))
	if w <= 0 || h <= 0 || w*h > scan.MaxPixels {
		return nil, fmt.Errorf("unsupported image size %dx%d", w, h)
	}
	img := image.NewGray(image.Rect(0, 0, w, h))
	C.q_copy(g, (*C.l_uint8)(unsafe.Pointer(&img.Pix[0])))
	return img, nil
}

// sameImage reports whether leptonica reads two encoded images as the same pixels (depth,
// resolution and raster): what Tesseract is given does not depend on the encoding.
func sameImage(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	return C.q_same((*C.l_uint8)(unsafe.Pointer(&a[0])), C.size_t(len(a)), (*C.l_uint8)(unsafe.Pointer(&b[0])), C.size_t(len(b))) != 0
}
