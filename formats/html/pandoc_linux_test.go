package html

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envPandocParent makes the test binary a process that runs one pandoc conversion until killed.
const envPandocParent = "QUARRY_HTML_TEST_PANDOC_PARENT"

func TestMain(m *testing.M) {
	if os.Getenv(envPandocParent) != "" {
		_, err := FromPandoc(context.Background(), []byte("x"), "rst")
		fmt.Fprintln(os.Stderr, "pandoc returned before the kill:", err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// TestPandocDiesWithParent: the process running pandoc is SIGKILLed (the plugin host kills a
// stuck formats plugin so): pandoc dies with it instead of running on to its timeout. The fake
// pandoc writes its pid and then hangs.
func TestPandocDiesWithParent(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := "#!/bin/sh\necho $$ > " + pidFile + ".tmp && mv " + pidFile + ".tmp " + pidFile + "\nexec sleep 600\n"
	if err := os.WriteFile(filepath.Join(dir, "pandoc"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), envPandocParent+"=1", "PATH="+dir+":"+os.Getenv("PATH"))
	var stderr bytes.Buffer
	parent.Stderr = &stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			parent.Process.Kill()
			t.Fatalf("the fake pandoc never started: %s", stderr.String())
		}
	}
	_ = parent.Process.Signal(syscall.SIGKILL)
	_ = parent.Wait()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || bytes.Contains(stat, []byte(") Z ")) {
			return
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("pandoc (pid %d) outlived its parent by 5 s", pid)
		}
	}
}
