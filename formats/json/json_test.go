package json

import (
	"context"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

func collect(t *testing.T, p func(context.Context, *engine.Document, contract.Options, contract.Emit) error, data string) ([]element.Element, error) {
	t.Helper()
	opts := engine.DefaultOptions()
	var out []element.Element
	err := p(context.Background(), engine.NewDocument("x.json", []byte(data)), opts.Keys(), func(e element.Element) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

func TestRehydrate(t *testing.T) {
	got, err := collect(t, partitionJSON, `[{"type":"Section-header","element_id":"x","text":"Hi","metadata":{"filename":"old.pdf","page_number":2,"custom":1}},{"type":"Picture","text":""}]`)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Type != element.Title || got[1].Type != element.Image {
		t.Errorf("labels not mapped: %v %v", got[0].Type, got[1].Type)
	}
	if got[0].ID != "" || got[0].Metadata.Filename != "" || *got[0].Metadata.PageNumber != 2 || string(got[0].Metadata.Extra["custom"]) != "1" {
		t.Errorf("metadata: %+v", got[0].Metadata)
	}
}

func TestPlainJSONBecomesText(t *testing.T) {
	got, err := collect(t, partitionJSON, `{"a": [1, 2]}`)
	if err != nil || len(got) != 1 || got[0].Type != element.UncategorizedText || got[0].Text != "{\n  \"a\": [\n    1,\n    2\n  ]\n}" {
		t.Errorf("plain JSON: %v %v", err, got)
	}
}

func TestNDJSON(t *testing.T) {
	got, err := collect(t, partitionNDJSON, "{\"type\":\"Title\",\"text\":\"a\"}\n\n{\"type\":\"ListItem\",\"text\":\"b\"}\n")
	if err != nil || len(got) != 2 || got[1].Type != element.ListItem {
		t.Errorf("ndjson: %v %v", err, got)
	}
	if _, err := collect(t, partitionNDJSON, "{\"type\":\"Title\"}\nnot json\n"); err == nil {
		t.Error("bad line accepted")
	}
}
