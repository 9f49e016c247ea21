//go:build cgo

package ocr

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/pdf"
)

// TestRenderUnderMemoryLimit: pdftoppm renders a page under its own memory limit
// (QUARRY_CONVERTER_MEMORY_MB); a page needing more is a 422 naming the renderer and the limit,
// not an empty or partial page, and the default limit renders it.
func TestRenderUnderMemoryLimit(t *testing.T) {
	for _, tool := range []string{"pdftoppm", "prlimit"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool, "not installed")
		}
	}
	data, err := os.ReadFile("../../testdata/reference/docs/layout-parser-paper-fast.pdf")
	if err != nil {
		t.Fatal(err)
	}
	d, err := pdf.Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	// 600 DPI grey: a 33-megapixel bitmap, over 8 MiB.
	s, err := newPDFSource(&contract.Document{}, data, d, 600)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	t.Setenv("QUARRY_CONVERTER_MEMORY_MB", "8")
	_, err = s.render(context.Background(), 1)
	var ce *contract.Error
	if !errors.As(err, &ce) || ce.Kind != contract.KindUnprocessable || !strings.Contains(err.Error(), "pdftoppm ran out of memory under its limit of 8 MiB") {
		t.Fatalf("page over an 8 MiB limit: %v", err)
	}
	t.Setenv("QUARRY_CONVERTER_MEMORY_MB", "")
	if _, err := s.render(context.Background(), 1); err != nil {
		t.Fatalf("default limit: %v", err)
	}
}
