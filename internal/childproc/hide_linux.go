package childproc

import (
	"fmt"
	"syscall"
)

// HideFromSameUser makes this process non-dumpable: another process of the same user — a
// plugin, LibreOffice or pandoc it started on an untrusted document — can then no longer read
// its environment, memory or open files through /proc/PID (environ, mem, fd), which would
// hand it the API keys, the secret key and the database password the children's own
// environment leaves out. It also turns off this process's core dumps. Root sees it anyway.
func HideFromSameUser() error {
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("prctl PR_SET_DUMPABLE: %w", errno)
	}
	return nil
}
