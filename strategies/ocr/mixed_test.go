//go:build cgo

package ocr

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/strategies/ocr/auto"
)

// A PDF with two born-digital pages and a scanned one: auto sends the text pages through fast
// and the scan through OCR, in page order, in one result.
func TestAutoPerPageMixedPDF(t *testing.T) {
	if _, err := exec.LookPath("pdfunite"); err != nil {
		t.Skip("pdfunite (poppler-utils) not installed")
	}
	dir := t.TempDir()
	mixedPDF := filepath.Join(dir, "mixed.pdf")
	docs := filepath.Join(refDir, "docs")
	// Page 1 scanned, pages 2-3 born-digital.
	if out, err := exec.Command("pdfunite", filepath.Join(docs, "loremipsum-flat.pdf"), filepath.Join(docs, "list-item-example.pdf"), mixedPDF).CombinedOutput(); err != nil {
		t.Fatalf("pdfunite: %v %s", err, out)
	}
	// The router is built here rather than installed (auto.Install): the registry is frozen
	// once the package's other tests have partitioned, and they expect the plain strategies.
	fast, okf := engine.LookupStrategy("fast")
	ocrOnly, oko := engine.LookupStrategy("ocr_only")
	if !okf || !oko {
		t.Fatal("fast or ocr_only not registered")
	}
	router := auto.NewRouter(engine.Contract(fast), engine.Contract(fast), engine.Contract(ocrOnly))
	data, err := os.ReadFile(mixedPDF)
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.DefaultOptions()
	opts.PDFInferTableStructure = false // auto would pick hi_res for the whole file otherwise
	doc := engine.NewDocument("mixed.pdf", data)
	doc.MIMEType = "application/pdf"
	var els []element.Element
	err = router.Partition(context.Background(), doc, opts.Keys(), func(e element.Element) error { els = append(els, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	last := 0
	var scanText, digitalText strings.Builder
	for _, e := range els {
		p := *e.Metadata.PageNumber
		if p < last {
			t.Fatalf("page %d after page %d: not in page order", p, last)
		}
		last = p
		if p == 1 {
			scanText.WriteString(e.Text + " ")
			if e.Metadata.Coordinates != nil && e.Metadata.Coordinates.System != "PixelSpace" {
				t.Errorf("scanned page element not from OCR: %+v", e)
			}
		} else {
			digitalText.WriteString(e.Text + " ")
		}
	}
	if !strings.Contains(strings.ToLower(scanText.String()), "lorem ipsum") {
		t.Errorf("scanned page not OCRed: %q", scanText.String())
	}
	if !strings.Contains(digitalText.String(), "Module One - Introduction to Product Development and Quality Assurance") {
		t.Errorf("text pages not read from the text layer: %q", digitalText.String())
	}
	if last != 3 {
		t.Errorf("last page %d, want 3", last)
	}
}
