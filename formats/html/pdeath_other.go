//go:build !linux

package html

import "os/exec"

// dieWithParent has no portable equivalent outside Linux.
func dieWithParent(*exec.Cmd) {}
