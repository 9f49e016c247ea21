//go:build unix

package office

import (
	"errors"
	"math"
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

// hardLimits returns this process's hard RLIMIT_DATA and RLIMIT_AS (unlimited is the largest
// uint64), the most a child may be given.
func hardLimits() (data, as uint64) {
	data, as = math.MaxUint64, math.MaxUint64
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_DATA, &rl) == nil {
		data = uint64(rl.Max)
	}
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil {
		as = uint64(rl.Max)
	}
	return data, as
}
