//go:build !unix

package office

import (
	"math"
	"os/exec"
)

func setGroup(*exec.Cmd) {}

// killGroup kills the launcher; without process groups its children may outlive it.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// hardLimits: no resource limits to respect here.
func hardLimits() (data, as uint64) { return math.MaxUint64, math.MaxUint64 }
