//go:build linux

package bench

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/plugins/host"
)

// BenchmarkOCRLargePage measures peak memory and time reading one 40-megapixel colour page
// (10,973 × 3,570) covered with text (about 4,300 words), through the OCR plugin as deployed
// (hi_res, one Tesseract client) and with the tesseract CLI on the same PNG in the same run,
// and prints the ratios. The plugin reads such a page in bands; the CLI reads it whole.
// Run: go test -run '^$' -bench OCRLargePage -benchtime 1x ./bench/
func BenchmarkOCRLargePage(b *testing.B) {
	for _, tool := range []string{"tesseract", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s not installed", tool)
		}
	}
	dir := b.TempDir()
	page := filepath.Join(dir, "dense.png")
	if err := os.WriteFile(page, densePage(b), 0o600); err != nil {
		b.Fatal(err)
	}
	plugin := filepath.Join(dir, "plugins", host.Prefix+"ocr")
	if o, err := exec.Command("go", "build", "-o", plugin, "../cmd/quarry-plugin-ocr").CombinedOutput(); err != nil {
		b.Skipf("build the OCR plugin (needs cgo and libtesseract-dev): %v %s", err, o)
	}
	if _, err := host.WriteChecksum(plugin); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		b.Fatal(err)
	}
	for n := 0; n < b.N; n++ {
		// A fresh plugin process each time, so its peak is this page's.
		h := host.New(host.Config{Dirs: []string{filepath.Dir(plugin)}, Workers: 1, Timeout: 20 * time.Minute, NoCache: true})
		specs, _ := h.Discover()
		var ocr *host.Plugin
		for _, s := range specs {
			if s.Name == "ocr" {
				s.Env = []string{"QUARRY_OCR_WORKERS=1"}
				ocr, _ = h.Add(s)
			}
		}
		if ocr == nil {
			b.Fatal("ocr plugin not found")
		}
		doc := engine.NewDocument("dense.png", data)
		doc.MIMEType = "image/png"
		opts := engine.DefaultOptions()
		opts.Strategy = "hi_res"
		words := 0
		start := time.Now()
		err := ocr.Partitioner("hi_res").Partition(context.Background(), doc, &opts, func(e element.Element) error {
			words += len(strings.Fields(e.Text))
			return nil
		})
		qTime := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		qPeak := "?"
		for _, pid := range h.Processes() {
			qPeak = peakRSS(pid)
		}
		h.Close()

		var out bytes.Buffer
		cmd := exec.Command("tesseract", page, "-")
		cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
		cmd.Stdout = &out
		start = time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		tTime := time.Since(start)
		tPeakKB := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KB on Linux
		tWords := len(strings.Fields(out.String()))

		var qKB int64
		fmt.Sscanf(qPeak, "%d kB", &qKB)
		fmt.Printf("OCR of a 40-megapixel page of dense text: quarry hi_res plugin peak RSS %d MB in %.1f s (%d words), tesseract CLI %d MB in %.1f s (%d words); memory ratio %.2f, time ratio %.2f\n",
			qKB>>10, qTime.Seconds(), words, tPeakKB>>10, tTime.Seconds(), tWords,
			float64(qKB)/float64(tPeakKB), qTime.Seconds()/tTime.Seconds())
	}
}

// densePage is a 10,973 × 3,570 colour PNG covered with lines of DejaVu Sans text (dark on
// white, tinted), the page of the OCR memory test.
func densePage(b *testing.B) []byte {
	const dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf" // Debian fonts-dejavu-core
	fb, err := os.ReadFile(dejaVu)
	if err != nil {
		b.Skipf("font: %v", err)
	}
	f, err := opentype.Parse(fb)
	if err != nil {
		b.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 30, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		b.Fatal(err)
	}
	defer face.Close()
	lines := []string{
		"The warehouse inventory was counted on Monday morning.",
		"Every shelf in the northern building was checked twice.",
		"Missing pallets were reported to the regional manager.",
		"A complete list of damaged goods follows this summary.",
		"Deliveries resume next week once the audit is finished.",
	}
	const w, h = 10973, 3570
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	d := &font.Drawer{Dst: img, Src: image.NewUniform(color.NRGBA{40, 20, 40, 255}), Face: face}
	for x := 80; x+1000 <= w; x += 1000 {
		for y, i := 90, 0; y < h-40; y, i = y+52, i+1 {
			if i%5 == 0 && i > 0 {
				y += 60
			}
			d.Dot = fixed.P(x, y)
			d.DrawString(lines[i%len(lines)])
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
