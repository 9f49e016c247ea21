//go:build unix

package platform

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The secret key file opens every connector's stored credentials. A key file other users could
// read (copied in by hand, restored from a backup, mounted 0644) gave them all to any local
// account without a word; the database, far less sensitive, was already warned about. Open now
// says so, naming the file; a key file only the owner reads draws no warning.
func TestAttackSecretKeyFileReadableByOthersIsReported(t *testing.T) {
	for _, mode := range []os.FileMode{0o600, 0o640, 0o644} {
		dir := t.TempDir()
		var logs bytes.Buffer
		cfg := Config{DataDir: dir, Workers: -1, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
		p, err := Open(context.Background(), cfg) // creates secret.key 0600
		if err != nil {
			t.Fatal(err)
		}
		p.Close(0)
		key := filepath.Join(dir, "secret.key")
		if err := os.Chmod(key, mode); err != nil {
			t.Fatal(err)
		}
		logs.Reset()
		p, err = Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		p.Close(0)
		warned := strings.Contains(logs.String(), "secret key file is readable by other users") && strings.Contains(logs.String(), key)
		if warned != (mode != 0o600) {
			t.Errorf("mode %04o: warned %v: %s", mode, warned, logs.String())
		}
	}
}
