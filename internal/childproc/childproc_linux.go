package childproc

import (
	"math"
	"os/exec"
	"syscall"
)

// DieWithParent asks the kernel to SIGKILL the child when its parent dies, however it dies.
// The signal fires when the *thread* that forked the child exits: callers whose goroutine may
// end its thread (one locked with runtime.LockOSThread and then returning) start the child
// from a thread that lives as long as the child. It is not inherited by what the child forks.
func DieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// HardLimits returns this process's hard RLIMIT_DATA and RLIMIT_AS (unlimited is the largest
// uint64): the most a child may be given.
func HardLimits() (data, as uint64) {
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
