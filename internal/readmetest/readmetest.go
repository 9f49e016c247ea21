// Package readmetest holds packages to the project's rule that each format and strategy package
// has a README saying what it reads, its options, its limits and where its tests are. It
// imports package testing: for _test.go files only.
package readmetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check fails the test for every directory matched by patterns that holds Go source but no
// README.md, or a README.md without a "## Tests" section; and when fewer than atLeast such
// directories were found (a glob gone astray would otherwise check nothing).
func Check(t testing.TB, atLeast int, patterns ...string) {
	t.Helper()
	checked := 0
	for _, pattern := range patterns {
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
	if checked < atLeast {
		t.Fatalf("only %d packages found under %v (fewer than %d): the globs went astray", checked, patterns, atLeast)
	}
}

func hasGoSource(t testing.TB, dir string) bool {
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
