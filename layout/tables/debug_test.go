package tables_test

import (
	"bytes"
	"context"
	"path/filepath"

	"fmt"
	"github.com/quarrydocs/quarry/layout/tables"
	"github.com/quarrydocs/quarry/pdf"
	"os"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/layout/tables/icdar"
)

// TestDumpICDAR prints predicted and ground-truth grids of the documents named in
// TABLES_DUMP (comma-separated, e.g. eu-001), for looking at failures; it does nothing
// otherwise.
func TestDumpICDAR(t *testing.T) {
	names := os.Getenv("TABLES_DUMP")
	if names == "" {
		t.Skip("TABLES_DUMP not set")
	}
	for _, r := range runEU(t) {
		if !strings.Contains(","+names+",", ","+r.name+",") {
			continue
		}
		show := func(label string, ts []icdar.Table) {
			for i, tb := range ts {
				g := icdar.Grid(tb.Cells)
				fmt.Printf("== %s %s #%d page %d box %.0f,%.0f,%.0f,%.0f  %dx%d\n", r.name, label, i, tb.Page, tb.X0, tb.Y0, tb.X1, tb.Y1, len(g), len(g[0]))
				for _, row := range g {
					fmt.Printf("  | %s\n", strings.Join(row, " | "))
				}
			}
		}
		show("GT", r.gt)
		show("PRED", r.pred)
	}
}

// TestScanPDFs prints the tables found on every page of the PDFs in the directory named by
// TABLES_SCAN (for looking for false positives on documents without ground truth); it does
// nothing otherwise.
func TestScanPDFs(t *testing.T) {
	dir := os.Getenv("TABLES_SCAN")
	if dir == "" {
		t.Skip("TABLES_SCAN not set")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		doc, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Logf("%s: %v", f, err)
			continue
		}
		for n := 1; n <= min(doc.NumPages(), 60); n++ {
			p, err := doc.Page(ctx, n, pdf.DefaultLAParams())
			if err != nil {
				continue
			}
			ts, err := tables.Find(ctx, pageInput(p), tables.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i, tb := range ts {
				fmt.Printf("== %s p%d #%d %v %dx%d box %.0f,%.0f,%.0f,%.0f\n", filepath.Base(f), n, i, tb.Kind, tb.Rows, tb.Cols, tb.Box.X0, tb.Box.Y0, tb.Box.X1, tb.Box.Y1)
				if os.Getenv("TABLES_HTML") != "" {
					fmt.Println(tb.HTML())
				}
				for r, row := range tb.Grid() {
					if r >= 4 {
						break
					}
					for k := range row {
						if len(row[k]) > 30 {
							row[k] = row[k][:30]
						}
						row[k] = strings.ReplaceAll(row[k], "\n", " ")
					}
					fmt.Printf("  | %s\n", strings.Join(row, " | "))
				}
			}
		}
	}
}
