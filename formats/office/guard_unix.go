//go:build unix

package office

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// guardScript waits for its standard input, a pipe whose only writer is this process, to
// reach end of file. Each line is the process group LibreOffice runs in ("" once it has been
// reaped). End of file while a conversion is under way means this process died without
// cleaning up (SIGKILL, a crash): the script kills the group, which holds LibreOffice and
// every helper it forked — the parent-death signal reaches only the process started — and
// removes the conversion's directory ($1) and LibreOffice's IPC sockets (the other arguments,
// sockets only).
const guardScript = `p=
while read -r g; do p=$g; done
[ -n "$p" ] && kill -KILL -"$p" 2>/dev/null
rm -rf -- "$1"
shift
for s in "$@"; do [ -S "$s" ] && rm -f -- "$s"; done`

// guard is a small shell process that outlives this one just long enough to clean up after
// a conversion this process could not finish.
type guard struct {
	cmd *exec.Cmd
	w   *os.File
}

func startGuard(dir string, sockets []string) (*guard, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("guard pipe: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", append([]string{"-c", guardScript, "quarry-office-guard", dir}, sockets...)...)
	cmd.Stdin = r // the write end is close-on-exec: no other child holds it open
	cmd.Dir = "/"
	// Its own process group: a signal to this process's group (a terminal's ^C) does not
	// stop the cleanup. No parent-death signal, deliberately.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start cleanup guard: %w", err)
	}
	return &guard{cmd: cmd, w: w}, nil
}

// watch tells the guard the process group to kill should this process die; 0 means none.
func (g *guard) watch(pgid int) {
	line := "\n"
	if pgid > 0 {
		line = strconv.Itoa(pgid) + "\n"
	}
	// A write fails only if the guard is gone; the parent-death signal still applies.
	_, _ = g.w.WriteString(line)
}

// release stops the guard without letting it clean up: this process has done so.
func (g *guard) release() {
	_ = g.cmd.Process.Kill()
	_ = g.cmd.Wait()
	_ = g.w.Close()
}
