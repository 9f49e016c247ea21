package host

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"github.com/hashicorp/go-plugin"
)

// setParentDeath asks the kernel to kill the plugin when the host dies, however it dies.
func setParentDeath(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// The parent-death signal fires when the *thread* that forked the child exits, not the
// process, and the Go runtime may retire threads. So every plugin is started from one
// goroutine locked to a thread that never exits.
var (
	launches     = make(chan launchReq)
	launcherOnce sync.Once
)

type launchReq struct {
	gp   *plugin.Client
	done chan error
}

func startLauncher() {
	go func() {
		runtime.LockOSThread() // never unlocked: this thread lives as long as the host
		for r := range launches {
			_, err := r.gp.Start()
			r.done <- err
		}
	}()
}

func launch(gp *plugin.Client) error {
	launcherOnce.Do(startLauncher)
	done := make(chan error, 1)
	launches <- launchReq{gp: gp, done: done}
	return <-done
}
