//go:build cgo

package ocr

/*
#cgo LDFLAGS: -ltesseract -lleptonica
#include <stdlib.h>
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>

// q_osd_new makes a Tesseract handle for orientation and script detection only (the osd
// model, page segmentation mode 0); NULL when the model is missing.
static TessBaseAPI *q_osd_new(void) {
	TessBaseAPI *a = TessBaseAPICreate();
	if (TessBaseAPIInit3(a, NULL, "osd") != 0) { TessBaseAPIDelete(a); return NULL; }
	TessBaseAPISetPageSegMode(a, PSM_OSD_ONLY);
	return a;
}

// q_osd detects the orientation of an 8-bit grey raster (w×h, stride bytes a row): *deg is
// the clockwise angle the page's text is turned by. Returns 0 when detection is not possible
// (too few characters).
static int q_osd(TessBaseAPI *a, const unsigned char *pix, int w, int h, int stride, int *deg, float *conf) {
	TessBaseAPISetImage(a, pix, w, h, 1, stride);
	TessBaseAPISetSourceResolution(a, 300);
	const char *script = NULL;
	float sconf = 0;
	BOOL ok = TessBaseAPIDetectOrientationScript(a, deg, conf, &script, &sconf);
	// script points into the model's character set (Tesseract 5): it is not freed, whatever
	// capi.h's older comment says (freeing it corrupts the heap).
	TessBaseAPIClear(a);
	return ok ? 1 : 0;
}

static void q_osd_free(TessBaseAPI *a) { TessBaseAPIEnd(a); TessBaseAPIDelete(a); }
*/
import "C"

import (
	"image"
	"unsafe"

	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// Orientation detection: a page scanned sideways or upside down reads as garbage. Tesseract's
// orientation and script detection (OSD, the tesseract-ocr-osd model) tells how the text is
// turned; the page is turned back and read again. OSD costs about as much as a quarter of a
// recognition, so it runs only on pages whose first reading looks poor (see scan.NeedsOSD).

// osdMinConfidence is the orientation confidence below which OSD's answer is not acted on
// (Tesseract's own tools use 2 as "unsure"; upright text of a few lines scores well above 5).
const osdMinConfidence = 2.0

// sidewaysConfSlack is how much less confident (mean word confidence, 0-100) the reading of
// a page turned from vertical lines may be and still be kept.
const sidewaysConfSlack = 5.0

// osdMaxSide bounds the side of the image OSD looks at: orientation needs characters, not
// detail, and a smaller image is detected faster.
const osdMaxSide = 2400

// orientation returns the clockwise quarter turns (0–3) that bring the text of img upright,
// and whether OSD could tell.
func (t *tesseract) orientation(img *image.Gray) (int, bool) {
	if t.osd == nil {
		if t.osdFailed {
			return 0, false
		}
		t.osd = unsafe.Pointer(C.q_osd_new())
		if t.osd == nil {
			t.osdFailed = true // no osd model installed: never asked again
			return 0, false
		}
	}
	side := float64(max(img.Bounds().Dx(), img.Bounds().Dy()))
	deg, ok := t.osdAt(img, min(1, osdMaxSide/side))
	// OSD skips characters too small to judge ("Too few characters"): a 100 DPI scan of
	// ordinary type has none big enough, so a page that gave no answer is looked at again
	// scaled up, as far as osdMaxSide allows.
	if up := min(2, osdMaxSide/side); !ok && up >= 1.5 {
		deg, ok = t.osdAt(img, up)
	}
	if !ok {
		return 0, false
	}
	// deg is the angle the text is turned by, clockwise (text turned a quarter clockwise
	// reads 90); turning the image back by as much, counter-clockwise, sets it upright.
	return (4 - (deg/90)%4) % 4, true
}

// osdAt runs OSD on img scaled by zoom, returning the text's clockwise turn in degrees when
// OSD is confident.
func (t *tesseract) osdAt(img *image.Gray, zoom float64) (int, bool) {
	src := img
	if zoom != 1 {
		src = scan.Resize(img, zoom)
	}
	b := src.Bounds()
	if b.Dx() < 16 || b.Dy() < 16 {
		return 0, false
	}
	var deg C.int
	var conf C.float
	ok := C.q_osd((*C.TessBaseAPI)(t.osd), (*C.uchar)(unsafe.Pointer(&src.Pix[src.PixOffset(b.Min.X, b.Min.Y)])),
		C.int(b.Dx()), C.int(b.Dy()), C.int(src.Stride), &deg, &conf)
	if ok == 0 || float64(conf) < osdMinConfidence {
		return 0, false
	}
	return int(deg), true
}

func (t *tesseract) closeOSD() {
	if t.osd != nil {
		C.q_osd_free((*C.TessBaseAPI)(t.osd))
		t.osd = nil
	}
}

// upright re-reads a page whose first reading (words) looks sideways or inverted: when OSD
// finds the text turned, the page is turned back, cleaned and read again, and the new reading
// replaces the old one if it is more confident. It returns the page, its cleaned copy, the
// rule mask and the words to use from here on.
func (t *tesseract) upright(img, clean *image.Gray, mask *scan.RuleMask, words []scan.Word, bilevel, tables bool, langs string) (*image.Gray, *image.Gray, *scan.RuleMask, []scan.Word) {
	if !scan.NeedsOSD(words) {
		return img, clean, mask, words
	}
	q, ok := t.orientation(clean)
	if !ok || q == 0 {
		return img, clean, mask, words
	}
	turned := scan.Rotate(img, q)
	c2, m2 := scan.RemoveRules(turned, tables)
	c2 = scan.InvertDark(c2)
	w2, err := t.read(c2, bilevel, 1, langs)
	// The turned reading is kept when it is more confident, or, for a page first read as
	// vertical lines (as confidently, but word by word in a jumbled order), when it reads
	// as lines and is about as confident.
	c1, c2c := scan.MeanConf(words), scan.MeanConf(w2)
	if err != nil || c2c <= c1 && !(scan.Sideways(words) && !scan.Sideways(w2) && c2c >= c1-sidewaysConfSlack) {
		return img, clean, mask, words
	}
	return turned, c2, m2, w2
}
