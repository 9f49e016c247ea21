//go:build cgo

package ocr

import (
	"os"
	"syscall"
	"testing"
)

// TestMain re-executes the test binary with OMP_THREAD_LIMIT=1: libgomp reads it when it
// loads, before any Go code runs, and Tesseract is about 8x slower without it. MALLOC_ARENA_MAX=1
// puts every thread's C allocations in glibc's main arena, the one the leak test can measure.
func TestMain(m *testing.M) {
	if os.Getenv("OMP_THREAD_LIMIT") == "" || os.Getenv("MALLOC_ARENA_MAX") == "" {
		if exe, err := os.Executable(); err == nil {
			env := os.Environ()
			if os.Getenv("OMP_THREAD_LIMIT") == "" {
				env = append(env, "OMP_THREAD_LIMIT=1")
			}
			if os.Getenv("MALLOC_ARENA_MAX") == "" {
				env = append(env, "MALLOC_ARENA_MAX=1")
			}
			_ = syscall.Exec(exe, os.Args, env)
		}
	}
	os.Exit(m.Run())
}
