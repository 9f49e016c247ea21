//go:build unix

package server

import (
	"errors"
	"os"
	"syscall"
)

// ownedByUs tells whether fi belongs to this process's user: another user's directory of the
// same name is never touched.
func ownedByUs(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// processAlive tells whether a process pid exists (signal 0 checks without sending). EPERM
// means it exists under another user: alive.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
