//go:build cgo

package ocr

/*
#cgo LDFLAGS: -lpng
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <png.h>

typedef struct { const unsigned char *d; size_t n, off; } q_pngsrc;

static void q_png_read(png_structp p, png_bytep out, png_size_t len) {
	q_pngsrc *s = (q_pngsrc *)png_get_io_ptr(p);
	if (len > s->n - s->off) png_error(p, "truncated");
	memcpy(out, s->d + s->off, len);
	s->off += len;
}

static void q_png_warn(png_structp p, png_const_charp m) { (void)p; (void)m; }

// q_png_fail returns to q_png_grey's setjmp without printing (libpng's default prints).
static void q_png_fail(png_structp p, png_const_charp m) { (void)m; png_longjmp(p, 1); }

// q_png_grey decodes a colour PNG (truecolour, palette or grey with alpha; not interlaced)
// row by row into dst as 8-bit grey, each pixel the darkest of its red, green and blue (what
// leptonica's full decode followed by pixConvertRGBToGrayMinMax(L_CHOOSE_MIN) gives), so no
// full-size colour raster is ever held. With dst NULL it only reports the size. Returns 0 on
// success, 1 when the image is not one this reader takes (grey, interlaced: the caller uses
// leptonica), 2 on a decoding error.
static int q_png_grey(const unsigned char *d, size_t n, unsigned char *dst, int *w, int *h) {
	png_structp p = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, q_png_fail, q_png_warn);
	if (!p) return 2;
	png_infop info = png_create_info_struct(p);
	unsigned char *row = NULL;
	if (!info) { png_destroy_read_struct(&p, NULL, NULL); return 2; }
	if (setjmp(png_jmpbuf(p))) {
		free(row);
		png_destroy_read_struct(&p, &info, NULL);
		return 2;
	}
	q_pngsrc src = {d, n, 0};
	png_set_read_fn(p, &src, q_png_read);
	png_read_info(p, info);
	png_uint_32 pw = png_get_image_width(p, info), ph = png_get_image_height(p, info);
	int ct = png_get_color_type(p, info), il = png_get_interlace_type(p, info);
	*w = (int)pw; *h = (int)ph;
	if (ct == PNG_COLOR_TYPE_GRAY || il != PNG_INTERLACE_NONE || !dst) {
		png_destroy_read_struct(&p, &info, NULL);
		return ct == PNG_COLOR_TYPE_GRAY || il != PNG_INTERLACE_NONE ? 1 : 0;
	}
	png_set_expand(p);          // palette → RGB, tRNS → alpha, low bit depths → 8
	png_set_strip_16(p);
	png_set_strip_alpha(p);
	png_set_gray_to_rgb(p);
	png_read_update_info(p, info);
	if (png_get_channels(p, info) != 3) { png_destroy_read_struct(&p, &info, NULL); return 1; }
	row = malloc((size_t)pw * 3);
	if (!row) { png_destroy_read_struct(&p, &info, NULL); return 2; }
	for (png_uint_32 y = 0; y < ph; y++) {
		png_read_row(p, row, NULL);
		unsigned char *o = dst + (size_t)y * pw;
		const unsigned char *s = row;
		for (png_uint_32 x = 0; x < pw; x++, s += 3) {
			unsigned char m = s[0] < s[1] ? s[0] : s[1];
			o[x] = m < s[2] ? m : s[2];
		}
	}
	free(row);
	png_destroy_read_struct(&p, &info, NULL);
	return 0;
}
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"unsafe"

	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// decodePNGGrey decodes a colour PNG straight into a grey image, a row at a time: leptonica
// would first build the full 32-bit colour raster (a 40-megapixel page: 160 MB beside the
// 40 MB grey result). ok is false for PNGs this path does not take (grey images, which
// leptonica reads at 8 bits anyway, and interlaced ones); the caller then uses leptonica.
func decodePNGGrey(data []byte) (img *image.Gray, ok bool, err error) {
	if !bytes.HasPrefix(data, pngMagic) {
		return nil, false, nil
	}
	var w, h C.int
	p := (*C.uchar)(unsafe.Pointer(&data[0]))
	switch C.q_png_grey(p, C.size_t(len(data)), nil, &w, &h) {
	case 1:
		return nil, false, nil
	case 2:
		return nil, false, nil // leptonica says why, in the caller's words
	}
	if w <= 0 || h <= 0 || int(w)*int(h) > scan.MaxPixels {
		return nil, true, fmt.Errorf("unsupported image size %dx%d", int(w), int(h))
	}
	img = image.NewGray(image.Rect(0, 0, int(w), int(h)))
	switch C.q_png_grey(p, C.size_t(len(data)), (*C.uchar)(unsafe.Pointer(&img.Pix[0])), &w, &h) {
	case 0:
		return img, true, nil
	case 1:
		return nil, false, nil
	}
	return nil, true, errors.New("cannot decode PNG image")
}
