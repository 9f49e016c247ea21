//go:build !linux

package childproc

import (
	"errors"
	"os/exec"
)

// Confinement is what a confined process may reach (Linux only: Landlock).
type Confinement struct {
	Read, Write, Sockets []string
}

// SystemRead, SystemWrite and SystemSockets are empty: there is no confinement off Linux.
var SystemRead, SystemWrite, SystemSockets []string

// LandlockABI is 0: Landlock is Linux's.
func LandlockABI() int { return 0 }

// ErrNoLandlock is Confine's answer off Linux: the command runs unconfined.
var ErrNoLandlock = errors.New("no Landlock on this system: helpers run with the server's file access")

// Confine leaves cmd alone and returns ErrNoLandlock.
func Confine(cmd *exec.Cmd, c Confinement) error { return ErrNoLandlock }

// SystemReadable is false: nothing is confined.
func SystemReadable(string) bool { return false }
