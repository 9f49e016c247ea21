package rst

import (
	"context"
	"os/exec"
	"reflect"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

func TestPartition(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("pandoc not installed (Debian package pandoc)")
	}
	src := "Guide\n=====\n\nThe tool reads every file and writes a report.\n\n* first point\n* second point\n\n::\n\n   code block\n"
	var got []string
	opts := engine.DefaultOptions()
	err := Partition(context.Background(), engine.NewDocument("guide.rst", []byte(src)), opts.Keys(), func(e element.Element) error {
		got = append(got, string(e.Type)+": "+e.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Title: Guide", "NarrativeText: The tool reads every file and writes a report.",
		"ListItem: first point", "ListItem: second point", "CodeSnippet: code block"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
