//go:build unix

package local

import (
	"io/fs"
	"syscall"
)

// links returns the file's hard-link count.
func links(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
