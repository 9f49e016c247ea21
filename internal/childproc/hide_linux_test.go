package childproc

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

const envHideStep = "QUARRY_CHILDPROC_HIDE_STEP"

// TestMain lets TestAttackChildCannotReadParentEnviron run this binary as the server ("parent",
// hidden or not) and as its child ("child").
func TestMain(m *testing.M) {
	switch os.Getenv(envHideStep) {
	case "parent", "parent-hidden":
		if os.Getenv(envHideStep) == "parent-hidden" {
			if err := HideFromSameUser(); err != nil {
				os.Exit(10)
			}
		}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), envHideStep+"=child")
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			os.Exit(ee.ExitCode())
		}
		if err != nil {
			os.Exit(11)
		}
		os.Exit(0)
	case "child":
		// A child of the same user reading its parent's environment, as a compromised
		// converter would to find the keys its own environment lacks.
		b, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getppid()) + "/environ")
		switch {
		case err == nil && len(b) > 0:
			os.Exit(0)
		case errors.Is(err, os.ErrPermission):
			os.Exit(3)
		}
		os.Exit(12)
	}
	os.Exit(m.Run())
}

// A plugin or converter runs as the server's user: without its secrets in its own environment
// (Environ) it could still read the server's, /proc/PPID/environ, and the server's memory.
// HideFromSameUser closes that: run as an unprivileged user (root reads everything, so the
// test needs root to switch to one), the child reads its parent's environment when the parent
// is dumpable and is refused when it is hidden.
func TestAttackChildCannotReadParentEnviron(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the two processes as another, unprivileged user")
	}
	// The test binary must be reachable by that user.
	dir, err := os.MkdirTemp("", "quarry-hide-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "childproc.test")
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(dst, src)
	src.Close()
	if cerr := dst.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	run := func(step string) int {
		cmd := exec.Command(bin)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), envHideStep+"="+step, "UNSTRUCTURED_API_KEY=parent-secret")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	if code := run("parent"); code != 0 {
		t.Fatalf("a dumpable parent: the child's read ended %d, want 0 (read)", code)
	}
	if code := run("parent-hidden"); code != 3 {
		t.Errorf("a hidden parent: the child's read ended %d, want 3 (permission denied)", code)
	}
}
