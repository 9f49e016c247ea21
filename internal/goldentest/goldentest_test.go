package goldentest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

// testOnly are the module's packages that import package testing: linked into a binary they
// would bring the test machinery with them.
var testOnly = []string{
	"github.com/quarrydocs/quarry/internal/goldentest",
	"github.com/quarrydocs/quarry/internal/readmetest",
}

// TestOnlyImports fails when a non-test file anywhere in the module imports a test-only package.
func TestOnlyImports(t *testing.T) {
	root := filepath.Join("..", "..")
	users := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); slices.Contains(testOnly, p) {
				if !strings.HasSuffix(path, "_test.go") {
					t.Errorf("%s imports %s outside a test file", path, p)
				}
				users[p]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range testOnly {
		if users[p] == 0 {
			t.Errorf("no file imports %s: the walk did not reach the module", p)
		}
	}
}

func TestDiff(t *testing.T) {
	want := []element.Element{
		{Type: element.Title, Text: "A"},
		{Type: element.NarrativeText, Text: "B"},
	}
	if diffs, exact := Diff(want, want); len(diffs) != 0 || exact != 2 {
		t.Fatalf("identical lists: diffs %v exact %d", diffs, exact)
	}
	got := []element.Element{{Type: element.Title, Text: "A"}, {Type: element.Title, Text: "B"}, {Type: element.Title, Text: "C"}}
	diffs, exact := Diff(want, got)
	if exact != 1 || len(diffs) != 2 || !strings.Contains(diffs[0], "type") || !strings.Contains(diffs[1], "extra") {
		t.Fatalf("diffs %q exact %d", diffs, exact)
	}
	if diffs, _ := Diff(want, got[:1]); len(diffs) != 1 || !strings.Contains(diffs[0], "missing") {
		t.Fatalf("missing element: %q", diffs)
	}
	if _, exact := Diff(want, got[:2], "type"); exact != 2 {
		t.Fatalf("ignored type still compared: exact %d", exact)
	}
}
