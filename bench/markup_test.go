// Package bench holds benchmarks that measure Quarry against peer tools in the same run on the
// same inputs and report the ratio. Run them with `make bench` or
// `go test -run '^$' -bench . ./bench/`.
package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all"
)

// markupFiles are the text and markup documents of the reference corpus (always present) and of
// the bench corpus beside the repository (used when present).
func markupFiles(b *testing.B) []string {
	var files []string
	for _, pattern := range []string{
		"../testdata/reference/docs/*.html", "../testdata/reference/docs/*.md",
		"../../shared/corpus/bench/office/*.html",
	} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) == 0 {
		b.Fatal("no markup files found")
	}
	return files
}

// BenchmarkMarkupVsPandoc partitions HTML and Markdown documents with Quarry and converts the
// same files to plain text with pandoc, reporting both throughputs and their ratio.
func BenchmarkMarkupVsPandoc(b *testing.B) {
	pandoc, err := exec.LookPath("pandoc")
	if err != nil {
		b.Skip("pandoc not installed (make deps installs it)")
	}
	files := markupFiles(b)
	data := make([][]byte, len(files))
	total := 0
	for i, f := range files {
		if data[i], err = os.ReadFile(f); err != nil {
			b.Fatal(err)
		}
		total += len(data[i])
	}
	ctx := context.Background()
	var quarryTime, peerTime time.Duration
	elements := 0
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		start := time.Now()
		for i, f := range files {
			elems, err := engine.Partition(ctx, engine.NewDocument(filepath.Base(f), data[i]), engine.DefaultOptions())
			if err != nil {
				b.Fatalf("%s: %v", f, err)
			}
			elements += len(elems)
		}
		quarryTime += time.Since(start)
		start = time.Now()
		for _, f := range files {
			from := "html"
			if filepath.Ext(f) == ".md" {
				from = "markdown"
			}
			if out, err := exec.Command(pandoc, "-f", from, "-t", "plain", f).CombinedOutput(); err != nil {
				b.Fatalf("pandoc %s: %v: %s", f, err, out)
			}
		}
		peerTime += time.Since(start)
	}
	b.StopTimer()
	mb := float64(total) * float64(b.N) / (1 << 20)
	qMBs, pMBs := mb/quarryTime.Seconds(), mb/peerTime.Seconds()
	b.ReportMetric(qMBs, "quarry-MB/s")
	b.ReportMetric(float64(elements)/quarryTime.Seconds(), "quarry-elements/s")
	b.ReportMetric(pMBs, "pandoc-MB/s")
	b.ReportMetric(qMBs/pMBs, "ratio")
	b.Logf("%d files, %.1f MB per pass: quarry %.1f MB/s (%.0f elements/s), pandoc %.1f MB/s, ratio %.1fx",
		len(files), float64(total)/(1<<20), qMBs, float64(elements)/quarryTime.Seconds(), pMBs, qMBs/pMBs)
}

// BenchmarkText partitions a large plain-text book (MB/s and elements/s).
func BenchmarkText(b *testing.B) {
	path := "../../shared/corpus/bench/office/book-war-and-peace-1225p.txt"
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip("bench corpus not present")
	}
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	elements := 0
	for n := 0; n < b.N; n++ {
		elems, err := engine.Partition(ctx, engine.NewDocument("book.txt", data), engine.DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		elements += len(elems)
	}
	b.ReportMetric(float64(elements)/b.Elapsed().Seconds(), "elements/s")
}
