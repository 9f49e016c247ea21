//go:build !linux

package office

import "os/exec"

// dieWithParent has no portable equivalent outside Linux.
func dieWithParent(*exec.Cmd) {}
