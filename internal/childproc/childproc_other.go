//go:build !linux

package childproc

import (
	"math"
	"os/exec"
)

// DieWithParent has no portable equivalent outside Linux; callers keep their own deadlines.
func DieWithParent(*exec.Cmd) {}

// HardLimits: prlimit is Linux's; there are no limits to respect here.
func HardLimits() (data, as uint64) { return math.MaxUint64, math.MaxUint64 }

// HideFromSameUser is Linux's PR_SET_DUMPABLE; elsewhere it does nothing.
func HideFromSameUser() error { return nil }
