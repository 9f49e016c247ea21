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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/layout"
	"github.com/quarrydocs/quarry/metrics"
	"github.com/quarrydocs/quarry/pdf"
	"github.com/quarrydocs/quarry/strategies/fast"
	"github.com/quarrydocs/quarry/strategies/ocr/auto"
)

// BenchmarkPDFDefault measures the path most users hit, the API defaults (strategy auto,
// table inference on), on the bench corpus's born-digital PDFs next to pdftotext in the same
// iteration: with the born-digital layout no page is rendered or OCRed. Issue 15's floor is
// 0.25× pdftotext pages/s on one core (geomean of per-file ratios); the OCR path reached
// 0.002×. go test -run '^$' -bench PDFDefault -cpu 1 -benchtime 1x -v ./bench/
func BenchmarkPDFDefault(b *testing.B) {
	files := globFiles(benchCorpus + "/pdf/*.pdf")
	if len(files) == 0 {
		b.Skip("bench corpus absent")
	}
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		b.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	auto.Install() // hi_res = born-digital layout (no OCR plugin in this process)
	ctx := context.Background()
	type row struct {
		name         string
		data         []byte
		pages, elems int
		q, p         time.Duration
	}
	var rows []*row
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		d, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			b.Fatal(err)
		}
		rows = append(rows, &row{name: filepath.Base(f), data: data, pages: d.NumPages()})
	}
	opts := engine.DefaultOptions()
	opts.InProcess = true
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for _, r := range rows {
			start := time.Now()
			count := 0
			err := engine.PartitionStream(ctx, engine.NewDocument(r.name, r.data), opts, func(element.Element) error { count++; return nil })
			if err != nil {
				b.Fatalf("%s: %v", r.name, err)
			}
			r.q += time.Since(start)
			r.elems += count
			cmd := exec.Command(pdftotext, filepath.Join(benchCorpus, "pdf", r.name), os.DevNull)
			start = time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("pdftotext: %v %s", err, out)
			}
			r.p += time.Since(start)
		}
	}
	b.StopTimer()
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-38s %5s %9s %9s %6s %8s\n", "file", "pages", "defaults", "pdftotext", "ratio", "elements")
	var logR float64
	var pages int
	var qAll, pAll time.Duration
	for _, r := range rows {
		q, p := float64(r.pages*b.N)/r.q.Seconds(), float64(r.pages*b.N)/r.p.Seconds()
		fmt.Fprintf(&sb, "%-38s %5d %9.1f %9.1f %6.3f %8d\n", r.name, r.pages, q, p, q/p, r.elems/b.N)
		logR += math.Log(q / p)
		pages += r.pages
		qAll += r.q
		pAll += r.p
	}
	geo := math.Exp(logR / float64(len(rows)))
	fmt.Fprintf(&sb, "%d pages: defaults %.0f pages/s, pdftotext %.0f pages/s; geomean of per-file ratios %.3f× pdftotext (floor 0.25×); GOMAXPROCS=%d",
		pages, float64(pages*b.N)/qAll.Seconds(), float64(pages*b.N)/pAll.Seconds(), geo, runtime.GOMAXPROCS(0))
	b.Log(sb.String())
	b.ReportMetric(geo, "x-pdftotext")
}

// BenchmarkPDFDefaultRSS runs the quarry CLI with the defaults on the 400-page bench file and
// reports its peak resident memory (the one-shot CLI runs the layout in process, so the one
// process is all of it) next to pdftotext's on the same file. Floor: 100 MB.
func BenchmarkPDFDefaultRSS(b *testing.B) {
	file := filepath.Join(benchCorpus, "pdf", "pdf2image-memory-error-test-400p.pdf")
	if _, err := os.Stat(file); err != nil {
		b.Skip("bench corpus absent")
	}
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		b.Skip("pdftotext not installed")
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "quarry")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/quarry").CombinedOutput(); err != nil {
		b.Fatalf("build: %v %s", err, out)
	}
	// The peak is VmHWM read from /proc while the process runs: rusage's ru_maxrss of a child
	// started from a large test binary reports the parent's size (the child shares its memory
	// until exec).
	peak := func(cmd *exec.Cmd) (float64, time.Duration) {
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		hwm := 0.0
		for {
			if v := vmHWM(cmd.Process.Pid); v > hwm {
				hwm = v
			}
			select {
			case err := <-done:
				if err != nil {
					b.Fatalf("%s: %v", cmd.Path, err)
				}
				return hwm, time.Since(start)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	var q, p float64
	var qt, pt time.Duration
	for n := 0; n < b.N; n++ {
		cmd := exec.Command(bin, "partition", file)
		cmd.Env = append(os.Environ(), "QUARRY_PLUGIN_DIR="+dir, "GOMAXPROCS=1")
		m, t := peak(cmd)
		q, qt = max(q, m), qt+t
		m, t = peak(exec.Command(pdftotext, file, os.DevNull))
		p, pt = max(p, m), pt+t
	}
	b.Logf("400 pages, defaults (auto, tables on): quarry peak RSS %.1f MB in %v, pdftotext %.1f MB in %v (floor 100 MB)",
		q, qt/time.Duration(b.N), p, pt/time.Duration(b.N))
	b.ReportMetric(q, "MB-peak")
}

// BenchmarkReadingOrder scores the layout's reading order on multi-column PDFs by CCT accuracy
// against pdfminer's boxes in the order the reference's fast strategy puts them (XY-cut over
// the boxes: fast's output), issue 15's yardstick (≥ 0.98), and, for information, against
// pdfminer's raw boxes_flow order, which interleaves columns on some pages. Differences also
// come from tables, which the layout reads as one element row by row where pdfminer has a box
// per cell run.
func BenchmarkReadingOrder(b *testing.B) {
	files := globFiles(benchCorpus+"/pdf/multi-column.pdf", "../testdata/reference/docs/multi-column-2p.pdf",
		"../testdata/reference/docs/layout-parser-paper-fast.pdf")
	if len(files) == 0 {
		b.Skip("no multi-column PDFs")
	}
	ctx := context.Background()
	var sb strings.Builder
	for n := 0; n < b.N; n++ {
		sb.Reset()
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			d, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			ld := layout.New(layout.Options{})
			var ours, fastEls, oursFlow, fastFlow []element.Element
			var boxes strings.Builder
			for i := 1; i <= d.NumPages(); i++ {
				p, err := d.Page(ctx, i, pdf.DefaultLAParams())
				if err != nil {
					b.Fatal(err)
				}
				for _, tb := range p.Boxes {
					boxes.WriteString(strings.Join(strings.Fields(tb.Text()), " ") + "\n\n")
				}
				fe := fast.PageElements(p, true)
				if p, err = d.Page(ctx, i, layout.Params(pdf.DefaultLAParams())); err != nil {
					b.Fatal(err)
				}
				fastEls = append(fastEls, fe...)
				els, err := ld.Page(ctx, p)
				if err != nil {
					b.Fatal(err)
				}
				ours = append(ours, els...)
				// The text flow alone: tables and pictures, and the boxes pdfminer has inside
				// them, left out on both sides.
				var regions []*element.Coordinates
				for _, e := range els {
					if e.Type == element.Table || e.Type == element.Image {
						regions = append(regions, e.Metadata.Coordinates)
						continue
					}
					oursFlow = append(oursFlow, e)
				}
				for _, e := range fe {
					if !inside(e.Metadata.Coordinates, regions) {
						fastFlow = append(fastFlow, e)
					}
				}
			}
			flow := metrics.BatchAccuracy(metrics.CCT(oursFlow), metrics.CCT(fastFlow))
			cct := metrics.BatchAccuracy(metrics.CCT(ours), metrics.CCT(fastEls))
			raw := metrics.BatchAccuracy(metrics.CCT(ours), boxes.String())
			fmt.Fprintf(&sb, "%-36s pages %3d  CCT vs fast's box order: text flow %.3f (target 0.98), all %.3f; vs pdfminer's raw order %.3f\n",
				filepath.Base(f), d.NumPages(), flow, cct, raw)
		}
	}
	b.Log("\n" + sb.String())
}

// inside reports whether a box's centre lies in one of the regions.
func inside(c *element.Coordinates, regions []*element.Coordinates) bool {
	if c == nil || len(c.Points) < 3 {
		return false
	}
	cx, cy := (c.Points[0][0]+c.Points[2][0])/2, (c.Points[0][1]+c.Points[2][1])/2
	for _, r := range regions {
		if cx >= r.Points[0][0] && cx <= r.Points[2][0] && cy >= r.Points[0][1] && cy <= r.Points[2][1] {
			return true
		}
	}
	return false
}

// vmHWM is the peak resident size of process pid in MB, from /proc (0 when unreadable).
func vmHWM(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
