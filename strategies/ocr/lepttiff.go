//go:build cgo

package ocr

/*
#cgo LDFLAGS: -ltiff
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <tiffio.h>

typedef struct { const unsigned char *d; toff_t n, off; } q_tiffsrc;

static tmsize_t q_tiff_rd(thandle_t h, void *buf, tmsize_t size) {
	q_tiffsrc *s = (q_tiffsrc *)h;
	if (size <= 0 || s->off >= s->n) return 0;
	toff_t k = s->n - s->off;
	if ((toff_t)size < k) k = (toff_t)size;
	memcpy(buf, s->d + s->off, k);
	s->off += k;
	return (tmsize_t)k;
}
static tmsize_t q_tiff_wr(thandle_t h, void *buf, tmsize_t size) { (void)h; (void)buf; (void)size; return -1; }
static toff_t q_tiff_seek(thandle_t h, toff_t off, int whence) {
	q_tiffsrc *s = (q_tiffsrc *)h;
	switch (whence) {
	case SEEK_SET: s->off = off; break;
	case SEEK_CUR: s->off += off; break;
	case SEEK_END: s->off = s->n + off; break;
	}
	return s->off;
}
static int q_tiff_close(thandle_t h) { (void)h; return 0; }
static toff_t q_tiff_size(thandle_t h) { return ((q_tiffsrc *)h)->n; }
// q_tiff_map hands libtiff the data itself, so it reads strips in place: a reader that
// cannot map copies each strip whole first (an uncompressed page in one strip: a second
// full-size copy). libtiff never writes through a read-only mapping.
static int q_tiff_map(thandle_t h, void **base, toff_t *size) {
	q_tiffsrc *s = (q_tiffsrc *)h;
	*base = (void *)s->d;
	*size = s->n;
	return 1;
}
static void q_tiff_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

// q_tiff_quiet stops libtiff printing to stderr; the caller reports what failed.
static void q_tiff_quiet(void) { TIFFSetErrorHandler(NULL); TIFFSetWarningHandler(NULL); }

// q_tiff_grey decodes frame of a TIFF that is 8-bit grey (black is zero) or 8-bit RGB(A),
// stored in strips with its samples interleaved, a scanline at a time into dst as 8-bit grey,
// each colour pixel the darkest of its red, green and blue (what leptonica's full decode
// followed by pixConvertRGBToGrayMinMax(L_CHOOSE_MIN) gives): no full-size raster of the page
// is ever held, where leptonica would build a 32-bit one. With dst NULL it only reports the
// size. Returns 0 on success, 1 for frames it leaves to leptonica (bilevel, palette, tiled,
// 16-bit, YCbCr, planar...), 2 on an error.
// k > 1 reduces by k as the scanlines come (each dst pixel the mean of a k × k block; dst
// holds ceil(w/k) × ceil(h/k) bytes), so a frame too large to be read whole never is.
static int q_tiff_grey(const unsigned char *d, size_t n, int frame, unsigned char *dst, int *w, int *h, int k) {
	q_tiffsrc s = {d, n, 0};
	TIFF *t = TIFFClientOpen("page", "r", (thandle_t)&s, q_tiff_rd, q_tiff_wr, q_tiff_seek,
		q_tiff_close, q_tiff_size, q_tiff_map, q_tiff_unmap);
	if (!t) return 1;
	int r = 1;
	uint32_t tw = 0, th = 0;
	uint16_t bps = 1, spp = 1, photo = 0, planar = PLANARCONFIG_CONTIG;
	if (!TIFFSetDirectory(t, (tdir_t)frame) || TIFFIsTiled(t) ||
	    !TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &tw) || !TIFFGetField(t, TIFFTAG_IMAGELENGTH, &th) ||
	    !TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &photo))
		goto done;
	TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &bps);
	TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
	TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
	if (bps != 8 || planar != PLANARCONFIG_CONTIG ||
	    !((photo == PHOTOMETRIC_MINISBLACK && spp == 1) || (photo == PHOTOMETRIC_RGB && (spp == 3 || spp == 4))))
		goto done;
	*w = (int)tw; *h = (int)th;
	r = 0;
	if (!dst) goto done;
	tmsize_t sl = TIFFScanlineSize(t);
	if (sl < (tmsize_t)tw * spp) { r = 2; goto done; }
	if (k < 1) k = 1;
	uint32_t dw = (tw + k - 1) / k;
	// The scanline, then (k > 1) the block sums and counts of the output row being gathered.
	tmsize_t at = (sl + 7) & ~(tmsize_t)7;
	unsigned char *row = _TIFFmalloc(at + (tmsize_t)dw * 2 * sizeof(unsigned int));
	if (!row) { r = 2; goto done; }
	unsigned int *sum = (unsigned int *)(row + at), *cnt = sum + dw;
	for (uint32_t y = 0; y < th; y++) {
		if (TIFFReadScanline(t, row, y, 0) < 0) { r = 2; break; }
		if (k == 1) {
			unsigned char *o = dst + (size_t)y * tw;
			if (spp == 1) { memcpy(o, row, tw); continue; }
			const unsigned char *p = row;
			for (uint32_t x = 0; x < tw; x++, p += spp) {
				unsigned char m = p[0] < p[1] ? p[0] : p[1];
				o[x] = m < p[2] ? m : p[2];
			}
			continue;
		}
		if (y % k == 0) { memset(sum, 0, dw * sizeof(unsigned int)); memset(cnt, 0, dw * sizeof(unsigned int)); }
		const unsigned char *p = row;
		for (uint32_t x = 0; x < tw; x++, p += spp) {
			unsigned int v = p[0];
			if (spp > 1) { unsigned char m = p[0] < p[1] ? p[0] : p[1]; v = m < p[2] ? m : p[2]; }
			sum[x / k] += v;
			cnt[x / k]++;
		}
		if (y % k == (uint32_t)k - 1 || y == th - 1) {
			unsigned char *o = dst + (size_t)(y / k) * dw;
			for (uint32_t j = 0; j < dw; j++) o[j] = (unsigned char)((sum[j] + cnt[j] / 2) / cnt[j]);
		}
	}
	_TIFFfree(row);
done:
	TIFFClose(t);
	return r;
}
*/
import "C"

import (
	"bytes"
	"errors"
	"image"
	"unsafe"
)

func init() { C.q_tiff_quiet() }

// decodeTIFFGrey decodes one frame of an 8-bit grey or colour TIFF straight into a grey image,
// a scanline at a time: leptonica reads a frame whole at its own depth first (a 40-megapixel
// colour page: 160 MB of 32-bit raster beside the 40 MB grey result). ok is false for TIFFs
// this path does not take (bilevel pages, which leptonica holds at 1 bit anyway; palettes,
// tiles, 16-bit samples, YCbCr); the caller then uses leptonica. The size has been checked
// against scan.MaxPixels from the header already.
func decodeTIFFGrey(data []byte, frame int) (img *image.Gray, ok bool, err error) {
	return decodeTIFFGreyShrunk(data, frame, 1)
}

// decodeTIFFGreyShrunk is decodeTIFFGrey reducing by k as the scanlines come: a colour or grey
// frame over scan.MaxRenderPixels is never held at full size, even as grey.
func decodeTIFFGreyShrunk(data []byte, frame, k int) (img *image.Gray, ok bool, err error) {
	if !isTIFF(data) {
		return nil, false, nil
	}
	var w, h C.int
	p := (*C.uchar)(unsafe.Pointer(&data[0]))
	if C.q_tiff_grey(p, C.size_t(len(data)), C.int(max(frame, 0)), nil, &w, &h, 1) != 0 || w <= 0 || h <= 0 {
		return nil, false, nil
	}
	k = max(k, 1)
	img = image.NewGray(image.Rect(0, 0, (int(w)+k-1)/k, (int(h)+k-1)/k))
	switch C.q_tiff_grey(p, C.size_t(len(data)), C.int(max(frame, 0)), (*C.uchar)(unsafe.Pointer(&img.Pix[0])), &w, &h, C.int(k)) {
	case 0:
		return img, true, nil
	case 1:
		return nil, false, nil
	}
	return nil, true, errors.New("cannot decode TIFF image")
}

func isTIFF(data []byte) bool {
	return bytes.HasPrefix(data, []byte("II*\x00")) || bytes.HasPrefix(data, []byte("MM\x00*")) ||
		bytes.HasPrefix(data, []byte("II+\x00")) || bytes.HasPrefix(data, []byte("MM\x00+"))
}
