package fast

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/pdf"
)

const benchDir = "../../../shared/corpus/bench/pdf"

// BenchmarkCorpus measures pages/s of the fast strategy on the bench corpus next to poppler's
// pdftotext run in the same invocation on the same files, and prints the ratio per file and as
// a geometric mean. It is skipped when the corpus is absent.
func BenchmarkCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(benchDir, "*.pdf"))
	if len(files) == 0 {
		b.Skip("bench corpus absent")
	}
	pdftotext, _ := exec.LookPath("pdftotext")
	type row struct {
		name         string
		pages        int
		quarry, peer time.Duration
	}
	var rows []row
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		d, err := pdf.Open(context.Background(), bytesReader(data), int64(len(data)))
		if err != nil {
			b.Logf("%s: %v", filepath.Base(f), err)
			continue
		}
		rows = append(rows, row{name: filepath.Base(f), pages: d.NumPages()})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range rows {
			data, _ := os.ReadFile(filepath.Join(benchDir, rows[k].name))
			start := time.Now()
			doc := engine.NewDocument(rows[k].name, data)
			doc.MIMEType = "application/pdf"
			opts := engine.DefaultOptions()
			if err := Partition(ctx0(opts), doc, opts.Keys(), func(element.Element) error { return nil }); err != nil {
				b.Fatal(err)
			}
			rows[k].quarry += time.Since(start)
		}
	}
	b.StopTimer()
	if pdftotext != "" {
		for i := 0; i < b.N; i++ {
			for k := range rows {
				start := time.Now()
				if err := exec.Command(pdftotext, filepath.Join(benchDir, rows[k].name), os.DevNull).Run(); err != nil {
					b.Logf("pdftotext %s: %v", rows[k].name, err)
				}
				rows[k].peer += time.Since(start)
			}
		}
	}
	var logRatio, logQ float64
	totalPages := 0
	var totalQ time.Duration
	fmt.Printf("%-40s %6s %12s %12s %7s\n", "file", "pages", "quarry p/s", "pdftotext p/s", "ratio")
	for _, r := range rows {
		q := float64(r.pages*b.N) / r.quarry.Seconds()
		p := math.NaN()
		if r.peer > 0 {
			p = float64(r.pages*b.N) / r.peer.Seconds()
		}
		fmt.Printf("%-40s %6d %12.1f %12.1f %7.2f\n", r.name, r.pages, q, p, q/p)
		logRatio += math.Log(q / p)
		logQ += math.Log(q)
		totalPages += r.pages
		totalQ += r.quarry
	}
	n := float64(len(rows))
	fmt.Printf("geomean: quarry %.1f pages/s, ratio to pdftotext %.2f; overall %.1f pages/s\n",
		math.Exp(logQ/n), math.Exp(logRatio/n), float64(totalPages*b.N)/totalQ.Seconds())
	b.ReportMetric(float64(totalPages*b.N)/totalQ.Seconds(), "pages/s")
	b.ReportMetric(math.Exp(logRatio/n), "x-pdftotext")
}

func bytesReader(b []byte) *bytesReaderAt { return &bytesReaderAt{b} }

type bytesReaderAt struct{ b []byte }

func (r *bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r.b)) {
		return 0, errEOF
	}
	n := copy(p, r.b[off:])
	if n < len(p) {
		return n, errEOF
	}
	return n, nil
}

var errEOF = io.EOF
