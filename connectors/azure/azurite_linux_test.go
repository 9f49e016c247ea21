package azure

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill Azurite when the test binary dies (a timeout panic or a
// kill skips TestMain's cleanup).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
