package rtf

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
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
	data, err := os.ReadFile(filepath.Join(refDir, "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	want, err := goldentest.Load(filepath.Join(refDir, "expected/oss-2024", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.DefaultOptions()
	var got []element.Element
	err = Partition(context.Background(), engine.NewDocument(name, data), opts.Keys(), func(e element.Element) error {
		got = append(got, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cct := goldentest.Accuracy(goldentest.CCT(got), goldentest.CCT(want))
	types := goldentest.TypeFrequency(got, want)
	t.Logf("%s: n=%d gold=%d cct=%.3f types=%.3f", name, len(got), len(want), cct, types)
	if cct < 0.99 {
		t.Errorf("CCT accuracy %.3f < 0.99", cct)
	}
	// The 2024 golden typed the short paragraphs Title (older text rules); the heading, the
	// paragraphs and the one table are what must hold.
	wantTypes := []element.Type{element.Title, element.UncategorizedText, element.UncategorizedText, element.Table}
	if len(got) != len(wantTypes) {
		t.Fatalf("%d elements, want %d", len(got), len(wantTypes))
	}
	for i, e := range got {
		if e.Type != wantTypes[i] {
			t.Errorf("#%d %q: %s, want %s", i, e.Text, e.Type, wantTypes[i])
		}
	}
	// pandoc's RTF reader (2.17, Debian's) puts the three rows in one; the reference's output
	// has the same single row, which is what is compared.
	if g, w := got[3].Metadata.TextAsHTML, want[3].Metadata.TextAsHTML; g != w {
		t.Errorf("table html\n got %s\nwant %s", g, w)
	}
}
