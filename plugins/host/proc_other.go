//go:build !linux

package host

import (
	"math"
	"os/exec"

	"github.com/hashicorp/go-plugin"
)

// hardLimits: prlimit is Linux's; no limits to respect here.
func hardLimits() (data, as uint64) { return math.MaxUint64, math.MaxUint64 }

// setParentDeath has no portable equivalent; the SDK's parent watchdog covers other systems.
func setParentDeath(*exec.Cmd) {}

func launch(gp *plugin.Client) error {
	_, err := gp.Start()
	return err
}

// nearLimit cannot tell without rusage; the stderr markers still apply.
func nearLimit(*proc, uint64) bool { return false }

// fileStamp is never considered unchanged elsewhere: every launch hashes the executable.
type fileStamp struct{ valid bool }

func statStamp(string) (fileStamp, bool) { return fileStamp{}, false }
