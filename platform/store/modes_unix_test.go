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

// A database left world-readable (created by an older Quarry, or by hand) keeps its mode but is
// reported, so the operator can fix it; a new one reports nothing.
func TestExposedFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "q.db")
	s := open(t, "sqlite:"+path, "")
	if got := s.ExposedFiles(); len(got) != 0 {
		t.Fatalf("a new database is exposed: %v", got)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := s.ExposedFiles(); len(got) != 1 || got[0] != path {
		t.Fatalf("exposed = %v, want [%s]", got, path)
	}
}
