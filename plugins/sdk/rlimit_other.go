//go:build !linux

package sdk

// setMemoryLimit is a no-op where rlimits are not available; the Go soft limit still
// applies.
func setMemoryLimit(uint64, uint64) error { return nil }
