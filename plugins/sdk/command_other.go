//go:build !linux

package sdk

import "os/exec"

// dieWithParent has no portable equivalent outside Linux; the context still cancels the
// helper when the call ends normally.
func dieWithParent(*exec.Cmd) {}
