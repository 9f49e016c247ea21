package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/internal/childproc"
	"github.com/quarrydocs/quarry/plugins/internal/wire"
)

// proc is one running plugin process.
type proc struct {
	client *wire.Client
	gp     *plugin.Client
	cmd    *exec.Cmd
	stderr *tailBuffer
	calls  int
	// tmp is the process's own temporary directory (its TMPDIR), removed when the process is
	// stopped: a plugin killed for a timeout or its memory limit cannot remove the temporary
	// copies of documents it made, so the host does.
	tmp string
	// confined is set when the process runs under Landlock: it can open no file outside tmp
	// and the system's directories, so a document in a file reaches it linked into tmp.
	confined bool
}

func (pr *proc) pid() int {
	if pr.cmd != nil && pr.cmd.Process != nil {
		return pr.cmd.Process.Pid
	}
	return 0
}

// kill stops the process at once: a hung plugin gets no grace period.
func (pr *proc) kill() {
	if pr.cmd != nil && pr.cmd.Process != nil {
		_ = pr.cmd.Process.Kill()
	}
	// go-plugin then closes its connection to the process. Over protocol 3's transport (yamux)
	// every write that fails on a connection whose peer has just died is logged on this
	// process's stderr; once the process is reaped, the connection has ended and nothing is.
	for i := 0; i < 100 && !pr.gp.Exited(); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	pr.gp.Kill()
	if pr.tmp != "" {
		// After the kill: the process can no longer add files.
		for i := 0; i < 100 && !pr.gp.Exited(); i++ {
			time.Sleep(5 * time.Millisecond)
		}
		os.RemoveAll(pr.tmp)
	}
}

// stop ends a healthy process: go-plugin asks it to quit, and kills it if it has not exited
// within 2 seconds; then what kill does after (the temporary directory).
func (pr *proc) stop() {
	pr.gp.Kill()
	pr.kill()
}

// pool holds up to n processes of one plugin. A call takes a token, then the most recently
// used idle process, or starts one when none is idle: a warm process is always preferred to a
// new one (with tokens alone a pool of two would start a second process for the call that
// follows the Describe of the first).
type pool struct {
	p      *Plugin
	tokens chan struct{}

	mu      sync.Mutex
	idle    []*proc
	running map[*proc]bool
	closed  bool
	// checked is the file identity (device, inode, size, times) of the executable when its
	// checksum last matched. Hashing a plugin costs 20-60 ms; a file whose identity is
	// unchanged has not been rewritten (any write moves ctime, which no caller can set), so
	// a relaunch does not hash it again.
	checked fileStamp
}

func newPool(p *Plugin, n int) *pool {
	pl := &pool{p: p, tokens: make(chan struct{}, n), running: map[*proc]bool{}, checked: p.spec.checked}
	for range n {
		pl.tokens <- struct{}{}
	}
	return pl
}

var errClosed = errors.New("plugin host closed")

// acquire takes a token and an idle process, starting one when none is idle or alive.
func (pl *pool) acquire(ctx context.Context) (*proc, error) {
	select {
	case <-pl.tokens:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for {
		pl.mu.Lock()
		var pr *proc
		if n := len(pl.idle); n > 0 {
			pr = pl.idle[n-1]
			pl.idle = pl.idle[:n-1]
		}
		pl.mu.Unlock()
		if pr == nil {
			break
		}
		if !pr.gp.Exited() {
			return pr, nil
		}
		pl.forget(pr)
		pr.kill()
	}
	pr, err := pl.start()
	if err != nil {
		pl.tokens <- struct{}{}
		return nil, err
	}
	return pr, nil
}

// release returns a process and its token; a suspect process, or one that has served its
// MaxCalls, is stopped instead, so a later call starts a fresh one.
func (pl *pool) release(pr *proc, suspect bool) {
	retire := pl.p.host.cfg.MaxCalls > 0 && pr.calls >= pl.p.host.cfg.MaxCalls
	if retire && !suspect {
		pl.p.host.log.Info("plugin process retired", "plugin", pl.p.spec.Name, "pid", pr.pid(), "calls", pr.calls)
	}
	pl.mu.Lock()
	keep := !suspect && !retire && !pl.closed
	if keep {
		pl.idle = append(pl.idle, pr)
	}
	pl.mu.Unlock()
	if !keep {
		pl.forget(pr)
		if suspect {
			pr.kill()
		} else {
			pr.stop()
		}
	}
	pl.tokens <- struct{}{}
}

func (pl *pool) forget(pr *proc) {
	pl.mu.Lock()
	delete(pl.running, pr)
	pl.mu.Unlock()
}

func (pl *pool) pids() []int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	var out []int
	for pr := range pl.running {
		if pid := pr.pid(); pid != 0 && !pr.gp.Exited() {
			out = append(out, pid)
		}
	}
	return out
}

func (pl *pool) close() {
	pl.mu.Lock()
	pl.closed = true
	procs := make([]*proc, 0, len(pl.running))
	for pr := range pl.running {
		procs = append(procs, pr)
	}
	idle := map[*proc]bool{}
	for _, pr := range pl.idle {
		idle[pr] = true
	}
	pl.running = map[*proc]bool{}
	pl.idle = nil
	pl.mu.Unlock()
	var wg sync.WaitGroup
	for _, pr := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if idle[pr] {
				pr.stop() // an idle process quits by itself
				return
			}
			pr.kill() // a busy one may be hung
		}()
	}
	wg.Wait()
}

// start launches one process: checksum, command with limits, handshake, dispense, describe.
func (pl *pool) start() (*proc, error) {
	p := pl.p
	spec := p.spec
	pl.mu.Lock()
	closed := pl.closed
	pl.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	if spec.SHA256 != "" {
		st, ok := statStamp(spec.Path)
		pl.mu.Lock()
		fresh := ok && st == pl.checked
		pl.mu.Unlock()
		if !fresh {
			if err := verifyChecksum(spec.Path, spec.SHA256); err != nil {
				return nil, p.errorf("%v", err)
			}
			if ok {
				pl.mu.Lock()
				pl.checked = st
				pl.mu.Unlock()
			}
		}
	}
	tmp, err := os.MkdirTemp(p.host.cfg.TempDir, "quarry-plugin-"+spec.Name+"-")
	if err != nil {
		return nil, p.errorf("temporary directory: %v", err)
	}
	p.host.sweepOnDeath(tmp)
	cmd := command(spec, tmp)
	confined := p.host.confine(cmd, spec, tmp)
	tail := &tailBuffer{max: 8 << 10}
	gp := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: wire.ClientSets(),
		Cmd:              cmd,
		SkipHostEnv:      true, // cmd.Env is the environment the plugin gets (command)
		AllowedProtocols: wire.AllowedProtocols,
		AutoMTLS:         true,
		Managed:          true,
		StartTimeout:     30 * time.Second,
		Stderr:           tail,
		Logger:           hclog.NewNullLogger(),
	})
	fail := func() { gp.Kill(); os.RemoveAll(tmp) }
	if err := launch(gp); err != nil {
		msg := startFailure(err, gp, cmd)
		fail()
		return nil, p.errorf("start %s: %s%s", spec.Path, msg, tail.reason())
	}
	rpc, err := gp.Client()
	if err != nil {
		fail()
		return nil, p.errorf("connect: %v", err)
	}
	raw, err := rpc.Dispense(wire.PluginKey)
	if err != nil {
		fail()
		return nil, p.errorf("dispense: %v", err)
	}
	c, ok := raw.(*wire.Client)
	if !ok {
		fail()
		return nil, p.errorf("dispense: unexpected type %T", raw)
	}
	pr := &proc{client: c, gp: gp, cmd: cmd, stderr: tail, tmp: tmp, confined: confined}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := c.Describe(ctx)
	if err != nil {
		pr.kill()
		return nil, p.errorf("describe: %v%s", err, tail.reason())
	}
	p.learn(d)
	pl.mu.Lock()
	if pl.closed {
		pl.mu.Unlock()
		pr.kill()
		return nil, errClosed
	}
	pl.running[pr] = true
	pl.mu.Unlock()
	p.host.log.Debug("plugin started", "plugin", spec.Name, "pid", pr.pid())
	return pr, nil
}

// command builds the plugin's command line. The memory limit is applied by prlimit(1) before
// the plugin's first instruction when it is installed (so it covers cgo libraries loaded at
// start-up); the SDK applies it again itself from the environment otherwise. The limit is
// RLIMIT_DATA (writable private memory: heap, stacks, anonymous mappings), with RLIMIT_AS as
// a backstop above it: an idle Go process with cgo already reserves ~1.6 GiB of address space
// that it never touches, so an address-space limit alone cannot express "use at most N MiB".
//
// tmp, when set, becomes the plugin's TMPDIR. It is set through env(1) at exec: go-plugin
// appends the host's own environment after cmd.Env, so a TMPDIR there would lose to the host's.
func command(spec Spec, tmp string) *exec.Cmd {
	path, args := spec.Path, spec.Args
	if tmp != "" {
		if envBin, err := exec.LookPath("env"); err == nil {
			args = append([]string{"TMPDIR=" + tmp, path}, args...)
			path = envBin
		}
	}
	// Not the host's own secrets (the API key, the key sealing connector credentials, the
	// database URL): a plugin parses untrusted documents and may be a third party's binary.
	// go-plugin would append the whole environment again; the client sets SkipHostEnv.
	env := childproc.Environ()
	if os.Getenv("OMP_THREAD_LIMIT") == "" {
		// A pool sized to the cores wants one OpenMP thread per process; libgomp reads the
		// variable when it loads, so it must be in the environment at exec (Tesseract is 8x
		// slower without it).
		env = append(env, "OMP_THREAD_LIMIT=1")
	}
	env = append(env, spec.Env...)
	env = append(env, wire.EnvHostPID+"="+strconv.Itoa(os.Getpid()))
	if spec.MemoryLimit > 0 {
		// glibc reserves 64 MiB per thread arena in cgo binaries; two arenas are plenty.
		env = append(env, wire.EnvMemoryLimit+"="+strconv.FormatUint(spec.MemoryLimit, 10), "MALLOC_ARENA_MAX=2")
		path, args = childproc.Limited(spec.MemoryLimit, AddressSpaceHeadroom, path, args...)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = env
	childproc.DieWithParent(cmd)
	return cmd
}

// document is doc as the process may read it: a confined process cannot open the host's
// file by its path (another request's directory), so a document in a file under the temporary
// directory (a spooled upload: the host's own copy) is hard-linked into the process's own
// directory for the call. Any other file — a user's own document given to quarry partition —
// crosses the pipe instead: a link would let the process write to the original. So does a file
// that cannot be linked (another file system, already removed). done removes the link.
func (pr *proc) document(doc *engine.Document) (_ *engine.Document, done func()) {
	f, ok := doc.Content.(*os.File)
	if !pr.confined || !ok {
		return doc, func() {}
	}
	d := engine.Document{Filename: doc.Filename, ContentType: doc.ContentType, MIMEType: doc.MIMEType, Size: doc.Size}
	name := filepath.Join(pr.tmp, "document-"+strconv.Itoa(pr.calls))
	if within(f.Name(), os.TempDir()) || within(f.Name(), filepath.Dir(pr.tmp)) {
		if err := os.Link(f.Name(), name); err == nil {
			if lf, err := os.Open(name); err == nil {
				d.Content = lf
				return &d, func() { lf.Close(); os.Remove(name) }
			}
			os.Remove(name)
		}
	}
	d.Content = io.NewSectionReader(f, 0, doc.Size)
	return &d, func() {}
}

// within reports whether path lies inside dir (both made absolute, not resolved).
func within(path, dir string) bool {
	p, err1 := filepath.Abs(path)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}

// confine puts cmd under Landlock (childproc.Confine) unless the host is configured
// Unconfined: the system's directories, the plugin's binary and Config.ReadDirs to read, its
// own temporary directory to write. It reports whether cmd is confined; the first start
// logs which it is, and why not.
func (h *Host) confine(cmd *exec.Cmd, spec Spec, tmp string) bool {
	if h.cfg.Unconfined {
		h.confineLog.Do(func() {
			h.log.Warn("plugins run unconfined: a plugin or converter taken over by a document can read everything this user can", "setting", EnvUnconfined)
		})
		return false
	}
	read := append(append(slices.Clone(childproc.SystemRead), spec.Path), h.cfg.ReadDirs...)
	err := childproc.Confine(cmd, childproc.Confinement{Read: read, Write: append([]string{tmp}, childproc.SystemWrite...), Sockets: childproc.SystemSockets})
	h.confineLog.Do(func() {
		if err != nil {
			h.log.Warn("plugins run unconfined: a plugin or converter taken over by a document can read everything this user can", "err", err)
			return
		}
		h.log.Info("plugins confined with Landlock: system directories to read, their own temporary directory to write", "landlock_abi", childproc.LandlockABI())
	})
	return err == nil
}

// AddressSpaceHeadroom is added to the memory limit for the RLIMIT_AS backstop.
const AddressSpaceHeadroom = 4 << 30

// tailBuffer keeps the end of a plugin's stderr, to say why it died.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
	// fatal is the first line that says why the process died, kept even when a long stack
	// trace pushes it out of buf.
	fatal string
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fatal == "" {
		for _, l := range bytes.Split(b, []byte("\n")) {
			if s := strings.TrimSpace(string(l)); isFatalLine(s) {
				t.fatal = s
				break
			}
		}
	}
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

// reason returns the most telling line of the stderr tail (a Go panic or fatal error), as
// ": <line>", or "".
func (t *tailBuffer) reason() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fatal != "" {
		return ": " + t.fatal
	}
	lines := bytes.Split(t.buf, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		// go-plugin's own JSON log lines say nothing about the failure.
		if s := strings.TrimSpace(string(lines[i])); s != "" && !strings.HasPrefix(s, `{"@`) {
			return ": " + s
		}
	}
	return ""
}

var _ io.Writer = (*tailBuffer)(nil)

func isFatalLine(s string) bool {
	for _, p := range []string{"panic:", "fatal error:", "runtime: out of memory", "runtime/cgo: pthread_create failed", "SIGSEGV", "SIGABRT", "terminate called"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// startFailure says in one line why a plugin did not come up. go-plugin's message for a process
// that ends before its handshake is a page of generic guesses, and it names prlimit as the
// plugin when a memory limit is set; the exit status and the plugin's own last stderr line
// (added by the caller) say what happened.
// incompatible matches go-plugin's answer to a plugin announcing a protocol version the host
// did not offer.
var incompatible = regexp.MustCompile(`(?i)incompatible API version with plugin\. Plugin version: (\d+)`)

func startFailure(err error, gp *plugin.Client, cmd *exec.Cmd) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if m := incompatible.FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("the plugin speaks plugin protocol %s and this quarry speaks protocols %d to %d: rebuild the plugin with a plugins/sdk that serves one of them, or use a quarry that speaks %s",
			m[1], wire.Protocols[0], wire.Protocols[len(wire.Protocols)-1], m[1])
	}
	if rest, ok := strings.CutPrefix(msg, "Unrecognized remote plugin message:"); ok {
		line := strings.TrimSpace(rest)
		if line == "" {
			msg = "the process ended before its handshake"
		} else {
			if len(line) > 120 {
				line = line[:120] + "…"
			}
			msg = fmt.Sprintf("not a quarry plugin: it printed %q instead of a handshake", line)
		}
	}
	// Let the process be reaped so its exit status is known.
	for i := 0; i < 20 && !gp.Exited(); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if gp.Exited() && cmd.ProcessState != nil {
		msg += " (" + cmd.ProcessState.String() + ")"
	}
	return msg
}

// describeExit says how a process ended, for error messages.
func describeExit(pr *proc) string {
	if pr.cmd == nil || pr.cmd.ProcessState == nil {
		return ""
	}
	return fmt.Sprintf(" (%s)", pr.cmd.ProcessState.String())
}
