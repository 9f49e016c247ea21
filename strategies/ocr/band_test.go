//go:build cgo

package ocr

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// tallPage draws n numbered lines of text down a white page, with a wider gap after every
// fifth line (paragraphs), and returns the page and each line's text.
func tallPage(t *testing.T, n int) (*image.Gray, []string) {
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
	words := strings.Fields("harbour ledger invoice granite meadow copper violet anchor summit pebble lantern orchard")
	var lines []string
	y := 80
	var ys []int
	for i := range n {
		lines = append(lines, fmt.Sprintf("Line %03d %s %s %s", i+1, words[i%len(words)], words[(i*5+3)%len(words)], words[(i*7+1)%len(words)]))
		ys = append(ys, y)
		y += 48
		if i%5 == 4 {
			y += 40
		}
	}
	img := image.NewGray(image.Rect(0, 0, 900, y+60))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	d := &font.Drawer{Dst: img, Src: image.NewUniform(color.Gray{0}), Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(60, ys[i])
		d.DrawString(l)
	}
	return img, lines
}

// TestReadInBands: a tall page read in bands gives the words of the page read whole, at the
// same places, and its lines in page order.
func TestReadInBands(t *testing.T) {
	page, lines := tallPage(t, 60)
	tess := newTesseract()
	defer tess.close()
	whole, err := tess.readBands(page, true, 1, "eng", 0)
	if err != nil {
		t.Fatal(err)
	}
	const rows = 500
	if n := len(scan.Bands(page, rows)); n < 5 {
		t.Fatalf("only %d bands: the test does not exercise banding", n)
	}
	banded, err := tess.readBands(page, true, 1, "eng", rows)
	if err != nil {
		t.Fatal(err)
	}

	// Recall against the text drawn.
	found := map[string]int{}
	for _, w := range banded {
		found[w.Text]++
	}
	total, hit := 0, 0
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			total++
			if found[w] > 0 {
				found[w]--
				hit++
			}
		}
	}
	if recall := float64(hit) / float64(total); recall < 0.97 {
		t.Errorf("word recall in bands %.3f (%d of %d)", recall, hit, total)
	}

	// The same words at the same places as the whole reading.
	same := 0
	for _, w := range whole {
		for _, b := range banded {
			if b.Text == w.Text && abs(b.Box.Min.X-w.Box.Min.X) <= 2 && abs(b.Box.Min.Y-w.Box.Min.Y) <= 2 &&
				abs(b.Box.Max.X-w.Box.Max.X) <= 2 && abs(b.Box.Max.Y-w.Box.Max.Y) <= 2 {
				same++
				break
			}
		}
	}
	if agree := float64(same) / float64(len(whole)); agree < 0.97 {
		t.Errorf("only %.3f of the whole page's words read at the same place in bands", agree)
	}

	// Line numbers: every one found, in reading order and going down the page.
	var prevOrder, prevY, next = -1, -1, 1
	for i, w := range banded {
		if w.Text != fmt.Sprintf("%03d", next) || i == 0 || banded[i-1].Text != "Line" {
			continue
		}
		if w.Order <= prevOrder || w.Box.Min.Y <= prevY {
			t.Errorf("line %d out of order (order %d after %d, y %d after %d)", next, w.Order, prevOrder, w.Box.Min.Y, prevY)
		}
		prevOrder, prevY = w.Order, w.Box.Min.Y
		next++
	}
	if next-1 != len(lines) {
		t.Errorf("found line numbers 1..%d in order, want 1..%d", next-1, len(lines))
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
