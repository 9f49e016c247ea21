//go:build cgo

package ocr

import (
	"fmt"
	"runtime/debug"
	"strings"
	"unsafe"

	"github.com/otiai10/gosseract/v2"

	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// tesseract wraps one Tesseract client. A client is never shared: each worker owns one.
type tesseract struct {
	client *gosseract.Client
	langs  string
	psm    string
	// osd is the orientation-detection handle (TessBaseAPI*), made on first need.
	osd       unsafe.Pointer
	osdFailed bool
}

func newTesseract() *tesseract {
	c := gosseract.NewClient()
	// The API's default is a single uniform block; full automatic page segmentation is what
	// the tesseract CLI and the reference use, and what gives blocks and paragraphs.
	// SetPageSegMode before the lazy Init is lost, so it goes in as a variable, which
	// gosseract applies after Init.
	_ = c.SetVariable("tessedit_pageseg_mode", "3")
	// Sauvola's local threshold instead of global Otsu: text on a tinted fill (a table
	// header, a highlighted box) survives binarisation.
	_ = c.SetVariable("thresholding_method", "2")
	return &tesseract{client: c, psm: "3"}
}

func (t *tesseract) close() {
	t.closeOSD()
	t.client.Close()
}

// prepare initialises the client for langs (gosseract initialises lazily), so that the first
// page does not wait for the language models.
func (t *tesseract) prepare(langs string) error {
	if err := t.setLanguages(langs); err != nil {
		return err
	}
	return t.initialise()
}

func (t *tesseract) setLanguages(langs string) error {
	if langs == t.langs {
		return nil
	}
	if err := t.client.SetLanguage(strings.Split(langs, "+")...); err != nil {
		return fmt.Errorf("tesseract: languages %s: %w", langs, err)
	}
	t.langs = langs
	return nil
}

// bigImage is the encoded size from which a page's bytes are handed back to the system as
// soon as Tesseract has copied them (16 megapixels of grey).
const bigImage = 16 << 20

// recognize runs recognition once on an encoded page image (any format leptonica reads). Every gosseract output call re-runs
// recognition, so only the verbose word boxes are asked for; lines and paragraphs are derived
// from their numbers.
func (t *tesseract) recognize(img []byte, langs string) ([]scan.Word, error) {
	return t.recognizeAs(img, langs, "3")
}

// recognizeBlock reads an image as one uniform block of text (page segmentation mode 6): a
// table cell, where full page segmentation would look for columns that are not there.
func (t *tesseract) recognizeBlock(img []byte, langs string) ([]scan.Word, error) {
	return t.recognizeAs(img, langs, "6")
}

func (t *tesseract) recognizeAs(img []byte, langs, psm string) ([]scan.Word, error) {
	if err := t.setLanguages(langs); err != nil {
		return nil, err
	}
	if psm != t.psm {
		// Applied at once on an initialised client, and again after a re-init.
		_ = t.client.SetVariable("tessedit_pageseg_mode", psm)
		t.psm = psm
	}
	if err := t.initialise(); err != nil {
		return nil, err
	}
	if err := t.client.SetImageFromBytes(img); err != nil {
		return nil, fmt.Errorf("tesseract: set image: %w", err)
	}
	if len(img) >= bigImage {
		// Tesseract holds its own copy now; a large page's encoding goes back to the system
		// before recognition builds its own structures, instead of whenever the collector
		// and scavenger get to it (a 40-megapixel page: 40 MB off the peak).
		img = nil
		debug.FreeOSMemory()
	}
	// hOCR, not GetBoundingBoxesVerbose: gosseract's verbose iterator stops at the first block
	// without text (a picture, a ruled area), dropping everything after it; Tesseract's own
	// hOCR renderer walks every block.
	hocr, err := t.hocr()
	if err != nil {
		return nil, fmt.Errorf("tesseract: %w", err)
	}
	words, err := scan.ParseHOCR(hocr)
	if err != nil {
		return nil, fmt.Errorf("tesseract: hOCR: %w", err)
	}
	return words, nil
}
