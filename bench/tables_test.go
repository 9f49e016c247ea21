package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/layout"
	"github.com/quarrydocs/quarry/layout/tables/icdar"
	"github.com/quarrydocs/quarry/pdf"
)

// icdarDir is the ICDAR 2013 Table Competition EU set, in the repository with its ground
// truth and MANIFEST.
const icdarDir = "../layout/tables/testdata/icdar2013-eu"

// BenchmarkTablesICDAR runs the ICDAR 2013 EU set through Quarry's born-digital page layout
// (package pdf then package layout with table HTML on: the path hi_res and auto take on pages
// with a usable text layer, tables by layout/tables) next to poppler's pdftotext -bbox-layout
// on the same files in the same iteration, the closest peer available here (it reads the same
// text layer with word boxes and finds no tables; Camelot and tablers cannot be installed).
// It prints seconds for the set, the ratio by wall and CPU time, and the table metrics of
// Quarry's Table elements, read back from their text_as_html: Camelot's detection F1, TEDS
// proxy, row and column counts, and the competition's adjacency-relation F1. Run on one core:
// go test -run '^$' -bench TablesICDAR -cpu 1 -benchtime 1x -v ./bench/
func BenchmarkTablesICDAR(b *testing.B) {
	strs, _ := filepath.Glob(filepath.Join(icdarDir, "*-str.xml"))
	if len(strs) == 0 {
		b.Skip("ICDAR set absent")
	}
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		b.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	sort.Strings(strs)
	type doc struct {
		name, path string
		data       []byte
		gt         []icdar.Table
		pred       []icdar.Table
	}
	var docs []*doc
	for _, s := range strs {
		name := strings.TrimSuffix(filepath.Base(s), "-str.xml")
		path := filepath.Join(icdarDir, name+".pdf")
		data, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue // eu-009b's PDF is not part of the set, as in Camelot's benchmark
		}
		if err != nil {
			b.Fatal(err)
		}
		gt, err := icdar.ReadStructure(s)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, &doc{name: name, path: path, data: data, gt: gt})
	}
	ctx := context.Background()
	var qWall, qCPU, pWall, pCPU time.Duration
	pages := 0
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		pages = 0
		for _, d := range docs {
			start, cpu0 := time.Now(), cpuTime()
			pred, np, err := layoutTables(ctx, d.data)
			if err != nil {
				b.Fatalf("%s: %v", d.name, err)
			}
			qWall += time.Since(start)
			qCPU += cpuTime() - cpu0
			d.pred = pred
			pages += np

			cmd := exec.Command(pdftotext, "-bbox-layout", d.path, os.DevNull)
			start = time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("pdftotext %s: %v: %s", d.path, err, out)
			}
			pWall += time.Since(start)
			pCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
	}
	b.StopTimer()
	var total icdar.Counts
	var table strings.Builder
	for _, d := range docs {
		c := icdar.Compare(d.pred, d.gt)
		total.Add(c)
		s := c.Score()
		fmt.Fprintf(&table, "%-8s gt %2d pred %2d  TEDS %.3f  rows %2d/%-2d cols %2d/%-2d adjF1 %.3f\n",
			d.name, len(d.gt), len(d.pred), s.TEDS, c.RowsOK, c.Matched, c.ColsOK, c.Matched, s.AdjF1)
	}
	s := total.Score()
	per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	if testing.Verbose() {
		fmt.Print(table.String())
	}
	fmt.Printf("ICDAR 2013 EU, %d docs, %d pages, per run: quarry layout %.3f s wall %.3f s CPU; pdftotext -bbox-layout %.3f s wall %.3f s CPU; ratio (peer time / quarry time) wall %.2f CPU %.2f\n",
		len(docs), pages, per(qWall), per(qCPU), per(pWall), per(pCPU), pWall.Seconds()/qWall.Seconds(), pCPU.Seconds()/qCPU.Seconds())
	fmt.Printf("tables: detection F1 %.3f  TEDS proxy %.3f  rows %.3f  cols %.3f  adjacency F1 %.3f  (TP %d FP %d FN %d)\n",
		s.F1, s.TEDS, s.Rows, s.Cols, s.AdjF1, total.TP, total.FP, total.FN)
	b.ReportMetric(float64(pages)*float64(b.N)/qWall.Seconds(), "pages/s")
	b.ReportMetric(pCPU.Seconds()/qCPU.Seconds(), "x-pdftotext-cpu")
	b.ReportMetric(s.F1, "F1")
	b.ReportMetric(s.TEDS, "TEDS")
	b.ReportMetric(s.AdjF1, "adjF1")
}

// layoutTables lays out every page of a PDF and returns its Table elements as scored tables,
// with the page count.
func layoutTables(ctx context.Context, data []byte) ([]icdar.Table, int, error) {
	d, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, 0, err
	}
	lay := layout.New(layout.Options{TableHTML: true})
	var out []icdar.Table
	for n := 1; n <= d.NumPages(); n++ {
		p, err := d.Page(ctx, n, pdf.DefaultLAParams())
		if err != nil {
			return nil, 0, err
		}
		els, err := lay.Page(ctx, p)
		if err != nil {
			return nil, 0, err
		}
		for _, e := range els {
			if e.Type != element.Table {
				continue
			}
			cells, err := icdar.FromHTML(e.Metadata.TextAsHTML)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, icdar.Table{Page: n, Cells: cells})
		}
		d.Recycle(p)
	}
	return out, d.NumPages(), nil
}
