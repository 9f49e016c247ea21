package all

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageHasREADME holds every format package (and the shared helpers under
// internal/) to a README that says what it reads, its limits and where its tests are: the
// file must exist and have a "## Tests" section.
func TestEveryPackageHasREADME(t *testing.T) {
	checked := 0
	for _, pattern := range []string{"../*", "../internal/*"} {
		dirs, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range dirs {
			if !hasGoSource(t, dir) {
				continue
			}
			checked++
			data, err := os.ReadFile(filepath.Join(dir, "README.md"))
			if err != nil {
				t.Errorf("%s: no README.md (what it reads, options, limits, tests)", dir)
				continue
			}
			if !strings.Contains(string(data), "\n## Tests") {
				t.Errorf("%s/README.md: no \"## Tests\" section saying where its tests and fixtures are", dir)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages found: the glob did not reach formats/", checked)
	}
}

func hasGoSource(t *testing.T, dir string) bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false // not a directory
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			return true
		}
	}
	return false
}
