//go:build cgo

package ocr

/*
#cgo LDFLAGS: -ltesseract
#include <tesseract/capi.h>

// q_hocr does what gosseract's HOCRText does on an initialised client (its bridge's SetPixImage,
// then GetHOCRText(0)) through Tesseract's C API, so that the string can be freed: the caller
// copies it and hands it to TessDeleteText.
static char *q_hocr(void *api, void *pix) {
	TessBaseAPI *a = (TessBaseAPI *)api;
	TessBaseAPISetImage2(a, (struct Pix *)pix);
	if (TessBaseAPIGetSourceYResolution(a) < 70) TessBaseAPISetSourceResolution(a, 70);
	return TessBaseAPIGetHOCRText(a, 0);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"reflect"
	"unsafe"

	"github.com/otiai10/gosseract/v2"

	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// gosseract's (*Client).HOCRText returns C.GoString of Tesseract's GetHOCRText and never frees
// the new[]-allocated original: a whole hOCR document (tens to hundreds of KB) leaked per page,
// so a long-running plugin would grow until its memory limit killed it. The client's
// TessBaseAPI and page Pix are unexported fields, read here through reflection. The names and
// kinds are those of gosseract v2.4.1; clientHandles checks them on every call (a later version
// that renames them makes it report !ok, and recognition falls back to the leaking call rather
// than failing), and TestGosseractClientLayout fails loudly when they change.

// handles are a gosseract client's C objects and whether it is initialised.
type handles struct {
	api, pix unsafe.Pointer // tesseract::TessBaseAPI*, Pix* of the last image set
	ready    bool           // Init has run for the current languages (gosseract's !shouldInit)
}

func clientHandles(c *gosseract.Client) (handles, bool) {
	v := reflect.ValueOf(c).Elem()
	api, pix, should := v.FieldByName("api"), v.FieldByName("pixImage"), v.FieldByName("shouldInit")
	if !api.IsValid() || api.Kind() != reflect.UnsafePointer ||
		!pix.IsValid() || pix.Kind() != reflect.UnsafePointer ||
		!should.IsValid() || should.Kind() != reflect.Bool {
		return handles{}, false
	}
	return handles{api: api.UnsafePointer(), pix: pix.UnsafePointer(), ready: !should.Bool()}, true
}

// blankPage is a small white page, for initialising a client without recognising anything.
var blankPage = func() []byte {
	blank := image.NewGray(image.Rect(0, 0, 64, 64))
	for i := range blank.Pix {
		blank.Pix[i] = 255
	}
	return scan.EncodeForOCR(blank, true)
}()

// initialise makes gosseract run its lazy Init (languages, then the variables) if it is
// pending: on a new client, or after the languages changed. gosseract initialises only in an
// output call, which also recognises, so it reads the blank page as plain text; that call's
// string (empty text, a few bytes) is the one thing still leaked, once per initialisation.
func (t *tesseract) initialise() error {
	h, ok := clientHandles(t.client)
	if !ok || h.ready {
		return nil
	}
	if err := t.client.SetImageFromBytes(blankPage); err != nil {
		return fmt.Errorf("tesseract: set image: %w", err)
	}
	if _, err := t.client.Text(); err != nil {
		return fmt.Errorf("tesseract: %w", err)
	}
	return nil
}

// hocr recognises the image last set on the initialised client and returns Tesseract's hOCR,
// freeing Tesseract's copy.
func (t *tesseract) hocr() (string, error) {
	h, ok := clientHandles(t.client)
	if !ok || !h.ready {
		// Unknown client layout (or not initialised, which initialise prevents): gosseract's
		// own call, correct but leaking.
		return t.client.HOCRText()
	}
	if h.api == nil || h.pix == nil {
		return "", errors.New("no image set")
	}
	s := C.q_hocr(h.api, h.pix)
	if s == nil {
		return "", errors.New("recognition failed")
	}
	defer C.TessDeleteText(s)
	return C.GoString(s), nil
}
