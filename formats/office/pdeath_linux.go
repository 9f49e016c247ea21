package office

import (
	"os/exec"
	"syscall"
)

// dieWithParent asks the kernel to kill LibreOffice (soffice.bin, started directly) when this
// process dies, however it dies (in the server, formats run in a plugin process the host may
// SIGKILL). The signal is not inherited by what soffice.bin forks: the guard covers those. It
// is set after setGroup, which replaces SysProcAttr.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
