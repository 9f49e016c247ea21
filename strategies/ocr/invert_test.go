//go:build cgo

package ocr

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/engine"
)

// TestInvertedBand: lines printed light on a dark bar (a banner across part of the page, as
// slides and forms have) are read with the rest; before, the bar became a picture holding
// scraps and the lines were lost or cut.
func TestInvertedBand(t *testing.T) {
	if testing.Short() {
		t.Skip("OCR of two pages")
	}
	page := textPage(t, osdLines)
	b := page.Bounds()
	// Lines 2 and 3 (baselines at 142 and 194) on a black bar from x=30 to 70% of the width.
	for y := 100; y < 210; y++ {
		for x := 30; x < b.Dx()*7/10; x++ {
			page.Pix[y*page.Stride+x] = 255 - page.Pix[y*page.Stride+x]
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, page); err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(strings.ToLower(strings.Join(osdLines, " ")))
	for _, strategy := range []string{"ocr_only", "hi_res"} {
		opts := engine.DefaultOptions()
		opts.Strategy = strategy
		els, err := engine.Partition(t.Context(), engine.NewDocument("banner.png", buf.Bytes()), opts)
		if err != nil {
			t.Fatalf("%s: %v", strategy, err)
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
			t.Errorf("%s: recall %.3f: %q", strategy, r, strings.Join(text, " | "))
		}
	}
}
