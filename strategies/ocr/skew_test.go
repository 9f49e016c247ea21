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

// TestSkewedScans: pages fed crooked (3° and 5° either way, and 4° on a sideways page) are
// straightened before they are read; Tesseract alone dropped or garbled whole lines.
func TestSkewedScans(t *testing.T) {
	if testing.Short() {
		t.Skip("OCR of four pages")
	}
	lines := append(append([]string{}, osdLines...), osdLines...)
	page := textPage(t, lines)
	want := strings.Fields(strings.ToLower(strings.Join(lines, " ")))
	for _, c := range []struct {
		deg      float64
		quarters int
	}{{3, 0}, {-5, 0}, {5, 0}, {4, 1}} {
		tilted := scan.Deskew(scan.Rotate(page, c.quarters), -c.deg) // Deskew(-a) tilts by a
		var buf bytes.Buffer
		if err := png.Encode(&buf, tilted); err != nil {
			t.Fatal(err)
		}
		opts := engine.DefaultOptions()
		opts.Strategy = "ocr_only"
		els, err := engine.Partition(t.Context(), engine.NewDocument("scan.png", buf.Bytes()), opts)
		if err != nil {
			t.Fatalf("%.0f°: %v", c.deg, err)
		}
		var text []string
		for _, e := range els {
			text = append(text, e.Text)
		}
		got := map[string]int{}
		for _, w := range strings.Fields(strings.ToLower(strings.Join(text, " "))) {
			got[w]++
		}
		hit := 0
		for _, w := range want {
			if got[w] > 0 {
				got[w]--
				hit++
			}
		}
		if r := float64(hit) / float64(len(want)); r < 0.95 {
			t.Errorf("%.0f° (%d°): recall %.3f: %q", c.deg, c.quarters*90, r, strings.Join(text, " | "))
		}
	}
}
