package org

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
	name := "README.org"
	got, _ := goldentest.Scored(t, Partition, filepath.Join(refDir, "docs", name),
		filepath.Join(refDir, "expected/oss-2024", name+".json"), 0.99)
	// The 2024 golden predates the HTML rules that make a source block one CodeSnippet (it
	// split the block into a Title, a ListItem and text), hence the lower type agreement.
	wantTypes := []element.Type{element.Title, element.NarrativeText, element.ListItem, element.ListItem,
		element.ListItem, element.NarrativeText, element.Title, element.NarrativeText, element.CodeSnippet,
		element.NarrativeText}
	goldentest.CheckTypes(t, got, wantTypes...)
}
