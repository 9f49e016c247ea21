package odt

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/internal/goldentest"
)

const refDir = "../../testdata/reference"

func partitionBytes(t testing.TB, name string, data []byte) ([]element.Element, error) {
	t.Helper()
	opts := engine.DefaultOptions()
	var out []element.Element
	err := Partition(context.Background(), bytes.NewReader(data), int64(len(data)), opts.Keys(), func(e element.Element) error {
		out = append(out, e)
		return nil
	})
	element.AssignIDs(out, name, false)
	return out, err
}

func TestConformance(t *testing.T) {
	data, err := os.ReadFile(refDir + "/docs/simple.odt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := partitionBytes(t, "simple.odt", data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := goldentest.Load(refDir + "/expected/oss-2024/simple.odt.json")
	if err != nil {
		t.Fatal(err)
	}
	diffs, exact := goldentest.Diff(want, got, "languages", "filetype", "filename")
	cct := goldentest.Accuracy(goldentest.CCT(got), goldentest.CCT(want))
	freq := goldentest.TypeFrequency(got, want)
	for _, d := range diffs {
		t.Log(d)
	}
	if cct < 0.98 || freq < 0.85 {
		t.Errorf("simple.odt: cct %.3f type-frequency %.3f", cct, freq)
	}
	t.Logf("\n%-12s %-10s %-7s %-6s %-6s\n%-12s %-10s %3d/%-3d %.3f  %.3f", "document", "golden", "exact", "cct", "types",
		"simple.odt", "oss-2024", exact, len(want), cct, freq)
	_ = fmt.Sprint()
}

// Footnotes' text follows the body (pandoc's DOCX keeps notes that python-docx then loses):
// the citation marks are not text and the sentences citing them stay whole.
func TestFootnotes(t *testing.T) {
	data, err := os.ReadFile("testdata/footnotes.odt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := partitionBytes(t, "footnotes.odt", data)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range got {
		texts = append(texts, e.Text)
	}
	want := []string{"Budget summary", "Spending rose in the second half. Travel fell.", "Mostly new hardware for the lab.", "Fewer conferences were attended."}
	if fmt.Sprintf("%q", texts) != fmt.Sprintf("%q", want) {
		t.Errorf("got %q\nwant %q", texts, want)
	}
}
