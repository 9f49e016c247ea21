package xml

import (
	"context"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

func texts(t *testing.T, data string, opts engine.Options) []string {
	t.Helper()
	var out []string
	err := Partition(context.Background(), engine.NewDocument("a.xml", []byte(data)), &opts, func(e element.Element) error {
		out = append(out, e.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLeafTextsInEndOrder(t *testing.T) {
	got := texts(t, `<a>outer<b>inner</b>tail ignored<c> </c><!-- c --><d>last</d></a>`, engine.DefaultOptions())
	want := []string{"inner", "last", "outer"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestKeepTags(t *testing.T) {
	opts := engine.DefaultOptions()
	opts.XMLKeepTags = true
	doc := `<a><b>x</b></a>`
	if got := texts(t, doc, opts); len(got) != 1 || got[0] != doc {
		t.Errorf("keep tags: %q", got)
	}
}

func TestMalformedXMLIsAnError(t *testing.T) {
	opts := engine.DefaultOptions()
	err := Partition(context.Background(), engine.NewDocument("a.xml", []byte("<a><b></a>")), &opts, func(element.Element) error { return nil })
	if err == nil {
		t.Error("mismatched tags accepted")
	}
}
