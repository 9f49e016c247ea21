package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWorkerCommand(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var stderr bytes.Buffer
	if err := run(ctx, []string{"worker", "--data-dir", dir, "--workers", "1", "--log-format", "text"}, &stderr, &stderr); err != nil {
		t.Fatalf("worker: %v\n%s", err, stderr.String())
	}
	for _, f := range []string{"quarry.db", "secret.key"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !bytes.Contains(stderr.Bytes(), []byte("platform ready")) {
		t.Errorf("log: %s", stderr.String())
	}
	for _, args := range [][]string{{"worker", "extra"}, {"worker", "--workers", "-1"}, {"worker", "--secret-key", "short"}} {
		err := run(context.Background(), append(args, "--data-dir", dir), &stderr, &stderr)
		var ee *exitError
		if err == nil || (args[1] != "--secret-key" && (!errors.As(err, &ee) || ee.code != 2)) {
			t.Errorf("%v: %v", args, err)
		}
	}
}
