package org

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/contract"
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

// #+TITLE and #+SUBTITLE, which pandoc keeps as metadata only, open the document as Titles;
// the other keywords (#+AUTHOR) stay out, the body follows as pandoc renders it.
func TestTitleKeywords(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("pandoc not installed (Debian package pandoc)")
	}
	data, err := os.ReadFile("testdata/title.org")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = Partition(context.Background(), contract.NewDocument("title.org", data), contract.Options{}, func(e element.Element) error {
		got = append(got, fmt.Sprintf("%s: %s", e.Type, e.Text))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Title: Field Trip Report", "Title: Spring term", "Title: Itinerary", "NarrativeText: We visited the museum and the old harbour."}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
