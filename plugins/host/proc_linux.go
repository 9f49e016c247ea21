package host

import (
	"runtime"
	"sync"
	"syscall"

	"github.com/hashicorp/go-plugin"
)

// The parent-death signal fires when the *thread* that forked the child exits, not the
// process, and the Go runtime may retire threads. So every plugin is started from one
// goroutine locked to a thread that never exits.
var (
	launches     = make(chan launchReq)
	launcherOnce sync.Once
)

type launchReq struct {
	gp   *plugin.Client
	done chan error
}

func startLauncher() {
	go func() {
		runtime.LockOSThread() // never unlocked: this thread lives as long as the host
		for r := range launches {
			_, err := r.gp.Start()
			r.done <- err
		}
	}()
}

func launch(gp *plugin.Client) error {
	launcherOnce.Do(startLauncher)
	done := make(chan error, 1)
	launches <- launchReq{gp: gp, done: done}
	return <-done
}

// nearLimit reports whether the dead process's peak resident memory came close to the limit:
// a process killed by its memory limit dies in many ways (Go's "out of memory", a failed
// thread creation, a failed malloc in C code, a SIGSEGV in the runtime when a mapping is
// refused mid-GC), but all of them after filling much of its budget. The limit is on
// RLIMIT_DATA, which counts address space written or reserved (Go's 64 MiB heap arenas, the
// GC's headroom), not pages resident: a Go plugin refused memory at a 768 MiB limit had only
// 590-615 MiB resident (77-80 %), so "close" is half the limit, not nearly all of it.
func nearLimit(pr *proc, limit uint64) bool {
	if pr.cmd == nil || pr.cmd.ProcessState == nil {
		return false
	}
	ru, ok := pr.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return ok && uint64(ru.Maxrss)*1024 >= limit/2
}

// fileStamp identifies one version of a file: a rewrite changes its ctime (or its inode, when
// replaced by rename), and ctime cannot be set from user space.
type fileStamp struct {
	dev, ino, size uint64
	mtime, ctime   int64
}

func statStamp(path string) (fileStamp, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fileStamp{}, false
	}
	return fileStamp{
		dev: uint64(st.Dev), ino: st.Ino, size: uint64(st.Size),
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}, true
}
