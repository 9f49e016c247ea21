package tables_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// TestTinyTagsAreNoCells: anchors written at 1 pt in the margin beside each heading of a
// report (a producer's hidden tags) make no table of the headings; the same page with the
// tags at the body size is one (the tags then read as a column).
func TestTinyTagsAreNoCells(t *testing.T) {
	page := func(tagSize float64) []byte {
		var b strings.Builder
		b.WriteString(pdftest.Text("F1", 10, 51, 760, "The department's strategic goals and the agencies that lead each of them follow."))
		for i, s := range []string{"Safe workers", "Safe systems", "Job creation", "Wealth creation"} {
			y := 700 - 14*float64(i)
			b.WriteString(pdftest.Text("F1", tagSize, 51, y, fmt.Sprintf("_df8d%02d-bf81", i)))
			b.WriteString(pdftest.Text("F1", 10, 150, y, s))
		}
		return onePagePDF("", b.String())
	}
	if ts, _ := pdfTables(t, page(1)); len(ts) != 0 {
		t.Errorf("1-pt tags: %d tables: %s", len(ts), ts[0].HTML())
	}
	if ts, _ := pdfTables(t, page(10)); len(ts) != 1 || ts[0].Cols != 2 {
		t.Errorf("tags at 10 pt: %d tables, want one of 2 columns", len(ts))
	}
}
