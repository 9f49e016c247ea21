package sdk

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestLimitedCommand: the helper runs under the limit asked for (prlimit's RLIMIT_DATA, seen
// from inside), and a helper not on PATH still fails as missing (*exec.Error).
func TestLimitedCommand(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit not installed")
	}
	t.Setenv(ConverterMemoryEnv, "")
	limit := ConverterMemory(64 << 20)
	out, err := LimitedCommand(context.Background(), limit, "sh", "-c", "ulimit -d").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "65536" { // KiB
		t.Errorf("ulimit -d in the helper = %q, want 65536", got)
	}
	t.Setenv(ConverterMemoryEnv, "32")
	if got := ConverterMemory(64 << 20); got != 32<<20 {
		t.Errorf("with %s=32: %d", ConverterMemoryEnv, got)
	}
	err = LimitedCommand(context.Background(), limit, "quarry-no-such-converter").Run()
	var ee *exec.Error
	if !errors.As(err, &ee) {
		t.Errorf("missing helper: %v, want *exec.Error", err)
	}
	if !OutOfMemory("Out of memory\n") || !OutOfMemory("terminate called after throwing an instance of 'std::bad_alloc'") || OutOfMemory("Syntax Error: bad xref") {
		t.Error("OutOfMemory misreads stderr")
	}
	if msg := MemoryError("pdftoppm", 8<<20).Error(); !strings.Contains(msg, "pdftoppm") || !strings.Contains(msg, "8 MiB") {
		t.Errorf("MemoryError: %q", msg)
	}
}
