package pptx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/internal/goldentest"
)

const refDir = "../../testdata/reference"

func partitionBytes(t testing.TB, name string, data []byte, opts engine.Options) ([]element.Element, error) {
	t.Helper()
	var out []element.Element
	ctx := contract.WithLogger(context.Background(), opts.Logger)
	err := Partition(ctx, bytes.NewReader(data), int64(len(data)), opts.Keys(), func(e element.Element) error {
		out = append(out, e)
		return nil
	})
	element.AssignIDs(out, name, false)
	return out, err
}

func partitionFile(t testing.TB, path string, opts engine.Options) []element.Element {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := partitionBytes(t, filepath.Base(path), data, opts)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// ingestOptions are the library defaults the ingest-produced goldens were made with.
func ingestOptions() engine.Options {
	o := engine.DefaultOptions()
	o.Extra = contract.Options{KeyIncludeSlideNotes: {"false"}}
	o.IncludePageBreaks = false
	return o
}

func TestConformance(t *testing.T) {
	ignore := []string{"languages", "filetype", "filename"}
	cases := []struct {
		doc, golden string
		exact       bool
	}{
		{"science-exploration-1p.pptx", "head/box", true},
		{"fake-power-point.pptx", "oss-2024", false},
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%-28s %-10s %-8s %-7s %-6s %-6s\n", "document", "golden", "mode", "exact", "cct", "types")
	for _, c := range cases {
		got := partitionFile(t, refDir+"/docs/"+c.doc, ingestOptions())
		want, err := goldentest.Load(refDir + "/expected/" + c.golden + "/" + c.doc + ".json")
		if err != nil {
			t.Fatal(err)
		}
		diffs, exact := goldentest.Diff(want, got, ignore...)
		cct := goldentest.Accuracy(goldentest.CCT(got), goldentest.CCT(want))
		freq := goldentest.TypeFrequency(got, want)
		mode := "metrics"
		if c.exact {
			mode = "exact"
			for _, d := range diffs {
				t.Errorf("%s: %s", c.doc, d)
			}
		} else if cct < 0.98 || freq < 0.95 {
			t.Errorf("%s: cct %.3f type-frequency %.3f", c.doc, cct, freq)
		}
		fmt.Fprintf(&b, "%-28s %-10s %-8s %3d/%-3d %.3f  %.3f\n", c.doc, c.golden, mode, exact, len(want), cct, freq)
	}
	t.Log("\n" + b.String())
}

// Notes kept in a plain text box rather than the notes page's body placeholder
// (testdata/notes-in-text-box.pptx, LibreOffice's export of notes-in-text-box.fodp) are read;
// include_slide_notes=false still leaves them out.
func TestNotesInTextBox(t *testing.T) {
	data, err := os.ReadFile("testdata/notes-in-text-box.pptx")
	if err != nil {
		t.Fatal(err)
	}
	for _, include := range []bool{true, false} {
		opts := engine.DefaultOptions()
		opts.Extra = contract.Options{KeyIncludeSlideNotes: {fmt.Sprint(include)}}
		els, err := engine.Partition(context.Background(), engine.NewDocument("notes.pptx", data), opts)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range els {
			if e.Text == "speaker notes are not drawn" && *e.Metadata.PageNumber == 3 {
				found = true
			}
		}
		if found != include {
			t.Errorf("include_slide_notes=%v: notes found %v", include, found)
		}
	}
}
