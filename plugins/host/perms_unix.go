//go:build unix

package host

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// writableByOthers reports why a plugin file or directory could be changed by a user other than
// the one running the host (or root), or "" when it cannot: write permission for others, for a
// group other than the host's own, or another owner. A plugin runs with the server's
// credentials and sees every document; its checksum file sits beside it, so it proves the
// binary unchanged, not who put it there.
func writableByOthers(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	perm := fi.Mode().Perm()
	switch {
	case int(st.Uid) != os.Geteuid() && st.Uid != 0:
		return fmt.Sprintf("is owned by another user (uid %d)", st.Uid)
	case perm&0o002 != 0:
		return "is writable by other users"
	case perm&0o020 != 0 && int(st.Gid) != os.Getegid():
		return fmt.Sprintf("is writable by other users (group %d)", st.Gid)
	}
	return ""
}
