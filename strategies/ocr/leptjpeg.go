//go:build cgo

package ocr

/*
#cgo LDFLAGS: -ljpeg
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

typedef struct { struct jpeg_error_mgr pub; jmp_buf jb; int eof; } q_jerr;

static void q_jpeg_fail(j_common_ptr c) { longjmp(((q_jerr *)c->err)->jb, 1); }

// q_jpeg_warn notes a premature end of the data (libjpeg then fills the rest of the image
// with grey and carries on) and stays quiet about the rest.
static void q_jpeg_warn(j_common_ptr c, int level) {
	if (level < 0 && c->err->msg_code == JWRN_JPEG_EOF) ((q_jerr *)c->err)->eof = 1;
}

// q_jpeg_grey decodes a JPEG — grey, colour (YCbCr or RGB) or CMYK (YCCK or CMYK) —
// scanline by scanline into dst as 8-bit grey: a colour pixel the darkest of its red, green
// and blue, as leptonica's decode followed by pixConvertRGBToGrayMinMax(L_CHOOSE_MIN) gives,
// CMYK converted to RGB first as leptonica does (no colour profile; Adobe's inverted
// samples). With dst NULL it only reports the size.
// denom (1, 2, 4 or 8) has libjpeg decode at 1/denom scale (DCT scaling: ceil(w/denom) ×
// ceil(h/denom)), and k > 1 then reduces by k as the rows come (each dst pixel the mean of a
// k × k block), so a reduced image is never decoded at full size; dst holds
// ceil(ceil(w/denom)/k) × ceil(ceil(h/denom)/k) bytes. *w and *h stay the full size.
// Returns 0 on success, 1 for JPEGs it leaves to leptonica (other colour spaces), 2 on an
// error, 3 when the data ends before the image does (a truncated file).
// *coef is set, from the header, to the bytes libjpeg holds for the image's DCT coefficients
// when it needs them all at once (progressive and other multi-scan files, at any scale), else 0.
static int q_jpeg_grey(const unsigned char *d, size_t n, unsigned char *dst, int *w, int *h, int denom, int k, double *coef) {
	struct jpeg_decompress_struct c;
	q_jerr e;
	JSAMPROW row = NULL;
	c.err = jpeg_std_error(&e.pub);
	e.pub.error_exit = q_jpeg_fail;
	e.pub.emit_message = q_jpeg_warn;
	e.eof = 0;
	if (setjmp(e.jb)) { free(row); jpeg_destroy_decompress(&c); return 2; }
	jpeg_create_decompress(&c);
	jpeg_mem_src(&c, d, (unsigned long)n);
	jpeg_read_header(&c, TRUE);
	*w = (int)c.image_width; *h = (int)c.image_height;
	*coef = 0;
	if (jpeg_has_multiple_scans(&c))
		for (int ci = 0; ci < c.num_components; ci++)
			*coef += (double)c.comp_info[ci].width_in_blocks * (double)c.comp_info[ci].height_in_blocks * DCTSIZE2 * sizeof(JCOEF);
	int comps = c.num_components;
	J_COLOR_SPACE cs = c.jpeg_color_space;
	int ok = (comps == 1 && cs == JCS_GRAYSCALE) || (comps == 3 && (cs == JCS_YCbCr || cs == JCS_RGB)) ||
		(comps == 4 && (cs == JCS_CMYK || cs == JCS_YCCK));
	if (!ok || !dst) {
		jpeg_destroy_decompress(&c);
		return ok ? 0 : 1;
	}
	c.out_color_space = comps == 1 ? JCS_GRAYSCALE : comps == 3 ? JCS_RGB : JCS_CMYK;
	c.scale_num = 1;
	c.scale_denom = (unsigned int)denom;
	jpeg_start_decompress(&c);
	if (c.output_components != comps) { jpeg_destroy_decompress(&c); return 1; }
	// dst was sized for ceil(w/denom) × ceil(h/denom) reduced by k: anything else is not
	// written into it.
	JDIMENSION ow = c.output_width, oh = c.output_height;
	if (ow != (c.image_width + denom - 1) / denom || oh != (c.image_height + denom - 1) / denom) {
		jpeg_destroy_decompress(&c);
		return 2;
	}
	if (k < 1) k = 1;
	JDIMENSION dw = (ow + k - 1) / k;
	// The row, then (k > 1) the block sums and counts of the output row being gathered.
	row = malloc((size_t)ow * comps + (size_t)dw * 2 * sizeof(unsigned int));
	if (!row) { jpeg_destroy_decompress(&c); return 2; }
	unsigned int *sum = (unsigned int *)(row + (size_t)ow * comps), *cnt = sum + dw;
	// Leptonica's CMYK: Adobe's files store C, M and Y inverted.
	int adobe = c.saw_Adobe_marker;
	while (c.output_scanline < oh) {
		JDIMENSION y = c.output_scanline;
		if (jpeg_read_scanlines(&c, &row, 1) != 1) break;
		if (e.eof) break;
		const unsigned char *s = row;
		if (k > 1 && y % k == 0) { memset(sum, 0, dw * sizeof(unsigned int)); memset(cnt, 0, dw * sizeof(unsigned int)); }
		for (JDIMENSION x = 0; x < ow; x++, s += comps) {
			unsigned int v;
			if (comps == 1) v = s[0];
			else if (comps == 3) { unsigned char m = s[0] < s[1] ? s[0] : s[1]; v = m < s[2] ? m : s[2]; }
			else {
				unsigned int K = s[3], r, g, b;
				if (adobe) { r = K * s[0] / 255; g = K * s[1] / 255; b = K * s[2] / 255; }
				else { r = K * (255 - s[0]) / 255; g = K * (255 - s[1]) / 255; b = K * (255 - s[2]) / 255; }
				unsigned int m = r < g ? r : g;
				v = m < b ? m : b;
			}
			if (k == 1) dst[(size_t)y * ow + x] = (unsigned char)v;
			else { sum[x / k] += v; cnt[x / k]++; }
		}
		if (k > 1 && (y % k == (JDIMENSION)k - 1 || y == oh - 1)) {
			unsigned char *o = dst + (size_t)(y / k) * dw;
			for (JDIMENSION j = 0; j < dw; j++) o[j] = (unsigned char)((sum[j] + cnt[j] / 2) / cnt[j]);
		}
	}
	int r = e.eof ? 3 : c.output_scanline < oh ? 2 : 0;
	if (r == 0) jpeg_finish_decompress(&c);
	free(row);
	jpeg_destroy_decompress(&c);
	return r;
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

// decodeJPEGGrey is decodePNGGrey for JPEGs: scanline by scanline to grey, never the full
// 32-bit raster leptonica builds for colour and CMYK. ok is false for JPEGs left to leptonica.
func decodeJPEGGrey(data []byte) (img *image.Gray, ok bool, err error) {
	return decodeJPEGGreyShrunk(data, 1)
}

// jpegDenom is the libjpeg scale (1/denom) to decode at for an image to be reduced by k: the
// largest of 8, 4 and 2 that divides k, so the rest (k/denom) is a whole factor reduced as the
// rows come; 1 when none does (k odd).
func jpegDenom(k int) int {
	for _, d := range []int{8, 4, 2} {
		if k%d == 0 {
			return d
		}
	}
	return 1
}

// decodeJPEGGreyShrunk is decodeJPEGGrey reducing by k: libjpeg decodes at 1/jpegDenom(k)
// scale (DCT scaling, each pixel about the mean of a denom × denom block) and the rows are
// reduced by the rest as they come, so a 192-megapixel poster (colour, grey or CMYK) reduced
// by 2 is never held at full size. A progressive JPEG whose coefficients alone (libjpeg holds
// them all, at any scale) would pass maxDecodeBytes is refused from its header.
func decodeJPEGGreyShrunk(data []byte, k int) (img *image.Gray, ok bool, err error) {
	if !bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}) {
		return nil, false, nil
	}
	var w, h C.int
	var coef C.double
	p := (*C.uchar)(unsafe.Pointer(&data[0]))
	if C.q_jpeg_grey(p, C.size_t(len(data)), nil, &w, &h, 1, 1, &coef) != 0 {
		return nil, false, nil
	}
	if w <= 0 || h <= 0 || int(w)*int(h) > scan.MaxPixels {
		return nil, true, fmt.Errorf("unsupported image size %dx%d", int(w), int(h))
	}
	if float64(coef) > maxDecodeBytes {
		return nil, true, fmt.Errorf("%w: %d × %d pixels, a progressive JPEG whose decoding holds %d MB of coefficients, more than the %d MB allowed; save it as a baseline JPEG, PNG or TIFF",
			scan.ErrTooLarge, int(w), int(h), int64(coef)>>20, int64(maxDecodeBytes)>>20)
	}
	k = max(k, 1)
	d := jpegDenom(k)
	dw, dh := (int(w)+d-1)/d, (int(h)+d-1)/d
	r := k / d
	img = image.NewGray(image.Rect(0, 0, (dw+r-1)/r, (dh+r-1)/r))
	switch C.q_jpeg_grey(p, C.size_t(len(data)), (*C.uchar)(unsafe.Pointer(&img.Pix[0])), &w, &h, C.int(d), C.int(r), &coef) {
	case 0:
		return img, true, nil
	case 1:
		return nil, false, nil
	case 3:
		return nil, true, fmt.Errorf("JPEG data ends before the image does (%d × %d pixels declared): a truncated file", int(w), int(h))
	}
	return nil, true, errors.New("cannot decode JPEG image")
}
