package ocr

/*
#cgo LDFLAGS: -lleptonica
#include <stdlib.h>
#include <stdio.h>
#include <leptonica/allheaders.h>

static int q_tiff_count(const l_uint8 *d, size_t n) {
	FILE *f = fopenReadFromMemory(d, n);
	if (!f) return -1;
	l_int32 c = 0;
	if (tiffGetCount(f, &c)) c = -1;
	fclose(f);
	return c;
}

// q_decode reads one image (frame >= 0: that TIFF frame) and writes it as 8-bit grey PGM.
static int q_decode(const l_uint8 *d, size_t n, int frame, l_uint8 **out, size_t *outn) {
	PIX *p = frame >= 0 ? pixReadMemTiff(d, n, frame) : pixReadMem(d, n);
	if (!p) return 1;
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
	if (!g) return 2;
	int r = pixWriteMem(out, outn, g, IFF_PNM);
	pixDestroy(&g);
	return r;
}

static void q_free(void *p) { lept_free(p); }
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
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
// frame) with leptonica and returns it as an 8-bit grey PGM, the format both Tesseract and the
// layout code read.
func decodeGrey(data []byte, frame int) ([]byte, error) {
	if len(data) == 0 {
		return nil, errors.New("empty image")
	}
	var out *C.l_uint8
	var outn C.size_t
	r := C.q_decode((*C.l_uint8)(unsafe.Pointer(&data[0])), C.size_t(len(data)), C.int(frame), &out, &outn)
	if r != 0 || out == nil {
		return nil, fmt.Errorf("cannot decode image (leptonica code %d)", int(r))
	}
	defer C.q_free(unsafe.Pointer(out))
	return C.GoBytes(unsafe.Pointer(out), C.int(outn)), nil
}
