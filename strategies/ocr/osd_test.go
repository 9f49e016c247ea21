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

const dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf" // Debian fonts-dejavu-core

var osdLines = []string{
	"The warehouse inventory was counted on Monday morning.",
	"Every shelf in the northern building was checked twice.",
	"Missing pallets were reported to the regional manager.",
	"A complete list of damaged goods follows this summary.",
	"Deliveries resume next week once the audit is finished.",
}

// textPage draws lines of text in DejaVu Sans on a white page, as a 200 DPI scan would show
// 11-point type.
func textPage(t *testing.T, lines []string) *image.Gray {
	t.Helper()
	data, err := os.ReadFile(dejaVu)
	if err != nil {
		t.Skipf("font: %v (install fonts-dejavu-core)", err)
	}
	f, err := opentype.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 30, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	defer face.Close()
	img := image.NewGray(image.Rect(0, 0, 1000, 120+len(lines)*52))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	d := &font.Drawer{Dst: img, Src: image.NewUniform(color.Gray{0}), Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(60, 90+i*52)
		d.DrawString(l)
	}
	return img
}

// TestSidewaysScans: pages scanned at 90°, 180° and 270° are turned upright (Tesseract's
// orientation detection) before their text is read.
func TestSidewaysScans(t *testing.T) {
	if testing.Short() {
		t.Skip("OCR of four pages")
	}
	page := textPage(t, osdLines)
	for q := 0; q < 4; q++ {
		var buf bytes.Buffer
		if err := png.Encode(&buf, scan.Rotate(page, q)); err != nil {
			t.Fatal(err)
		}
		opts := engine.DefaultOptions()
		opts.Strategy = "ocr_only"
		els, err := engine.Partition(t.Context(), engine.NewDocument("scan.png", buf.Bytes()), opts)
		if err != nil {
			t.Fatalf("%d°: %v", q*90, err)
		}
		var text []string
		for _, e := range els {
			text = append(text, e.Text)
		}
		all := strings.Join(text, " ")
		found := 0
		for _, w := range []string{"warehouse", "inventory", "northern", "pallets", "regional", "damaged", "Deliveries", "audit"} {
			if strings.Contains(all, w) {
				found++
			}
		}
		if found < 7 {
			t.Errorf("%d°: %d of 8 words read: %q", q*90, found, all)
		}
	}
}
