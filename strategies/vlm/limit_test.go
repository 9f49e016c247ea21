package vlm

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/contract"
)

// TestRenderUnderMemoryLimit: pdftoppm runs under its own memory limit
// (QUARRY_CONVERTER_MEMORY_MB), and a page that needs more is a 422 naming the renderer and
// the limit, not an empty image or the plugin killed; the default limit renders the page.
func TestRenderUnderMemoryLimit(t *testing.T) {
	for _, tool := range []string{"pdftoppm", "prlimit"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool, "not installed")
		}
	}
	data, err := os.ReadFile(refDocs + "layout-parser-paper-fast.pdf")
	if err != nil {
		t.Fatal(err)
	}
	path, err := writeTemp(data)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(path)
	// 3,072 px square in RGB is some 28 MB of bitmap: over 8 MiB.
	lim := limitsFor("google", "gemini-2.5-pro")
	t.Setenv("QUARRY_CONVERTER_MEMORY_MB", "8")
	_, err = renderPage(context.Background(), path, 1, 400, 612, 792, lim)
	var ce *contract.Error
	if err == nil || !errors.As(err, &ce) || ce.Kind != contract.KindUnprocessable ||
		!strings.Contains(err.Error(), "pdftoppm ran out of memory under its limit of 8 MiB") {
		t.Fatalf("page over an 8 MiB limit: %v", err)
	}
	t.Setenv("QUARRY_CONVERTER_MEMORY_MB", "")
	img, err := renderPage(context.Background(), path, 1, 400, 612, 792, lim)
	if err != nil || len(img.Data) == 0 {
		t.Fatalf("default limit: %d bytes, %v", len(img.Data), err)
	}
}
