package schema_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/quarrydocs/quarry/"

// imports lists the module-internal imports of the non-test Go files under dir, by file.
func imports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(p, module) {
				out[path] = append(out[path], strings.TrimPrefix(p, module))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestImportDirections pins where the API schema sits: schema is a leaf, connectors validate
// with it and never reach into the engine, and the library core (engine, formats, strategies)
// knows nothing of the HTTP APIs' schema.
func TestImportDirections(t *testing.T) {
	for file, ims := range imports(t, ".") {
		if len(ims) > 0 {
			t.Errorf("%s: schema must stay a leaf, imports %v", file, ims)
		}
	}
	for file, ims := range imports(t, "../../connectors") {
		for _, p := range ims {
			if p == "engine" || strings.HasPrefix(p, "engine/") || p == "api/partitionapi" {
				t.Errorf("%s imports %s: connectors share api/schema, not the engine", file, p)
			}
		}
	}
	for _, dir := range []string{"../../engine", "../../formats", "../../strategies", "../../contract"} {
		for file, ims := range imports(t, dir) {
			for _, p := range ims {
				if strings.HasPrefix(p, "api/") {
					t.Errorf("%s imports %s: the library core must not know the API schema", file, p)
				}
			}
		}
	}
}
