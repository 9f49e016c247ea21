package childproc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// Landlock (Linux 5.13+) lets a process give up file-system access for itself and everything
// it executes, without privileges. Quarry's helpers (plugins, and through them LibreOffice,
// pandoc, pdftoppm, Tesseract) parse untrusted documents as the server's user: one taken over
// by a hostile document could otherwise read DATA-DIR's secret.key, database and API key files
// and the uploads of other requests.
//
// A confined command starts as this same executable under the argv[0] confineArg0; this
// package's init sees it, restricts its own thread to the Confinement and execs the real
// program (the restriction survives exec and is inherited by every child). Running it in init,
// before main and with the main goroutine still locked to its thread, keeps the restricted
// thread the one that calls execve.

const confineArg0 = "quarry-confine"

// Confinement is what a confined process may reach; everything else is refused (EACCES).
type Confinement struct {
	// Read are files and directories it may read and execute (the system's libraries and
	// programs, its own binary).
	Read []string `json:"r,omitempty"`
	// Write are files and directories it may read, write, create in and remove from (its
	// private temporary directory, /dev/null).
	Write []string `json:"w,omitempty"`
	// Sockets are directories it may create Unix sockets in and remove files from, nothing
	// else (no reading, no writing): LibreOffice binds its single-instance pipe in /tmp
	// whatever TMPDIR says, removes it when it ends, and fails when a stale one cannot be
	// removed (its restart after creating a profile).
	Sockets []string `json:"s,omitempty"`
}

// SystemRead are the system directories a helper needs to run: programs, libraries, fonts,
// locale and TLS roots, /proc and /sys for the facts runtimes read there. Not /etc as a whole
// (operators keep key files there), not /home, /root, /var, /srv, /opt or /tmp.
var SystemRead = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/fonts", "/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/alternatives",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
	"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf",
	"/etc/passwd", "/etc/group", "/etc/mime.types", "/etc/papersize", "/etc/libreoffice",
	"/etc/os-release", "/etc/machine-id", "/etc/locale.alias", "/etc/default/locale",
	"/var/cache/fontconfig", "/var/spool/libreoffice", "/var/lib/libreoffice", "/proc", "/sys",
}

// SystemSockets are where LibreOffice binds its pipe (osl: /tmp, else /var/tmp).
var SystemSockets = []string{"/tmp", "/var/tmp"}

// SystemWrite are the device files every program may write.
var SystemWrite = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// Landlock access rights (linux/landlock.h).
const (
	llExecute    = 1 << 0
	llWriteFile  = 1 << 1
	llReadFile   = 1 << 2
	llReadDir    = 1 << 3
	llRemoveFile = 1 << 5
	llMakeSock   = 1 << 9
	llTruncate   = 1 << 14
	llRefer      = 1 << 13
	llAllV1      = 1<<13 - 1 // execute … make_sym
	llFileRights = llExecute | llWriteFile | llReadFile | llTruncate

	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446
	llCreateRulesetVersion   = 1
	llRulePathBeneath        = 1
	oPath                    = 0x200000 // O_PATH, missing from package syscall
	prSetNoNewPrivs          = 38
)

var abiOnce = sync.OnceValue(func() int {
	v, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, llCreateRulesetVersion)
	if errno != 0 {
		return 0
	}
	return int(v)
})

// LandlockABI is the kernel's Landlock ABI version, 0 when it has none (older than 5.13,
// or Landlock not among the enabled LSMs).
func LandlockABI() int { return abiOnce() }

// ErrNoLandlock is Confine's answer on a kernel without Landlock: the command runs unconfined.
var ErrNoLandlock = errors.New("the kernel has no Landlock (Linux 5.13+ with lsm=landlock): helpers run with the server's file access")

// Confine rewrites cmd to start under c: this executable restricts itself and then execs
// cmd's program with cmd's arguments and environment. Call it after cmd is built and before
// Start. On a kernel without Landlock it leaves cmd alone and returns ErrNoLandlock.
func Confine(cmd *exec.Cmd, c Confinement) error {
	if LandlockABI() == 0 {
		return ErrNoLandlock
	}
	// /proc/self/exe, not os.Executable: it still starts this program after its file was
	// replaced on disk (an upgrade while the server runs).
	const self = "/proc/self/exe"
	spec, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("confine: %w", err)
	}
	path := cmd.Path
	if len(cmd.Args) == 0 {
		cmd.Args = []string{path}
	}
	cmd.Args = append([]string{confineArg0, string(spec), path}, cmd.Args...)
	cmd.Path = self
	return nil
}

func init() {
	if len(os.Args) < 4 || os.Args[0] != confineArg0 {
		return
	}
	// Never returns: the confined program replaces this process, or it exits 126.
	runtime.LockOSThread()
	var c Confinement
	err := json.Unmarshal([]byte(os.Args[1]), &c)
	if err == nil {
		err = restrictSelf(c)
	}
	if err == nil {
		err = syscall.Exec(os.Args[2], os.Args[3:], os.Environ())
	}
	fmt.Fprintf(os.Stderr, "%s: %s: %v\n", confineArg0, os.Args[2], err)
	os.Exit(126)
}

// restrictSelf confines the calling thread (and what it execs) to c.
func restrictSelf(c Confinement) error {
	abi := LandlockABI()
	if abi == 0 {
		return ErrNoLandlock
	}
	handled := uint64(llAllV1)
	dirRW := uint64(llAllV1)
	if abi >= 2 {
		handled |= llRefer
		dirRW |= llRefer
	}
	if abi >= 3 {
		handled |= llTruncate
		dirRW |= llTruncate
	}
	attr := struct{ handledFS uint64 }{handled}
	fd, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	ruleset := int(fd)
	defer syscall.Close(ruleset)
	add := func(path string, access uint64) error {
		f, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, syscall.ENOENT) {
				return nil // a system directory this machine lacks
			}
			return fmt.Errorf("open %s: %w", path, err)
		}
		defer syscall.Close(f)
		var st syscall.Stat_t
		if err := syscall.Fstat(f, &st); err != nil {
			return fmt.Errorf("stat %s: %w", path, err)
		}
		if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			access &= llFileRights // only these apply to a file
		}
		rule := struct {
			allowed uint64
			fd      int32
		}{access & handled, int32(f)}
		// The kernel's struct landlock_path_beneath_attr is packed: 12 bytes.
		if _, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(ruleset), llRulePathBeneath, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
			return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
		}
		return nil
	}
	for _, p := range c.Read {
		if err := add(p, llExecute|llReadFile|llReadDir); err != nil {
			return err
		}
	}
	for _, p := range c.Write {
		if err := add(p, dirRW); err != nil {
			return err
		}
	}
	for _, p := range c.Sockets {
		if err := add(p, llMakeSock|llRemoveFile); err != nil {
			return err
		}
	}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("prctl PR_SET_NO_NEW_PRIVS: %w", errno)
	}
	if _, _, errno := syscall.Syscall(sysLandlockRestrictSelf, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// SystemReadable reports whether path lies in SystemRead, where every confined helper may
// read it: a data directory under /usr/local, say, is not hidden by the confinement.
func SystemReadable(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for _, dir := range SystemRead {
		if rel, err := filepath.Rel(dir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}
