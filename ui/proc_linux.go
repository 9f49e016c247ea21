package ui

import (
	"math"
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

// hardLimits returns the server's hard RLIMIT_DATA and RLIMIT_AS (unlimited is the largest
// uint64): the most a renderer may be given.
func hardLimits() (data, as uint64) {
	data, as = math.MaxUint64, math.MaxUint64
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_DATA, &rl) == nil {
		data = rl.Max
	}
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil {
		as = rl.Max
	}
	return data, as
}
