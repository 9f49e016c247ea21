package ocr

import (
	"bufio"
	"image"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// vmRSS reads the process's resident set size in KB from /proc/self/status.
func vmRSS(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("VmRSS %q: %v", v, err)
			}
			return kb
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// TestRecognitionDoesNotLeak runs recognition many times with one client on a small text image
// and bounds the process's resident growth per page: Tesseract's hOCR document is a C string
// (tens of KB a page) that must be freed once copied into Go memory, or a long-running plugin
// grows until its memory limit kills it.
func TestRecognitionDoesNotLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("runs recognition 70 times")
	}
	data, err := os.ReadFile(filepath.Join(refDir, "docs", "layout-parser-paper-with-table.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := decodeGrey(data, -1)
	if err != nil {
		t.Fatal(err)
	}
	// A band of body text: enough words for a sizeable hOCR document, quick to recognise.
	b := page.Bounds()
	band := page.SubImage(image.Rect(b.Min.X, b.Min.Y+b.Dy()/2, b.Max.X, b.Min.Y+b.Dy()/2+b.Dy()/8)).(*image.Gray)
	img := encodeForOCR(band, false)

	tess := newTesseract()
	defer tess.close()
	if err := tess.prepare("eng"); err != nil {
		t.Fatal(err)
	}
	run := func(n int) {
		for range n {
			words, err := tess.recognize(img, "eng")
			if err != nil {
				t.Fatal(err)
			}
			if len(words) < 20 {
				t.Fatalf("%d words: the band has no text to recognise", len(words))
			}
		}
	}
	settle := func() int {
		runtime.GC()
		debug.FreeOSMemory()
		return vmRSS(t)
	}
	// Warm-up: Tesseract's caches and the allocators' arenas reach their steady state.
	run(10)
	hocr, err := tess.client.HOCRText()
	if err != nil {
		t.Fatal(err)
	}
	before := settle()
	const pages = 60
	run(pages)
	after := settle()
	perPage := float64(after-before) / pages
	t.Logf("RSS %d -> %d KB over %d pages: %.1f KB/page (hOCR %d bytes a page)", before, after, pages, perPage, len(hocr))
	if perPage > 2 {
		t.Errorf("resident memory grows %.1f KB per page", perPage)
	}
}
