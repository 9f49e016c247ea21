//go:build !unix

package local

import "io/fs"

// links is 1 where the platform does not report hard-link counts.
func links(fs.FileInfo) uint64 { return 1 }
