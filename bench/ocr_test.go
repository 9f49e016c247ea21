package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/plugins/host"
)

// BenchmarkOCR measures the OCR plugin (ocr_only, out of process through the plugin host, as
// deployed) next to the tesseract CLI on the same rendered pages in the same run: pages/s on
// one core and with two in parallel, the plugin round trip per page, and memory per OCR
// worker. Run: go test -run '^$' -bench OCR -benchtime 1x ./bench/
func BenchmarkOCR(b *testing.B) {
	for _, tool := range []string{"tesseract", "pdftoppm", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s not installed", tool)
		}
	}
	scans := globFiles(filepath.Join(benchCorpus, "scan", "*.pdf"), "../testdata/reference/docs/loremipsum-flat.pdf")
	if len(scans) == 0 {
		b.Skip("no scans")
	}
	dir := b.TempDir()
	// Pages rendered once, outside the timing, as both tools will read them: grey PNG, 300 DPI.
	var pages []string
	for i, s := range scans {
		if out, err := exec.Command("pdftoppm", "-gray", "-png", "-r", "300", s, filepath.Join(dir, fmt.Sprintf("s%d", i))).CombinedOutput(); err != nil {
			b.Fatalf("pdftoppm %s: %v %s", s, err, out)
		}
	}
	pages, _ = filepath.Glob(filepath.Join(dir, "s*.png"))
	// Scans that are images already (a bilevel typewriter page) are read as they are: a 1-bit
	// image takes another path through both tools than a grey render.
	pages = append(pages, globFiles(filepath.Join(benchCorpus, "scan", "*.png"), filepath.Join(benchCorpus, "scan", "*.tif*"))...)
	plugDir := filepath.Join(dir, "plugins")
	build := func(name, pkg string) {
		out := filepath.Join(plugDir, host.Prefix+name)
		if o, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			b.Skipf("build %s (needs cgo and libtesseract-dev for ocr): %v %s", pkg, err, o)
		}
		if _, err := host.WriteChecksum(out); err != nil {
			b.Fatal(err)
		}
	}
	// The plugins are built for this run only: their Describe answers stay out of the user's
	// cache (Config.NoCache).
	build("ocr", "../cmd/quarry-plugin-ocr")
	build("misbehave", "../plugins/host/testdata/misbehave")
	data := make([][]byte, len(pages))
	for i, p := range pages {
		data[i], _ = os.ReadFile(p)
	}
	mime := func(i int) string {
		if strings.HasSuffix(pages[i], ".png") {
			return "image/png"
		}
		return "image/tiff"
	}
	// Rendered pages are named by the scan and page they come from.
	label := func(i int) string {
		base := filepath.Base(pages[i])
		if strings.HasPrefix(pages[i], dir) {
			if n, page, ok := strings.Cut(strings.TrimPrefix(base, "s"), "-"); ok {
				if k, err := strconv.Atoi(n); err == nil && k < len(scans) {
					return fmt.Sprintf("%s p%s", filepath.Base(scans[k]), strings.TrimLeft(strings.TrimSuffix(page, ".png"), "0"))
				}
			}
		}
		return base
	}
	partitionOne := func(p *host.Plugin, i int) error {
		doc := engine.NewDocument(filepath.Base(pages[i]), data[i])
		doc.MIMEType = mime(i)
		opts := engine.DefaultOptions()
		opts.Strategy = "ocr_only"
		return p.Partitioner("ocr_only").Partition(context.Background(), doc, &opts, func(element.Element) error { return nil })
	}
	tesseractOne := func(i int) error {
		cmd := exec.Command("tesseract", pages[i], "-")
		cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
		return cmd.Run()
	}

	// partitionAll sends every page through the plugin with `parallel` requests at a time.
	partitionAll := func(p *host.Plugin, parallel int) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		next := make(chan int)
		go func() {
			for i := range data {
				next <- i
			}
			close(next)
		}()
		for range parallel {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					if err := partitionOne(p, i); err != nil {
						b.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	cli := func(parallel int) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		next := make(chan int)
		go func() {
			for i := range pages {
				next <- i
			}
			close(next)
		}()
		for range parallel {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					if err := tesseractOne(i); err != nil {
						b.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	for n := 0; n < b.N; n++ {
		for _, par := range []int{1, 2} {
			h := host.New(host.Config{Dirs: []string{plugDir}, Workers: par, Timeout: 10 * time.Minute, NoCache: true})
			specs, _ := h.Discover()
			var ocr *host.Plugin
			for _, s := range specs {
				if s.Name == "ocr" {
					s.Env = []string{"QUARRY_OCR_WORKERS=1"} // one Tesseract client per process
					ocr, _ = h.Add(s)
				}
			}
			if ocr == nil {
				b.Fatal("ocr plugin not found")
			}
			// Warm the pool (process start and Tesseract initialisation are not per page).
			partitionAll(ocr, par)
			q := partitionAll(ocr, par)
			t := cli(par)
			qps, tps := float64(len(pages))/q.Seconds(), float64(len(pages))/t.Seconds()
			fmt.Printf("OCR %d page(s), %d at a time: quarry ocr_only %.2f pages/s, tesseract CLI %.2f pages/s, ratio %.2f\n",
				len(pages), par, qps, tps, qps/tps)
			if par == 1 {
				// Per image, one at a time, each tool's best of two: which images lag.
				fmt.Printf("%-36s %10s %10s %6s\n", "image", "quarry s", "tesseract s", "ratio")
				for i := range pages {
					var bq, bt time.Duration
					for range 2 {
						start := time.Now()
						if err := partitionOne(ocr, i); err != nil {
							b.Error(err)
						}
						if d := time.Since(start); bq == 0 || d < bq {
							bq = d
						}
						start = time.Now()
						if err := tesseractOne(i); err != nil {
							b.Error(err)
						}
						if d := time.Since(start); bt == 0 || d < bt {
							bt = d
						}
					}
					fmt.Printf("%-36s %10.3f %10.3f %6.2f\n", label(i), bq.Seconds(), bt.Seconds(), bt.Seconds()/bq.Seconds())
				}
				for _, pid := range h.Processes() {
					fmt.Printf("OCR worker memory: peak RSS %s of one plugin process with one Tesseract client\n", peakRSS(pid))
				}
			}
			h.Close()
		}
		roundTrip(b, plugDir)
	}
}

// roundTrip times plugin calls that do no work (the test plugin's echo strategy, three page
// batches per call), i.e. the host's cost per page: stream a document, get batches back.
func roundTrip(b *testing.B, plugDir string) {
	h := host.New(host.Config{Dirs: []string{plugDir}, Workers: 1, NoCache: true})
	defer h.Close()
	specs, _ := h.Discover()
	for _, s := range specs {
		h.Add(s)
	}
	p, ok := h.Plugin("misbehave")
	if !ok {
		b.Fatal("echo plugin missing")
	}
	doc := engine.NewDocument("x.txt", bytes.Repeat([]byte("x"), 64<<10))
	doc.MIMEType = "text/plain"
	call := func() {
		opts := engine.DefaultOptions()
		if err := p.Partitioner("echo").Partition(context.Background(), doc, &opts, func(element.Element) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	call()
	const calls = 300
	start := time.Now()
	for range calls {
		call()
	}
	per := time.Since(start) / calls
	fmt.Printf("plugin round trip: %s per call (64 KiB document streamed, 3 page batches back) = %s per page\n", per.Round(time.Microsecond), (per / 3).Round(time.Microsecond))
}

func peakRSS(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return "?"
}
