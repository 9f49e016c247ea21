//go:build !unix

package office

import (
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
