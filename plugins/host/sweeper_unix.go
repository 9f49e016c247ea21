//go:build unix

package host

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// sweepScript collects directories, one a line, from its standard input, a pipe whose only
// writer is the host. End of file means the host is gone without closing: the plugins died
// with it (parent-death signal) but their temporary files, copies of documents among them,
// did not. The script removes the directories then.
const sweepScript = `while read -r d; do set -- "$@" "$d"; done
rm -rf -- "$@"`

// sweeper is a small shell that outlives the host just long enough to remove what the host
// could not.
type sweeper struct {
	cmd *exec.Cmd
	w   *os.File
}

func startSweeper() (*sweeper, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sweeper pipe: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", sweepScript, "quarry-plugin-sweeper")
	cmd.Stdin = r // the write end is close-on-exec: no plugin holds it open
	cmd.Dir = "/"
	// Its own process group, so a signal to the host's group (a terminal's ^C) does not stop
	// it; no parent-death signal, deliberately.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start sweeper: %w", err)
	}
	return &sweeper{cmd: cmd, w: w}, nil
}

// add records a directory to remove should the host die.
func (s *sweeper) add(dir string) {
	if s.w == nil || strings.ContainsRune(dir, '\n') {
		return
	}
	// A write fails only if the sweeper is gone; the host still removes dir when it can.
	_, _ = s.w.WriteString(dir + "\n")
}

// stop ends the sweeper without letting it sweep: the host has cleaned up.
func (s *sweeper) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	_ = s.w.Close()
}
