//go:build !unix

package bench

import "time"

// cpuTime is 0 where getrusage is missing: the benchmarks then print wall-clock ratios only.
func cpuTime() time.Duration { return 0 }
