package tables_test

import (
	"fmt"
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
