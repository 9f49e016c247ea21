//go:build cgo

package ocr

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// TestSidewaysReadInOrder: a page turned a quarter either way is read line by line in order,
// not only word for word. Tesseract reads a 90° page confidently as vertical lines, every
// word right and each paragraph jumbled, so no orientation check was made.
func TestSidewaysReadInOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("OCR of two pages")
	}
	page := textPage(t, osdLines)
	for _, q := range []int{1, 3} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, scan.Rotate(page, q)); err != nil {
			t.Fatal(err)
		}
		opts := engine.DefaultOptions()
		opts.Strategy = "ocr_only"
		els, err := engine.Partition(t.Context(), engine.NewDocument("scan.png", buf.Bytes()), opts)
		if err != nil {
			t.Fatal(err)
		}
		var text []string
		for _, e := range els {
			text = append(text, e.Text)
		}
		all := strings.Join(strings.Fields(strings.Join(text, " ")), " ")
		in := 0
		for _, l := range osdLines {
			if strings.Contains(all, l) {
				in++
			}
		}
		if in < len(osdLines)-1 {
			t.Errorf("%d°: %d of %d lines read in order: %q", q*90, in, len(osdLines), all)
		}
	}
}
