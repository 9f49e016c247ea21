package pdf

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
)

// TestDump prints the text boxes of the file named by PDF_DUMP; a development aid.
func TestDump(t *testing.T) {
	path := os.Getenv("PDF_DUMP")
	if path == "" {
		t.Skip("PDF_DUMP not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= doc.NumPages(); n++ {
		p, err := doc.Page(context.Background(), n, DefaultLAParams())
		if err != nil {
			fmt.Println("page", n, "error", err)
			continue
		}
		fmt.Printf("=== page %d %gx%g glyphs=%d boxes=%d figs=%d links=%d warn=%v\n", n, p.Width, p.Height, len(p.Glyphs), len(p.Boxes), len(p.Figures), len(p.Links), p.Warnings)
		for _, b := range p.Boxes {
			fmt.Printf("[%.1f %.1f %.1f %.1f] %q\n", b.X0, b.Y0, b.X1, b.Y1, b.Text())
		}
	}
}
