//go:build unix

package office

import (
	"errors"
	"os/exec"
	"syscall"
)

// setGroup starts the command as the leader of a new process group.
func setGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the command's process group, which holds the launcher and everything it
// forked.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	// The group id is the launcher's pid (Setpgid): a group this process created.
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
