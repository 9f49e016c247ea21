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

	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all"
)

// markupFiles are the text and markup documents of the reference corpus (always present) and of
// the bench corpus beside the repository (used when present).
func markupFiles(b *testing.B) []string {
	files := globFiles("../testdata/reference/docs/*.html", "../testdata/reference/docs/*.md",
		benchCorpus+"/office/*.html")
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
	compareWithPeer(b, "pandoc", markupFiles(b), nil, func(f string) *exec.Cmd {
		from := "html"
		if filepath.Ext(f) == ".md" {
			from = "markdown"
		}
		return exec.Command(pandoc, "-f", from, "-t", "plain", f, "-o", os.DevNull)
	})
}

// BenchmarkText partitions a large plain-text book (MB/s and elements/s).
func BenchmarkText(b *testing.B) {
	path := benchCorpus + "/office/book-war-and-peace-1225p.txt"
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
