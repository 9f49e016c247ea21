package sdk

import "syscall"

// rlimitData is RLIMIT_DATA on Linux (not exported by package syscall on every arch).
const rlimitData = 0x2

const rlimInfinity = ^uint64(0)

// setMemoryLimit limits writable private memory (RLIMIT_DATA), and address space with headroom
// for the runtime's reservations, unless a stricter limit is already in place (set by
// prlimit before the process started).
func setMemoryLimit(n, headroom uint64) error {
	if err := lower(rlimitData, n); err != nil {
		return err
	}
	return lower(syscall.RLIMIT_AS, n+headroom)
}

func lower(resource int, n uint64) error {
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(resource, &cur); err != nil {
		return err
	}
	if cur.Cur != rlimInfinity && cur.Cur <= n {
		return nil
	}
	if cur.Max != rlimInfinity && cur.Max < n {
		n = cur.Max
	}
	return syscall.Setrlimit(resource, &syscall.Rlimit{Cur: n, Max: n})
}
