//go:build unix

package api_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/quarrydocs/quarry/platform"
)

// A local root the platform creates (by default DATA-DIR/local, where destinations write
// partitioned documents) is not listable by other users of the machine.
func TestAttackCreatedLocalRootNotWorldReadable(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	roots, err := platform.LocalRoots(platform.Config{DataDir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(roots[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o750 {
		t.Errorf("%s: mode %#o, want 0750", roots[0], got)
	}
}
