package ui

import (
	"os/exec"
	"syscall"
)

// dieWithParent asks the kernel to kill the helper when the server dies, however it dies: a
// renderer left running would be an orphan holding CPU and memory. (The signal fires when the
// forking thread exits; the Go runtime keeps its threads unless a locked goroutine exits.)
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
