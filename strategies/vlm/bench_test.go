package vlm

import (
	"context"
	"os"
	"testing"
)

// BenchmarkPageElements measures turning one dense answer into elements (the strategy's own
// CPU cost per page; the provider's latency dwarfs it).
func BenchmarkPageElements(b *testing.B) {
	answer, err := os.ReadFile("testdata/answers/paper-page1.html")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		if _, err := pageElements(context.Background(), string(answer), 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderPage measures rendering one PDF page for a provider (pdftoppm at 200 DPI,
// fitted to 1568 px).
func BenchmarkRenderPage(b *testing.B) {
	data, err := os.ReadFile(refDocs + "layout-parser-paper-fast.pdf")
	if err != nil {
		b.Fatal(err)
	}
	path, err := writeTemp(data)
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(path)
	lim := limitsFor("anthropic", "claude-sonnet-4-20250514")
	for b.Loop() {
		img, err := renderPage(context.Background(), path, 1, 200, 612, 792, lim)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(img.Data)), "png-bytes")
	}
}
