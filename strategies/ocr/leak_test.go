//go:build cgo

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

	"github.com/quarrydocs/quarry/strategies/ocr/internal/cheap"
	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
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
// and bounds the C heap's growth per page: Tesseract's hOCR document is a C string (tens of KB a
// page) that must be freed once copied into Go memory, or a long-running plugin grows until its
// memory limit kills it. The resident set size, after the Go and C heaps have given back what
// they can, is logged too; it is too noisy (allocator fragmentation) to bound a 10 KB leak.
func TestRecognitionDoesNotLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("runs recognition 70 times")
	}
	if os.Getenv("MALLOC_ARENA_MAX") != "1" {
		t.Skip("the C heap is measured with MALLOC_ARENA_MAX=1 (TestMain sets it)")
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
	img := scan.EncodeForOCR(band, false)

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
		cheap.Trim()
		return vmRSS(t)
	}
	// Warm-up: Tesseract's caches and the allocators reach their steady state.
	run(10)
	if err := tess.client.SetImageFromBytes(img); err != nil {
		t.Fatal(err)
	}
	hocr, err := tess.hocr()
	if err != nil {
		t.Fatal(err)
	}
	// The freed copy is gosseract's text, byte for byte (gosseract's call leaks this once).
	if want, err := tess.client.HOCRText(); err != nil || hocr != want {
		t.Fatalf("hOCR differs from gosseract's (err %v):\n%s\nwant\n%s", err, hocr, want)
	}
	rss0, heap0 := settle(), cheap.InUse()
	const pages = 60
	run(pages)
	heap1 := cheap.InUse()
	rss1 := settle()
	heapPerPage := float64(heap1-heap0) / pages
	t.Logf("hOCR %d bytes a page; over %d pages, C heap in use %d -> %d bytes (%.0f bytes/page), RSS %d -> %d KB (%.1f KB/page)",
		len(hocr), pages, heap0, heap1, heapPerPage, rss0, rss1, float64(rss1-rss0)/pages)
	// About 1 KB a page remains with hOCR freed (Tesseract's own, not the hOCR string).
	if limit := float64(len(hocr)) / 4; heapPerPage > limit {
		t.Errorf("the C heap grows %.0f bytes per page (hOCR %d bytes); at most %.0f expected", heapPerPage, len(hocr), limit)
	}
}

// TestGosseractClientLayout pins what tesshocr.go reads from gosseract's unexported fields
// (v2.4.1's api, pixImage and shouldInit): if a gosseract upgrade renames or retypes them,
// recognition silently falls back to gosseract's leaking HOCRText, and this test says so.
func TestGosseractClientLayout(t *testing.T) {
	tess := newTesseract()
	defer tess.close()
	h, ok := clientHandles(tess.client)
	if !ok {
		t.Fatal("gosseract.Client no longer has the api, pixImage and shouldInit fields tesshocr.go reads: hOCR would leak again; adapt clientHandles to the new version")
	}
	if h.api == nil || h.pix != nil || h.ready {
		t.Fatalf("new client: %+v, want an API, no image, not initialised", h)
	}
	if err := tess.prepare("eng"); err != nil {
		t.Fatal(err)
	}
	if h, _ = clientHandles(tess.client); h.api == nil || h.pix == nil || !h.ready {
		t.Fatalf("prepared client: %+v, want an API, an image, initialised", h)
	}
	// A language change makes gosseract re-initialise, and recognition initialises it again.
	if err := tess.setLanguages("eng+osd"); err != nil {
		t.Fatal(err)
	}
	if h, _ = clientHandles(tess.client); h.ready {
		t.Fatal("languages changed, but the client reads as initialised")
	}
	words, err := tess.recognize(blankPage, "eng+osd")
	if err != nil {
		t.Fatal(err)
	}
	if h, _ = clientHandles(tess.client); !h.ready || len(words) != 0 {
		t.Fatalf("after recognition: %+v, %d words", h, len(words))
	}
}
