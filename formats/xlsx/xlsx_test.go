package xlsx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
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

func partitionFile(t testing.TB, path, name string) []element.Element {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if name == "" {
		name = filepath.Base(path)
	}
	out, err := partitionBytes(t, name, data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

func TestConformance(t *testing.T) {
	ignore := []string{"languages", "filetype", "filename"}
	cases := []struct {
		path, name, golden string
	}{
		{refDir + "/docs/stanley-cups.xlsx", "", "head/gcs/stanley-cups.xlsx.json"},
		// tests-example.xls converted once with LibreOffice (the reference converts nothing for
		// XLS: pandas reads it with xlrd, so the values match the XLSX path).
		{"testdata/tests-example.xlsx", "tests-example.xls", "head/onedrive/tests-example.xls.json"},
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%-22s %-38s %-7s %-6s %-6s\n", "document", "golden", "exact", "cct", "types")
	for _, c := range cases {
		if _, err := os.Stat(c.path); err != nil {
			t.Logf("skip %s: %v", c.path, err)
			continue
		}
		got := partitionFile(t, c.path, c.name)
		want, err := goldentest.Load(refDir + "/expected/" + c.golden)
		if err != nil {
			t.Fatal(err)
		}
		diffs, exact := goldentest.Diff(want, got, ignore...)
		for _, d := range diffs {
			t.Errorf("%s: %s", c.golden, d)
		}
		fmt.Fprintf(&b, "%-22s %-38s %3d/%-3d %.3f  %.3f\n", filepath.Base(c.path), c.golden, exact, len(want),
			goldentest.Accuracy(goldentest.CCT(got), goldentest.CCT(want)), goldentest.TypeFrequency(got, want))
	}
	t.Log("\n" + b.String())
}
