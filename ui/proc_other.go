//go:build !linux

package ui

import "os/exec"

// dieWithParent has no portable equivalent outside Linux.
func dieWithParent(*exec.Cmd) {}
