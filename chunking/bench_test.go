package chunking

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

// benchElements builds n elements by cycling through the reference's real partition outputs
// (ingest assets and the handbook's elements), numbering pages so every strategy has pages to
// respect.
func benchElements(b *testing.B, n int) []element.Element {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(refDir, "ingest-assets-2024", "*.json"))
	var pool []element.Element
	for _, f := range files {
		pool = append(pool, loadElements(b, f)...)
	}
	pool = append(pool, origInput(b, loadElements(b, filepath.Join(refDir, "head/local-single-file-basic-chunking/handbook-1p.docx.json")))...)
	out := make([]element.Element, n)
	for i := range out {
		e := pool[i%len(pool)]
		e.Metadata.PageNumber = element.Int(1 + i/40)
		out[i] = e
	}
	return out
}

// BenchmarkChunk chunks 100 000 elements with each strategy and the API's defaults
// (max_characters 500, orig_elements kept).
func BenchmarkChunk(b *testing.B) {
	in := benchElements(b, 100_000)
	for _, s := range []string{Basic, ByTitle, ByPage, BySimilarity} {
		b.Run(s, func(b *testing.B) {
			o := Options{Strategy: s, MultipageSections: true, IncludeOrigElements: true}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Chunk(context.Background(), in, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(in))*float64(b.N)/b.Elapsed().Seconds(), "elements/s")
		})
	}
}
