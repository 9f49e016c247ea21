package html

import (
	"os/exec"
	"syscall"
)

// dieWithParent asks the kernel to kill pandoc when this process dies, however it dies: in the
// server, formats run in a plugin process the host SIGKILLs when it hangs or the server dies,
// and a pandoc left running would hold a core and up to its 1 GiB heap for minutes.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
