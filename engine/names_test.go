package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	_ "github.com/quarrydocs/quarry/formats/all"
	_ "github.com/quarrydocs/quarry/strategies/all"
	_ "github.com/quarrydocs/quarry/strategies/vlm"
)

// TestEngineNamesNoFormat: the engine knows formats and strategies only through what they
// register. No string literal in the package's non-test files is a registered format's name,
// extension or MIME type, a strategy's name (registered or one of the API's) or an option key
// a format or strategy declared; so adding a format or strategy never means editing the engine.
func TestEngineNamesNoFormat(t *testing.T) {
	exact := map[string]string{} // literal → what it names
	var words []*regexp.Regexp   // names that must not appear even inside a literal
	var wordWhat []string
	word := func(s, what string) {
		words = append(words, regexp.MustCompile(`(^|[^A-Za-z0-9_])`+regexp.QuoteMeta(s)+`($|[^A-Za-z0-9_])`))
		wordWhat = append(wordWhat, what)
	}
	formats := contract.Formats()
	if len(formats) < 20 {
		t.Fatalf("only %d formats registered: the check would prove nothing", len(formats))
	}
	for _, f := range formats {
		exact[f.Name] = "format name"
		for _, m := range append([]string{f.MIME}, f.Aliases...) {
			word(m, "MIME type of "+f.Name)
		}
		for _, e := range f.Extensions {
			exact[e] = "extension of " + f.Name
		}
		for _, s := range f.CFBStreams {
			exact[s] = "CFB stream of " + f.Name
		}
		for _, m := range f.ZipMembers {
			exact[m.Prefix] = "ZIP member of " + f.Name
		}
	}
	for _, s := range contract.Strategies() {
		word(s.Name, "strategy")
	}
	for _, s := range contract.APIStrategies {
		word(s, "API strategy")
	}
	for _, k := range contract.DeclaredKeys() {
		word(k.Key, "option key of "+k.By)
	}

	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	literals := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
			}
			literals++
			if what, ok := exact[s]; ok {
				t.Errorf("%s: %q is a %s", fset.Position(lit.Pos()), s, what)
			}
			for i, re := range words {
				if re.MatchString(s) {
					t.Errorf("%s: %q names a %s", fset.Position(lit.Pos()), s, wordWhat[i])
				}
			}
			return true
		})
	}
	if literals < 50 {
		t.Fatalf("only %d string literals seen: the parse missed the package", literals)
	}
}

// aboveContract are the packages under formats/ and strategies/ allowed to import engine: none.
var aboveContract = map[string]bool{}

// TestRegistrantsImportContractNotEngine: formats and strategies (the per-page router included)
// see the contract only, the leaf a plugin links too; detection and post-processing stay above
// them.
func TestRegistrantsImportContractNotEngine(t *testing.T) {
	files := 0
	for _, root := range []string{"../formats", "../strategies"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			if aboveContract[filepath.Dir(path)] || strings.Contains(path, "/testdata/") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			files++
			for _, imp := range f.Imports {
				if imp.Path.Value == `"github.com/quarrydocs/quarry/engine"` {
					t.Errorf("%s imports engine: use contract", path)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Fatalf("only %d files seen", files)
	}
}
