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
// k > 1 reduces by k as the rows come (each dst pixel the mean of a k × k block; dst holds
// ceil(w/k) × ceil(h/k) bytes), and then takes grey PNGs too: leptonica would hold the whole
// page twice (libpng's rows and its raster) before anything could be reduced.
static int q_png_grey(const unsigned char *d, size_t n, unsigned char *dst, int *w, int *h, int k) {
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
	int declined = (ct == PNG_COLOR_TYPE_GRAY && k <= 1) || il != PNG_INTERLACE_NONE;
	if (declined || !dst) {
		png_destroy_read_struct(&p, &info, NULL);
		return declined ? 1 : 0;
	}
	png_set_expand(p);          // palette → RGB, tRNS → alpha, low bit depths → 8
	png_set_strip_16(p);
	png_set_strip_alpha(p);
	png_set_gray_to_rgb(p);
	png_read_update_info(p, info);
	if (png_get_channels(p, info) != 3) { png_destroy_read_struct(&p, &info, NULL); return 1; }
	if (k < 1) k = 1;
	png_uint_32 dw = (pw + k - 1) / k;
	// The row, then (k > 1) the block sums and counts of the output row being gathered.
	row = malloc((size_t)pw * 3 + (k > 1 ? (size_t)dw * 2 * sizeof(unsigned int) : 0));
	if (!row) { png_destroy_read_struct(&p, &info, NULL); return 2; }
	unsigned int *sum = (unsigned int *)(row + (size_t)pw * 3), *cnt = sum + dw;
	for (png_uint_32 y = 0; y < ph; y++) {
		png_read_row(p, row, NULL);
		const unsigned char *s = row;
		if (k == 1) {
			unsigned char *o = dst + (size_t)y * pw;
			for (png_uint_32 x = 0; x < pw; x++, s += 3) {
				unsigned char m = s[0] < s[1] ? s[0] : s[1];
				o[x] = m < s[2] ? m : s[2];
			}
			continue;
		}
		if (y % k == 0) { memset(sum, 0, dw * sizeof(unsigned int)); memset(cnt, 0, dw * sizeof(unsigned int)); }
		for (png_uint_32 x = 0; x < pw; x++, s += 3) {
			unsigned char m = s[0] < s[1] ? s[0] : s[1];
			sum[x / k] += m < s[2] ? m : s[2];
			cnt[x / k]++;
		}
		if (y % k == (png_uint_32)k - 1 || y == ph - 1) {
			unsigned char *o = dst + (size_t)(y / k) * dw;
			for (png_uint_32 j = 0; j < dw; j++) o[j] = (unsigned char)((sum[j] + cnt[j] / 2) / cnt[j]);
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
	return decodePNGGreyShrunk(data, 1)
}

// decodePNGGreyShrunk is decodePNGGrey reducing by k as the rows are read (k > 1 takes grey
// PNGs too).
func decodePNGGreyShrunk(data []byte, k int) (img *image.Gray, ok bool, err error) {
	if !bytes.HasPrefix(data, pngMagic) {
		return nil, false, nil
	}
	var w, h C.int
	p := (*C.uchar)(unsafe.Pointer(&data[0]))
	switch C.q_png_grey(p, C.size_t(len(data)), nil, &w, &h, C.int(k)) {
	case 1:
		return nil, false, nil
	case 2:
		return nil, false, nil // leptonica says why, in the caller's words
	}
	if w <= 0 || h <= 0 || int(w)*int(h) > scan.MaxPixels {
		return nil, true, fmt.Errorf("unsupported image size %dx%d", int(w), int(h))
	}
	img = image.NewGray(image.Rect(0, 0, (int(w)+k-1)/k, (int(h)+k-1)/k))
	switch C.q_png_grey(p, C.size_t(len(data)), (*C.uchar)(unsafe.Pointer(&img.Pix[0])), &w, &h, C.int(k)) {
	case 0:
		return img, true, nil
	case 1:
		return nil, false, nil
	}
	return nil, true, errors.New("cannot decode PNG image")
}
