package rtf

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/internal/goldentest"
)

const refDir = "../../testdata/reference"

// TestConformance scores the reference's golden (an older library version, so by its metrics
// rather than element for element).
func TestConformance(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("pandoc not installed (Debian package pandoc)")
	}
	name := "fake-doc.rtf"
	got, want := goldentest.Scored(t, Partition, filepath.Join(refDir, "docs", name),
		filepath.Join(refDir, "expected/oss-2024", name+".json"), 0.99)
	// The 2024 golden typed the short paragraphs Title (older text rules); the heading, the
	// paragraphs and the one table are what must hold.
	wantTypes := []element.Type{element.Title, element.UncategorizedText, element.UncategorizedText, element.Table}
	goldentest.CheckTypes(t, got, wantTypes...)
	// pandoc's RTF reader (2.17, Debian's) puts the three rows in one; the reference's output
	// has the same single row, which is what is compared.
	if g, w := got[3].Metadata.TextAsHTML, want[3].Metadata.TextAsHTML; g != w {
		t.Errorf("table html\n got %s\nwant %s", g, w)
	}
}
