package html

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/element"
)

// BenchmarkPartitionHTML partitions the office benchmark corpus's HTML files and, in the same
// run, converts them with a peer (Debian's html2text, else pandoc -t plain), printing both
// throughputs and the ratio.
func BenchmarkPartitionHTML(b *testing.B) {
	files, _ := filepath.Glob("/work/shared/corpus/bench/office/*.html")
	if len(files) == 0 {
		b.Skip("no benchmark corpus")
	}
	var docs [][]byte
	total := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, data)
		total += len(data)
	}
	b.SetBytes(int64(total))
	b.ResetTimer()
	start := time.Now()
	elems := 0
	for i := 0; i < b.N; i++ {
		for _, d := range docs {
			err := PartitionBytes(context.Background(), d, nil, func(element.Element) error { elems++; return nil })
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	ours := float64(total*b.N) / time.Since(start).Seconds() / 1e6
	b.StopTimer()
	b.ReportMetric(float64(elems)/float64(b.N), "elements/op")

	peer, args := "html2text", []string{"-utf8"}
	if _, err := exec.LookPath(peer); err != nil {
		peer, args = "pandoc", []string{"-f", "html", "-t", "plain"}
		if _, err := exec.LookPath(peer); err != nil {
			b.Logf("quarry %.1f MB/s; no peer tool installed", ours)
			return
		}
	}
	runs := 3
	pstart := time.Now()
	for i := 0; i < runs; i++ {
		for _, d := range docs {
			cmd := exec.Command(peer, args...)
			cmd.Stdin = bytes.NewReader(d)
			if err := cmd.Run(); err != nil {
				b.Fatalf("%s: %v", peer, err)
			}
		}
	}
	theirs := float64(total*runs) / time.Since(pstart).Seconds() / 1e6
	b.Logf("quarry %.1f MB/s, %s %.1f MB/s, ratio %.1fx (%d files, %.1f MB)", ours, peer, theirs, ours/theirs, len(docs), float64(total)/1e6)
}
