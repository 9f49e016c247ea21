// Package childproc sets up the helper processes Quarry starts (plugins, LibreOffice, pandoc,
// the playground's renderer) so that they die with the process that started them and stay
// under a memory limit that process can actually grant.
package childproc

import (
	"os/exec"
	"strconv"
)

// Limited returns the command line that runs name under a memory limit: RLIMIT_DATA of data
// bytes and, as a backstop, RLIMIT_AS of data+headroom, both set by prlimit(1) before the
// program's first instruction (so they cover libraries it loads at start-up). Both are lowered
// to this process's own hard limits: an unprivileged process cannot raise them for a child,
// and a prlimit asking for more fails every start. Without prlimit, or with data 0, the
// command is returned unchanged and runs under this process's limits.
func Limited(data, headroom uint64, name string, args ...string) (string, []string) {
	pl, err := exec.LookPath("prlimit")
	if err != nil || data == 0 {
		return name, args
	}
	hardData, hardAS := HardLimits()
	return pl, append([]string{
		"--data=" + strconv.FormatUint(min(data, hardData), 10),
		"--as=" + strconv.FormatUint(min(data+headroom, hardAS), 10),
		"--", name}, args...)
}
