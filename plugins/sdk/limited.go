package sdk

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/internal/childproc"
)

// ConverterMemoryEnv names the variable that sets every converter's memory limit in MiB
// (LimitedCommand), overriding the limit a strategy chose for it.
const ConverterMemoryEnv = "QUARRY_CONVERTER_MEMORY_MB"

// converterHeadroom is the address space a converter may reserve beyond its data limit
// (RLIMIT_AS = limit + headroom): libraries, thread stacks, allocators' arenas, none of it
// memory the converter fills.
const converterHeadroom = 1 << 30

// ConverterMemory returns the memory limit, in bytes, for a converter whose own default is
// def bytes: $QUARRY_CONVERTER_MEMORY_MB when it is a positive number, else def.
func ConverterMemory(def uint64) uint64 {
	if mb, err := strconv.ParseUint(os.Getenv(ConverterMemoryEnv), 10, 64); err == nil && mb > 0 {
		return mb << 20
	}
	return def
}

// LimitedCommand is Command with the helper under a memory limit of limit bytes: RLIMIT_DATA,
// and RLIMIT_AS with 1 GiB of headroom, set by prlimit(1) before the helper starts (lowered to
// this process's own hard limits). Without it a converter decoding a hostile image or page
// could use all of the plugin's memory limit and take the plugin with it. A helper not on
// PATH runs unwrapped, so that Run's *exec.Error still says it is missing; without prlimit
// the helper runs under the plugin's limits. Check a failure with OutOfMemory.
func LimitedCommand(ctx context.Context, limit uint64, name string, args ...string) *exec.Cmd {
	if _, err := exec.LookPath(name); err != nil {
		return Command(ctx, name, args...)
	}
	path, args := childproc.Limited(limit, converterHeadroom, name, args...)
	return Command(ctx, path, args...)
}

// OutOfMemory tells whether a helper's standard error says it ran out of memory: poppler's
// "Out of memory" (pdftoppm prints it and may still exit 0, writing nothing), C++'s
// std::bad_alloc, libheif's "Memory allocation error", C's ENOMEM text.
func OutOfMemory(stderr string) bool {
	s := strings.ToLower(stderr)
	for _, m := range []string{"out of memory", "bad_alloc", "memory allocation", "cannot allocate memory", "failed to allocate"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// MemoryError is the error for a helper that ran out of memory under limit bytes: a document
// that needs more than the limit (HTTP 422), saying which helper, the limit and how to raise it.
func MemoryError(name string, limit uint64) error {
	return contract.Errorf(contract.KindUnprocessable, "%s ran out of memory under its limit of %d MiB (%s raises it)", name, limit>>20, ConverterMemoryEnv)
}
