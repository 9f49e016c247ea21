package fast

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/engine"
)

// The engine says once which strategy auto chose and why, and fast reports every page done,
// in order, against the page count.
func TestProgressReportsStrategyAndPages(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(refDocs, "multi-column-2p.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.DefaultOptions()
	opts.InProcess = true
	opts.PDFInferTableStructure = false
	var got []engine.Progress
	opts.Progress = func(p engine.Progress) { got = append(got, p) }
	if _, err := engine.Partition(context.Background(), engine.NewDocument("multi-column-2p.pdf", data), opts); err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 {
		t.Fatalf("want a strategy report and two page reports, got %+v", got)
	}
	var strategies, pages int
	for _, p := range got {
		switch {
		case p.Strategy != "":
			strategies++
			if p.Strategy != "fast" || p.Reason == "" {
				t.Errorf("strategy report %+v, want fast with a reason", p)
			}
		case p.Total > 0:
			pages++
			if p.Page != pages || p.Total != 2 {
				t.Errorf("page report %+v, want page %d of 2", p, pages)
			}
		}
	}
	if strategies != 1 || pages != 2 {
		t.Errorf("got %d strategy and %d page reports, want 1 and 2: %+v", strategies, pages, got)
	}
}
