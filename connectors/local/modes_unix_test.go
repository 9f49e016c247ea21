//go:build unix

package local

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/element"
)

// TestAttackOutputsNotWorldReadable: on a shared machine, partitioned documents (possibly from
// restricted Confluence pages) must not be readable by other users. Under the common umask 022,
// a destination's files are 0640 and the directories it creates 0750.
func TestAttackOutputsNotWorldReadable(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	root := t.TempDir()
	env := connectors.Env{LocalRoots: []string{root}}
	dst, err := NewDestination(map[string]any{"path": filepath.Join(root, "out", "new")}, env)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := dst.Check(ctx); err != nil {
		t.Fatal(err)
	}
	els := []element.Element{{Type: "NarrativeText", ID: "x", Text: "restricted"}}
	if err := dst.Write(ctx, connectors.Document{ID: "SPACE/page/a.html"}, els); err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{
		"out":                            0o750,
		"out/new":                        0o750,
		"out/new/SPACE":                  0o750,
		"out/new/SPACE/page":             0o750,
		"out/new/SPACE/page/a.html.json": 0o640,
	}
	for rel, mode := range want {
		st, err := os.Stat(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %#o, want %#o", rel, got, mode)
		}
	}
}
