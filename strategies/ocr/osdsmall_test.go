//go:build cgo

package ocr

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// TestSidewaysLowResolution: a page scanned sideways at about 100 DPI (11-point type about
// 14 pixels high) is turned upright too; OSD skipped its characters as too small and the
// page was read sideways (recall near 0).
func TestSidewaysLowResolution(t *testing.T) {
	if testing.Short() {
		t.Skip("OCR of a page")
	}
	data, err := os.ReadFile(dejaVu)
	if err != nil {
		t.Skipf("font: %v (install fonts-dejavu-core)", err)
	}
	f, err := opentype.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 14, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	defer face.Close()
	lines := append(append(append([]string{}, osdLines...), osdLines...), osdLines...)
	page := image.NewGray(image.Rect(0, 0, 850, 1100))
	for i := range page.Pix {
		page.Pix[i] = 255
	}
	d := &font.Drawer{Dst: page, Src: image.NewUniform(color.Gray{0}), Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(80, 100+i*24)
		d.DrawString(l)
	}
	want := strings.Fields(strings.ToLower(strings.Join(lines, " ")))
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
		got := map[string]int{}
		for _, e := range els {
			for _, w := range strings.Fields(strings.ToLower(e.Text)) {
				got[w]++
			}
		}
		hit := 0
		for _, w := range want {
			if got[w] > 0 {
				got[w]--
				hit++
			}
		}
		if r := float64(hit) / float64(len(want)); r < 0.8 {
			t.Errorf("%d°: recall %.3f", q*90, r)
		}
	}
}
