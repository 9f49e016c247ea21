package ocr

import (
	"os"
	"syscall"
	"testing"
)

// TestMain re-executes the test binary with OMP_THREAD_LIMIT=1: libgomp reads it when it
// loads, before any Go code runs, and Tesseract is about 8x slower without it.
func TestMain(m *testing.M) {
	if os.Getenv("OMP_THREAD_LIMIT") == "" {
		if exe, err := os.Executable(); err == nil {
			_ = syscall.Exec(exe, os.Args, append(os.Environ(), "OMP_THREAD_LIMIT=1"))
		}
	}
	os.Exit(m.Run())
}
