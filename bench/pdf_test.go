package bench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/pdf"
	_ "github.com/quarrydocs/quarry/strategies/fast"
)

// BenchmarkPDFFast measures pages/s of the fast strategy (in process, through engine.Partition)
// on the bench corpus's born-digital PDFs next to poppler's pdftotext and pdftotext
// -bbox-layout run in the same iteration on the same files. It prints per-file pages/s and
// ratios (wall and CPU) and reports the geometric mean of the per-file ratios, the figure the
// issue's floor (≥ 0.5× pdftotext on one core) is stated in. Run it on one core as the protocol
// does: go test -run '^$' -bench PDFFast -cpu 1 ./bench/. Process start-up is in the peers'
// figures but not in Quarry's (a few ms against 50–400 ms a file); bench/run.sh times the CLI.
func BenchmarkPDFFast(b *testing.B) {
	files := globFiles(benchCorpus + "/pdf/*.pdf")
	if len(files) == 0 {
		b.Skip("bench corpus absent")
	}
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		b.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	type row struct {
		name        string
		data        []byte
		pages       int
		qWall, qCPU time.Duration
		pWall, pCPU time.Duration // pdftotext
		bWall, bCPU time.Duration // pdftotext -bbox-layout
		elements    int
	}
	ctx := context.Background()
	rows := make([]*row, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		d, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		rows = append(rows, &row{name: filepath.Base(f), data: data, pages: d.NumPages()})
	}
	opts := engine.DefaultOptions()
	opts.Strategy = "fast"
	opts.InProcess = true
	run := func(wall, cpu *time.Duration, args ...string) {
		cmd := exec.Command(pdftotext, args...)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("pdftotext %s: %v: %s", strings.Join(args, " "), err, out)
		}
		*wall += time.Since(start)
		*cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for _, r := range rows {
			start, cpu0 := time.Now(), cpuTime()
			elems, err := engine.Partition(ctx, engine.NewDocument(r.name, r.data), opts)
			if err != nil {
				b.Fatalf("%s: %v", r.name, err)
			}
			r.qWall += time.Since(start)
			r.qCPU += cpuTime() - cpu0
			r.elements += len(elems)
			path := filepath.Join(benchCorpus, "pdf", r.name)
			run(&r.pWall, &r.pCPU, path, os.DevNull)
			run(&r.bWall, &r.bCPU, "-bbox-layout", path, os.DevNull)
		}
	}
	b.StopTimer()
	pps := func(pages int, d time.Duration) float64 { return float64(pages*b.N) / d.Seconds() }
	var logR, logRCPU, logB float64
	var pages int
	var qWall, pWall time.Duration
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-38s %5s %8s %9s %8s %6s %9s %6s %9s\n", "file", "pages", "quarry", "pdftotext", "bbox",
		"q/ptt", "q/ptt cpu", "q/bbox", "elements")
	for _, r := range rows {
		q, p, bb := pps(r.pages, r.qWall), pps(r.pages, r.pWall), pps(r.pages, r.bWall)
		rc := r.pCPU.Seconds() / r.qCPU.Seconds()
		fmt.Fprintf(&sb, "%-38s %5d %8.1f %9.1f %8.1f %6.2f %9.2f %6.2f %9d\n", r.name, r.pages, q, p, bb, q/p, rc,
			q/bb, r.elements/b.N)
		logR += math.Log(q / p)
		logRCPU += math.Log(rc)
		logB += math.Log(q / bb)
		pages += r.pages
		qWall += r.qWall
		pWall += r.pWall
	}
	k := float64(len(rows))
	geo, geoCPU, geoB := math.Exp(logR/k), math.Exp(logRCPU/k), math.Exp(logB/k)
	fmt.Fprintf(&sb, "%d pages: quarry %.0f pages/s, pdftotext %.0f pages/s (whole set); geomean of per-file ratios: "+
		"%.2f× pdftotext (%.2f× by CPU), %.2f× pdftotext -bbox-layout; GOMAXPROCS=%d",
		pages, pps(pages, qWall), pps(pages, pWall), geo, geoCPU, geoB, runtime.GOMAXPROCS(0))
	b.Log(sb.String())
	b.ReportMetric(pps(pages, qWall), "pages/s")
	b.ReportMetric(geo, "x-pdftotext")
	b.ReportMetric(geoCPU, "x-pdftotext-cpu")
	b.ReportMetric(geoB, "x-bbox")
}

// BenchmarkPDFFastPages is the same work without the peers: pages/s and allocations of the
// fast strategy over the whole set, for profiling (-cpuprofile, -memprofile) without child
// processes in the way.
func BenchmarkPDFFastPages(b *testing.B) {
	files := globFiles(benchCorpus + "/pdf/*.pdf")
	if len(files) == 0 {
		b.Skip("bench corpus absent")
	}
	ctx := context.Background()
	opts := engine.DefaultOptions()
	opts.Strategy = "fast"
	opts.InProcess = true
	data := make([][]byte, len(files))
	pages := 0
	for i, f := range files {
		var err error
		if data[i], err = os.ReadFile(f); err != nil {
			b.Fatal(err)
		}
		d, err := pdf.Open(ctx, bytes.NewReader(data[i]), int64(len(data[i])))
		if err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		pages += d.NumPages()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for i, f := range files {
			err := engine.PartitionStream(ctx, engine.NewDocument(filepath.Base(f), data[i]), opts,
				func(element.Element) error { return nil })
			if err != nil {
				b.Fatalf("%s: %v", f, err)
			}
		}
	}
	b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
}
