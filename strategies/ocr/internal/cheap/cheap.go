// Package cheap reports on the C heap (glibc malloc), for tests that bound what cgo code leaks.
package cheap

/*
#include <malloc.h>

static size_t q_in_use(void) {
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}
*/
import "C"

// InUse is the number of bytes allocated and not freed in glibc's main arena (mmapped chunks
// included). It covers every C allocation only when the process runs with MALLOC_ARENA_MAX=1;
// otherwise threads allocate in arenas of their own, which mallinfo2 leaves out.
func InUse() int { return int(C.q_in_use()) }

// Trim returns free C heap memory to the system (malloc_trim), so that the resident set size
// reflects what is in use rather than what the allocator keeps.
func Trim() { C.malloc_trim(0) }
