//go:build !linux

package ui

import (
	"math"
	"os/exec"
)

// dieWithParent has no portable equivalent outside Linux.
func dieWithParent(*exec.Cmd) {}

// hardLimits: prlimit is Linux's; no limits to respect here.
func hardLimits() (data, as uint64) { return math.MaxUint64, math.MaxUint64 }
