package markdown

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/metrics"
)

const refDir = "../../testdata/reference"

func collect(t *testing.T, src string) []element.Element {
	t.Helper()
	var out []element.Element
	err := PartitionBytes(context.Background(), []byte(src), nil, func(e element.Element) error {
		out = append(out, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestElements(t *testing.T) {
	got := collect(t, "# Heading\n\nSome text here.\n\n- item one\n- item two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```go\nfunc main() {}\n```\n")
	type short struct {
		Type element.Type
		Text string
	}
	var s []short
	for _, e := range got {
		s = append(s, short{e.Type, e.Text})
	}
	want := []short{
		{element.Title, "Heading"},
		{element.UncategorizedText, "Some text here."},
		{element.ListItem, "item one"},
		{element.ListItem, "item two"},
		{element.Table, "a b 1 2"},
		{element.CodeSnippet, "func main() {}"},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got  %+v\nwant %+v", s, want)
	}
	if h := got[4].Metadata.TextAsHTML; h != "<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>" {
		t.Errorf("table html %s", h)
	}
}

func TestConformance(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(refDir, "docs/README.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, string(data))
	raw, err := os.ReadFile(filepath.Join(refDir, "expected/api-2024/README.md.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gold []element.Element
	if err := json.Unmarshal(raw, &gold); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i].Metadata.CategoryDepth = nil // the golden's producer removed it
	}
	cct := metrics.Round3(metrics.BatchAccuracy(metrics.CCT(got), metrics.CCT(gold)))
	types := metrics.Round3(metrics.TypeAccuracy(got, gold))
	t.Logf("%-12s n=%d gold=%d cct=%.3f types=%.3f", "README.md", len(got), len(gold), cct, types)
	if cct < 0.99 {
		t.Errorf("CCT accuracy %.3f < 0.99", cct)
	}
	// The 2024 golden predates fenced-code rendering: its code block is UncategorizedText
	// "bash\ncurl …" where a fenced block now gives a CodeSnippet, so 9 of 10 types agree.
	if types < 0.9 {
		t.Errorf("element-type frequency %.3f < 0.9", types)
	}
}
