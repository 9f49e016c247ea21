//go:build unix

package store

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSQLiteFilesNotWorldReadable: a database created in an existing, world-listable directory
// (an operator's ./data, or a --database path) is not readable by other users, nor are the
// -wal and -shm files that hold its recent writes.
func TestSQLiteFilesNotWorldReadable(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := open(t, "sqlite:"+filepath.Join(dir, "q.db"), "")
	c := &Connector{ID: "c1", Role: RoleSource, Name: "restricted space", Type: "local", Config: map[string]any{"path": "/x"}, CreatedAt: time.Now()}
	if err := s.CreateConnector(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"q.db", "q.db-wal", "q.db-shm"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != 0o600 {
			t.Errorf("%s: mode %#o, want 0600", name, got)
		}
	}
}
