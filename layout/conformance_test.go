package layout

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/metrics"
	"github.com/quarrydocs/quarry/pdf"
)

const refDir = "../testdata/reference"

// layoutFile lays out every page of a PDF.
func layoutFile(t testing.TB, path string, opts Options) []element.Element {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	doc := New(opts)
	var out []element.Element
	for n := 1; n <= d.NumPages(); n++ {
		p, err := d.Page(ctx, n, Params(pdf.DefaultLAParams()))
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.Add(ctx, p); err != nil {
			t.Fatal(err)
		}
		for _, l := range doc.Ready() {
			out = append(out, l.Elements...)
		}
	}
	for _, l := range doc.Finish() {
		out = append(out, l.Elements...)
	}
	return out
}

// The reference's hi_res goldens of born-digital PDFs (issue 15): CCT >= 0.97 and
// element-type frequency >= 0.85.
func TestReferenceHiResGoldens(t *testing.T) {
	for _, c := range []struct{ doc, golden string }{
		{"layout-parser-paper-fast.pdf", "ingest-assets-2024/layout-parser-paper-fast.pdf.json"},
		{"list-item-example.pdf", "ingest-assets-2024/list-item-example.pdf.json"},
	} {
		out := layoutFile(t, filepath.Join(refDir, "docs", c.doc), Options{TableHTML: true})
		b, err := os.ReadFile(filepath.Join(refDir, "expected", c.golden))
		if err != nil {
			t.Fatal(err)
		}
		var gold []element.Element
		if err := json.Unmarshal(b, &gold); err != nil {
			t.Fatal(err)
		}
		cct := metrics.BatchAccuracy(metrics.CCT(out), metrics.CCT(gold))
		typ := metrics.TypeAccuracy(out, gold)
		t.Logf("%-30s elements %3d (gold %3d)  CCT %.3f  types %.3f", c.doc, len(out), len(gold), cct, typ)
		if testing.Verbose() {
			for _, e := range out {
				t.Logf("  %-16s p%d %.70q", e.Type, *e.Metadata.PageNumber, e.Text)
			}
		}
		if cct < 0.97 {
			t.Errorf("%s: CCT %.3f < 0.97", c.doc, cct)
		}
		if typ < 0.85 {
			t.Errorf("%s: element types %.3f < 0.85", c.doc, typ)
		}
	}
}
