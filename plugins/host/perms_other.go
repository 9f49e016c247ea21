//go:build !unix

package host

import "io/fs"

// writableByOthers is the Unix ownership check (perms_unix.go); other systems have no such
// mode bits to judge.
func writableByOthers(fs.FileInfo) string { return "" }
