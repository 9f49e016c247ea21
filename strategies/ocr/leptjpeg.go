//go:build cgo

package ocr

/*
#cgo LDFLAGS: -ljpeg
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <jpeglib.h>

typedef struct { struct jpeg_error_mgr pub; jmp_buf jb; } q_jerr;

static void q_jpeg_fail(j_common_ptr c) { longjmp(((q_jerr *)c->err)->jb, 1); }
static void q_jpeg_quiet(j_common_ptr c, int level) { (void)c; (void)level; }

// q_jpeg_grey decodes a colour (YCbCr or RGB) JPEG scanline by scanline into dst as 8-bit
// grey, each pixel the darkest of its red, green and blue, as leptonica's decode followed by
// pixConvertRGBToGrayMinMax(L_CHOOSE_MIN) gives; with dst NULL it only reports the size.
// denom (1, 2, 4 or 8) has libjpeg decode at 1/denom scale (DCT scaling: ceil(w/denom) ×
// ceil(h/denom)), so a reduced image is never decoded at full size; *w and *h stay the full size.
// Returns 0 on success, 1 for JPEGs it leaves to leptonica (grey, CMYK), 2 on an error.
static int q_jpeg_grey(const unsigned char *d, size_t n, unsigned char *dst, int *w, int *h, int denom) {
	struct jpeg_decompress_struct c;
	q_jerr e;
	JSAMPROW row = NULL;
	c.err = jpeg_std_error(&e.pub);
	e.pub.error_exit = q_jpeg_fail;
	e.pub.emit_message = q_jpeg_quiet;
	if (setjmp(e.jb)) { free(row); jpeg_destroy_decompress(&c); return 2; }
	jpeg_create_decompress(&c);
	jpeg_mem_src(&c, d, (unsigned long)n);
	jpeg_read_header(&c, TRUE);
	*w = (int)c.image_width; *h = (int)c.image_height;
	if (c.num_components != 3 || (c.jpeg_color_space != JCS_YCbCr && c.jpeg_color_space != JCS_RGB) || !dst) {
		int r = c.num_components == 3 && (c.jpeg_color_space == JCS_YCbCr || c.jpeg_color_space == JCS_RGB) ? 0 : 1;
		jpeg_destroy_decompress(&c);
		return r;
	}
	c.out_color_space = JCS_RGB;
	c.scale_num = 1;
	c.scale_denom = (unsigned int)denom;
	jpeg_start_decompress(&c);
	if (c.output_components != 3) { jpeg_destroy_decompress(&c); return 1; }
	// dst was sized for ceil(w/denom) × ceil(h/denom): anything else is not written into it.
	if (c.output_width != (c.image_width + denom - 1) / denom || c.output_height != (c.image_height + denom - 1) / denom) {
		jpeg_destroy_decompress(&c);
		return 2;
	}
	row = malloc((size_t)c.output_width * 3);
	if (!row) { jpeg_destroy_decompress(&c); return 2; }
	while (c.output_scanline < c.output_height) {
		unsigned char *o = dst + (size_t)c.output_scanline * c.output_width;
		if (jpeg_read_scanlines(&c, &row, 1) != 1) break;
		const unsigned char *s = row;
		for (JDIMENSION x = 0; x < c.output_width; x++, s += 3) {
			unsigned char m = s[0] < s[1] ? s[0] : s[1];
			o[x] = m < s[2] ? m : s[2];
		}
	}
	jpeg_finish_decompress(&c);
	free(row);
	jpeg_destroy_decompress(&c);
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

// decodeJPEGGrey is decodePNGGrey for colour JPEGs: scanline by scanline to grey, never the
// full 32-bit raster leptonica builds. ok is false for JPEGs left to leptonica.
func decodeJPEGGrey(data []byte) (img *image.Gray, ok bool, err error) {
	return decodeJPEGGreyScaled(data, 1)
}

// jpegDenom is the libjpeg scale (1/denom) to decode at for an image to be reduced by k: the
// largest of 8, 4 and 2 that divides k, so the rest (k/denom) is a whole factor scan.Shrink
// finishes; 1 when none does (k odd), the image then decoded at full size and reduced after.
func jpegDenom(k int) int {
	for _, d := range []int{8, 4, 2} {
		if k%d == 0 {
			return d
		}
	}
	return 1
}

// decodeJPEGGreyScaled is decodeJPEGGrey decoding at 1/denom scale (DCT scaling, each
// pixel about the mean of a denom × denom block): a 192-megapixel poster reduced by 2 is
// never held at full size.
func decodeJPEGGreyScaled(data []byte, denom int) (img *image.Gray, ok bool, err error) {
	if !bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}) {
		return nil, false, nil
	}
	var w, h C.int
	p := (*C.uchar)(unsafe.Pointer(&data[0]))
	if C.q_jpeg_grey(p, C.size_t(len(data)), nil, &w, &h, 1) != 0 {
		return nil, false, nil
	}
	if w <= 0 || h <= 0 || int(w)*int(h) > scan.MaxPixels {
		return nil, true, fmt.Errorf("unsupported image size %dx%d", int(w), int(h))
	}
	img = image.NewGray(image.Rect(0, 0, (int(w)+denom-1)/denom, (int(h)+denom-1)/denom))
	switch C.q_jpeg_grey(p, C.size_t(len(data)), (*C.uchar)(unsafe.Pointer(&img.Pix[0])), &w, &h, C.int(denom)) {
	case 0:
		return img, true, nil
	case 1:
		return nil, false, nil
	}
	return nil, true, errors.New("cannot decode JPEG image")
}

// jpegRowDecoded reports whether decodeJPEGGrey takes the JPEG.
func jpegRowDecoded(data []byte) bool {
	if !bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}) {
		return false
	}
	var w, h C.int
	return C.q_jpeg_grey((*C.uchar)(unsafe.Pointer(&data[0])), C.size_t(len(data)), nil, &w, &h, 1) == 0
}
