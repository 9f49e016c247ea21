//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe (what <(command) and /dev/stdin are) is read whole like standard input: it has
// no size, and reading it as a file gave "File type inode/x-empty is not supported".
func TestNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "notes.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	text, _ := os.ReadFile(docs + "fake-text.txt")
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(text)
		f.Close()
	}()
	out, errOut, err := runCLI(t, "partition", "--output_format=text", fifo)
	if err != nil || !strings.HasPrefix(out, "This is a test document") {
		t.Errorf("%v\n%s\n%s", err, out, errOut)
	}
}
