package docx

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

const benchDir = "/work/shared/corpus/bench/office"

// BenchmarkPartition partitions every .docx file of the shared benchmark corpus.
func BenchmarkPartition(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(benchDir, "*.docx"))
	if len(files) == 0 {
		b.Skip("no benchmark corpus")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(f), func(b *testing.B) {
			opts := engine.DefaultOptions()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = 0
				err := Partition(context.Background(), bytes.NewReader(data), int64(len(data)), &opts, func(element.Element) error {
					n++
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "elements")
		})
	}
}
