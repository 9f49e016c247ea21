package sdk

import (
	"os/exec"
	"syscall"
)

// dieWithParent sets the parent-death signal. The kernel sends it when the thread that forked
// the child exits; the Go runtime keeps its threads for the life of the process unless a
// goroutine locked to one exits, which plugin code has no reason to do.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
