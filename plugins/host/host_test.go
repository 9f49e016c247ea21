package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/api/partitionapi"
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/text"
	"github.com/quarrydocs/quarry/plugins/internal/wire"
	"github.com/quarrydocs/quarry/plugins/sdk"
	"github.com/quarrydocs/quarry/plugins/sdk/engineplugin"
	"github.com/quarrydocs/quarry/strategies/fast"
)

// pluginDir holds the test plugins built by TestMain, each with its checksum file.
var pluginDir string

const (
	envServeFast = "QUARRY_TEST_SERVE_FAST"
	envChildHost = "QUARRY_TEST_CHILD_HOST"
	envLowered   = "QUARRY_TEST_LOWERED_HOST"
)

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(envServeFast) != "":
		// The test binary re-executed as the built-in fast plugin, as quarry plugin serve fast.
		sdk.Serve(engineplugin.Strategy("fast", nil, engine.FromContract(contract.Func(fast.Partition)).Partition))
	case os.Getenv(envChildHost) != "":
		childHost()
		return
	case os.Getenv(envLowered) != "":
		os.Exit(loweredHost(os.Getenv(envLowered)))
	}
	dir, err := os.MkdirTemp("", "quarry-plugins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pluginDir = dir
	// Describe answers go to a cache of this run's own, not the user's.
	os.Setenv(EnvCacheDir, filepath.Join(dir, "cache"))
	for name, pkg := range map[string]string{"misbehave": "./testdata/misbehave", "pdftotext": "../examples/pdftotext", "compatv1": "./testdata/compatv1", "compatv2": "./testdata/compatv2"} {
		out := filepath.Join(dir, Prefix+name)
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build", pkg, err)
			os.Exit(1)
		}
		if _, err := WriteChecksum(out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func newHost(t *testing.T, cfg Config) *Host {
	t.Helper()
	cfg.Dirs = []string{pluginDir}
	h := New(cfg)
	t.Cleanup(func() {
		pids := h.Processes()
		h.Close()
		assertGone(t, pids)
		assertNoStrays(t, nil)
	})
	specs, err := h.Discover()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if _, err := h.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// settle is how long the tests wait for processes to start or end: the waits return as soon
// as what they wait for holds, so a long bound costs nothing on a quiet machine and keeps a
// loaded one (a full make test beside other builds, load 10+) from failing on timing.
const settle = 30 * time.Second

// assertGone fails when a process is still alive (a zombie counts as gone).
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(settle)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("plugin process %d outlived the host", pid)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// strays scans /proc for live processes the host may have left: any whose executable is one of
// the test plugins (the plugins themselves, and helpers they started from their own binary),
// and any child of this process running this binary (a built-in strategy re-executed as a
// plugin). Known PIDs are not enough: a restarted plugin's predecessor or a plugin's helper
// never appears in Host.Processes.
func strays() map[int]string {
	self, _ := os.Executable()
	me := os.Getpid()
	out := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == me || !alive(pid) {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil {
			continue // gone meanwhile, or a kernel thread
		}
		exe = strings.TrimSuffix(exe, " (deleted)")
		if filepath.Dir(exe) == pluginDir || (exe == self && parent(pid) == me) {
			out[pid] = exe
		}
	}
	return out
}

// parent is a process's parent PID (0 when unknown).
func parent(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// assertNoStrays waits up to settle for every stray process other than the pool's
// current ones (keep) to be gone, then fails naming what is left.
func assertNoStrays(t *testing.T, keep []int) {
	t.Helper()
	deadline := time.Now().Add(settle)
	for {
		left := strays()
		for _, pid := range keep {
			delete(left, pid)
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes left behind: %v", left)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// Field 3 is the state; Z is a zombie waiting to be reaped, as good as gone.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func run(t *testing.T, h *Host, strategy string, doc *engine.Document) ([]element.Element, error) {
	t.Helper()
	p, ok := h.Plugin("misbehave")
	if !ok {
		t.Fatal("misbehave plugin not discovered")
	}
	opts := engine.DefaultOptions()
	opts.Extra = contract.Options{"tag": {"x"}}
	var out []element.Element
	err := p.Partitioner(strategy).Partition(context.Background(), doc, &opts, func(e element.Element) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

func textDoc(n int) *engine.Document {
	data := bytes.Repeat([]byte("quarry "), n/7+1)[:n]
	d := engine.NewDocument("in.txt", data)
	d.MIMEType = "text/plain"
	return d
}

func checkEcho(t *testing.T, got []element.Element, doc *engine.Document) {
	t.Helper()
	if len(got) != 3 {
		t.Fatalf("echo: %d elements, want 3", len(got))
	}
	for i, e := range got {
		if e.Metadata.PageNumber == nil || *e.Metadata.PageNumber != i+1 {
			t.Errorf("element %d: page %v", i, e.Metadata.PageNumber)
		}
		if !strings.HasPrefix(e.Text, fmt.Sprintf("%s %d ", doc.BaseName(), doc.Size)) || !strings.HasSuffix(e.Text, " x") {
			t.Errorf("element %d: text %q", i, e.Text)
		}
		c := e.Metadata.Coordinates
		if c == nil || c.Points[3] != (element.Point{20.125, 2.25}) || c.LayoutHeight != 200 {
			t.Errorf("element %d: coordinates %+v", i, c)
		}
	}
}

func TestEchoStreamsAndPaths(t *testing.T) {
	h := newHost(t, Config{Workers: 1})
	for _, n := range []int{0, 10, 3<<20 + 17} {
		doc := textDoc(n)
		got, err := run(t, h, "echo", doc)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		checkEcho(t, got, doc)
	}
	// A document in a file goes by path.
	f, err := os.CreateTemp(t.TempDir(), "doc")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("from a file")
	doc := &engine.Document{Filename: "file.txt", MIMEType: "text/plain", Content: f, Size: 11}
	got, err := run(t, h, "echo", doc)
	if err != nil {
		t.Fatal(err)
	}
	checkEcho(t, got, doc)
	f.Close()
}

func TestDescribe(t *testing.T) {
	h := newHost(t, Config{Workers: 1})
	p, _ := h.Plugin("misbehave")
	d, err := p.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "misbehave" || d.Version != "0.0.1" || d.Protocol != wire.ProtocolVersion || len(d.Strategies) != 12 || d.Strategies[0] != "echo" {
		t.Errorf("describe: %+v", d)
	}
}

// The attack: documents that make a plugin time out or die after it wrote a temporary copy of
// the upload. Each copy must be gone once the call has failed.
func TestTempCopiesRemovedWhenPluginDies(t *testing.T) {
	// The plugin inherits this TMPDIR unless the host gives it a directory of its own.
	base := t.TempDir()
	t.Setenv("TMPDIR", base)
	h := newHost(t, Config{Workers: 1, Timeout: 2 * time.Second, MemoryLimit: 512 << 20})
	for _, strategy := range []string{"temphang", "tempexit"} {
		if _, err := run(t, h, strategy, textDoc(5000)); err == nil {
			t.Fatalf("%s: no error", strategy)
		}
		var left []string
		filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				left = append(left, p)
			}
			return nil
		})
		if len(left) > 0 {
			t.Errorf("%s: temporary files left behind: %v", strategy, left)
		}
	}
	// A live process keeps its directory; stopping the host removes it.
	if _, err := run(t, h, "echo", textDoc(10)); err != nil {
		t.Fatal(err)
	}
	h.Close()
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Errorf("directories left after Close: %d", len(entries))
	}
}

// Every failure mode gets an error naming the plugin, and the next call is served. The memory
// hog runs on a host of its own whose time limit it cannot reach: touching 512 MiB takes a
// fraction of a second idle but over 3 s on a loaded machine, where it ended on the time limit
// instead of the memory limit.
func TestIsolation(t *testing.T) {
	shared := newHost(t, Config{Workers: 1, Timeout: 3 * time.Second, MemoryLimit: 512 << 20})
	cases := []struct {
		strategy, want string
		kind           engine.Kind
	}{
		{"panic", "strategy panicked: boom", engine.KindInternal},
		{"crash", "plugin misbehave (strategy crash) crashed", engine.KindInternal},
		{"hang", "plugin misbehave (strategy hang) did not finish within 3s", engine.KindInternal},
		{"spawnhang", "plugin misbehave (strategy spawnhang) did not finish within 3s", engine.KindInternal},
		{"hog", "plugin misbehave (strategy hog) ran out of memory (limit 512 MiB)", engine.KindInternal},
		{"exitmid", "plugin misbehave (strategy exitmid) crashed", engine.KindInternal},
		{"typed", "document refused", engine.KindUnprocessable},
	}
	for _, c := range cases {
		t.Run(c.strategy, func(t *testing.T) {
			h, other := shared, []int(nil)
			if c.strategy == "hog" {
				other = shared.Processes() // not strays: the shared host's live processes
				h = New(Config{Dirs: []string{pluginDir}, Workers: 1, Timeout: 5 * time.Minute, MemoryLimit: 512 << 20})
				t.Cleanup(func() {
					pids := h.Processes()
					h.Close()
					assertGone(t, pids)
				})
				specs, err := h.Discover()
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range specs {
					if _, err := h.Add(s); err != nil {
						t.Fatal(err)
					}
				}
			}
			before := h.Processes()
			start := time.Now()
			_, err := run(t, h, c.strategy, textDoc(100))
			var ee *engine.Error
			if !errors.As(err, &ee) || !strings.Contains(ee.Msg, c.want) || ee.Kind != c.kind {
				t.Fatalf("error = %v, want %q", err, c.want)
			}
			t.Logf("%s: %v (%s)", c.strategy, err, time.Since(start).Round(time.Millisecond))
			if c.kind == engine.KindInternal && c.strategy != "panic" {
				assertGone(t, before)
			}
			// Only the pool's live processes remain: the killed one, and any helper it
			// started, are gone.
			assertNoStrays(t, append(h.Processes(), other...))
			doc := textDoc(50)
			got, err := run(t, h, "echo", doc)
			if err != nil {
				t.Fatalf("after %s: %v", c.strategy, err)
			}
			checkEcho(t, got, doc)
		})
	}
}

// Twenty concurrent requests, a third of them failing, on a pool of two: each gets the right
// answer and the pool keeps serving.
func TestConcurrentWithFailures(t *testing.T) {
	h := newHost(t, Config{Workers: 2, Timeout: 4 * time.Second, MemoryLimit: 512 << 20})
	modes := []string{"echo", "crash", "echo", "spawnhang", "echo", "exitmid", "echo", "panic", "echo", "hog"}
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mode := modes[i%len(modes)]
			doc := textDoc(1000 + i)
			got, err := run(t, h, mode, doc)
			switch {
			case mode == "echo" && err != nil:
				errs[i] = fmt.Errorf("request %d (echo): %v", i, err)
			case mode == "echo":
				if len(got) != 3 || !strings.HasPrefix(got[0].Text, fmt.Sprintf("in.txt %d ", doc.Size)) {
					errs[i] = fmt.Errorf("request %d: wrong echo %v", i, got)
				}
			case err == nil || !strings.Contains(err.Error(), "misbehave"):
				errs[i] = fmt.Errorf("request %d (%s): error %v does not name the plugin", i, mode, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	assertNoStrays(t, h.Processes())
	doc := textDoc(10)
	got, err := run(t, h, "echo", doc)
	if err != nil {
		t.Fatal(err)
	}
	checkEcho(t, got, doc)
	if n := len(h.Processes()); n > 2 {
		t.Errorf("%d processes for a pool of 2", n)
	}
}

func TestChecksumRefused(t *testing.T) {
	h := New(Config{Workers: 1})
	defer h.Close()
	p, err := h.Add(Spec{Name: "misbehave", Path: filepath.Join(pluginDir, Prefix+"misbehave"), SHA256: strings.Repeat("0", 64)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Describe(context.Background())
	if err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("err = %v", err)
	}
	if n := len(h.Processes()); n != 0 {
		t.Errorf("%d processes launched", n)
	}
}

func TestDiscoverSkipsUnverified(t *testing.T) {
	dir := t.TempDir()
	src, _ := os.ReadFile(filepath.Join(pluginDir, Prefix+"misbehave"))
	for _, name := range []string{"nosum", "badsum", "good"} {
		if err := os.WriteFile(filepath.Join(dir, Prefix+name), src, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, Prefix+"badsum.sha256"), []byte(strings.Repeat("ab", 32)+"  x\n"), 0o644)
	WriteChecksum(filepath.Join(dir, Prefix+"good"))
	os.WriteFile(filepath.Join(dir, "unrelated"), src, 0o755)
	h := New(Config{Dirs: []string{dir, filepath.Join(dir, "missing")}})
	specs, err := h.Discover()
	if len(specs) != 1 || specs[0].Name != "good" {
		t.Errorf("specs = %+v", specs)
	}
	if err == nil || !strings.Contains(err.Error(), "plugin nosum: no checksum file") || !strings.Contains(err.Error(), "plugin badsum: checksum mismatch") {
		t.Errorf("err = %v", err)
	}
}

// The example third-party strategy, selected by name through the engine.
func TestExamplePluginThroughEngine(t *testing.T) {
	h := newHost(t, Config{Workers: 1})
	if err := h.Register(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The plugins' own keys join the API's schema with their kinds and are checked by them.
	declared := map[string]partitionapi.Param{}
	for _, p := range partitionapi.Declared() {
		declared[p.Name] = p
	}
	if p := declared["pdftotext_layout"]; p.Kind != partitionapi.StrictBool || p.Group != partitionapi.Strategy || !strings.Contains(p.Help, "plugin pdftotext") {
		t.Errorf("pdftotext_layout in the schema: %+v", p)
	}
	if p := declared["compatv2_volume"]; p.Kind != partitionapi.String || p.Help != "how loud (plugin compatv2)" {
		t.Errorf("compatv2_volume in the schema: %+v", p)
	}
	if _, err := partitionapi.OptionsFromForm(map[string][]string{"pdftotext_layout": {"maybe"}}); err == nil {
		t.Error("pdftotext_layout=maybe accepted")
	}
	data, err := os.ReadFile("../../testdata/reference/docs/list-item-example.pdf")
	if err != nil {
		t.Skip(err)
	}
	opts := engine.DefaultOptions()
	opts.Strategy = "pdftotext"
	els, err := engine.Partition(context.Background(), engine.NewDocument("list-item-example.pdf", data), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(els) < 3 {
		t.Fatalf("%d elements", len(els))
	}
	var list int
	for _, e := range els {
		if e.ID == "" || e.Metadata.Filename != "list-item-example.pdf" || e.Metadata.Filetype != "application/pdf" {
			t.Fatalf("not post-processed: %+v", e)
		}
		if e.Type == element.ListItem {
			list++
		}
	}
	if list == 0 {
		t.Errorf("no ListItem in %v", els)
	}
	// A typed error from the plugin reaches the caller as the engine error it is.
	opts.Strategy = "pdftotext"
	_, err = engine.Partition(context.Background(), engine.NewDocument("broken.pdf", []byte("%PDF-1.4 garbage")), opts)
	if err == nil {
		t.Fatal("no error for a broken PDF")
	}
}

// The built-in fast strategy gives identical elements in process and in a plugin process
// (the test binary re-executed, as quarry plugin serve fast re-executes quarry).
func TestBuiltinOutOfProcessIdentical(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Workers: 1})
	defer h.Close()
	p, err := h.Add(Spec{Name: "fast", Path: self, Env: []string{envServeFast + "=1"}, Strategies: []string{"fast"}})
	if err != nil {
		t.Fatal(err)
	}
	b := &Builtin{Local: engine.FromContract(contract.Func(fast.Partition)), Remote: p.Partitioner("fast")}
	for _, name := range []string{"list-item-example.pdf", "layout-parser-paper-fast.pdf", "multi-column-2p.pdf"} {
		data, err := os.ReadFile("../../testdata/reference/docs/" + name)
		if err != nil {
			t.Skip(err)
		}
		var outs [2][]byte
		var pages [2][]int
		for i, inProc := range []bool{true, false} {
			opts := engine.DefaultOptions()
			opts.Coordinates = true
			opts.InProcess = inProc
			// Pages done reach the caller's hook from the plugin process as they do in process.
			opts.Progress = func(p engine.Progress) {
				if p.Total > 0 {
					pages[i] = append(pages[i], p.Page*1000+p.Total)
				}
			}
			doc := engine.NewDocument(name, data)
			doc.MIMEType = "application/pdf"
			var els []element.Element
			if err := b.Partition(context.Background(), doc, &opts, func(e element.Element) error { els = append(els, e); return nil }); err != nil {
				t.Fatalf("%s in-process=%v: %v", name, inProc, err)
			}
			outs[i] = element.MarshalList(els)
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%s: in-process and plugin outputs differ", name)
		}
		if len(pages[0]) == 0 || !slices.Equal(pages[0], pages[1]) {
			t.Errorf("%s: progress (page*1000+total) in process %v, from the plugin %v", name, pages[0], pages[1])
		}
		if len(outs[0]) < 100 {
			t.Errorf("%s: suspiciously small output %s", name, outs[0])
		}
	}
}

// A host killed with SIGKILL leaves no plugin behind (parent-death signal).
func TestNoOrphansWhenHostDies(t *testing.T) {
	self, _ := os.Executable()
	cmd := exec.Command(self, "-test.run=^$")
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), envChildHost+"="+pluginDir, "TMPDIR="+tmp)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256)
	n, _ := stdout.Read(buf)
	line := strings.TrimSpace(string(buf[:n]))
	var pids []int
	for _, f := range strings.Fields(line) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	if len(pids) != 2 {
		cmd.Process.Kill()
		t.Fatalf("child host said %q", line)
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("plugin %d not running", pid)
		}
	}
	// Each plugin has started a helper of its own by now (spawnhang).
	deadline := time.Now().Add(settle)
	for len(strays()) < 4 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(strays()); n < 4 {
		t.Errorf("%d plugin processes and helpers running before the kill, want 4", n)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 2 {
		t.Errorf("%d plugin temporary directories before the kill, want 2", len(ents))
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	assertGone(t, pids)
	assertNoStrays(t, nil)
	// The plugins' temporary directories (where copies of documents go) are removed too.
	var left []string
	for deadline := time.Now().Add(settle); ; time.Sleep(20 * time.Millisecond) {
		left = left[:0]
		ents, _ := os.ReadDir(tmp)
		for _, e := range ents {
			left = append(left, e.Name())
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("plugin temporary directories left %v after the host was killed: %v", settle, left)
	}
}

// childHost starts two plugin processes, prints their PIDs and waits to be killed.
func childHost() {
	h := New(Config{Dirs: []string{os.Getenv(envChildHost)}, Workers: 2})
	specs, _ := h.Discover()
	for _, s := range specs {
		h.Add(s)
	}
	p, _ := h.Plugin("misbehave")
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := engine.DefaultOptions()
			d := textDoc(10)
			// Hold both processes busy so the pool starts two, each with a helper.
			p.Partitioner("spawnhang").Partition(context.Background(), d, &opts, func(element.Element) error { return nil })
		}()
	}
	for len(h.Processes()) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	ps := h.Processes()
	fmt.Println(ps[0], ps[1])
	wg.Wait()
}

// A plugin rewritten after it was verified is refused at its next launch: relaunches skip
// hashing only while the file's identity is unchanged.
func TestRewrittenPluginRefusedAtRelaunch(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, Prefix+"misbehave")
	data, err := os.ReadFile(filepath.Join(pluginDir, Prefix+"misbehave"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteChecksum(bin); err != nil {
		t.Fatal(err)
	}
	h := New(Config{Dirs: []string{dir}, Workers: 1, Timeout: 5 * time.Second})
	defer h.Close()
	specs, err := h.Discover()
	if err != nil || len(specs) != 1 {
		t.Fatalf("discover: %v %v", specs, err)
	}
	p, err := h.Add(specs[0])
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.DefaultOptions()
	call := func(strategy string) error {
		return p.Partitioner(strategy).Partition(context.Background(), textDoc(10), &opts, func(element.Element) error { return nil })
	}
	if err := call("echo"); err != nil {
		t.Fatal(err)
	}
	if err := call("crash"); err == nil {
		t.Fatal("crash did not fail")
	}
	if err := call("echo"); err != nil {
		t.Fatalf("relaunch of the unchanged plugin: %v", err)
	}
	// Replaced as installers do, by renaming a new file over it (a running executable cannot
	// be written in place).
	if err := os.WriteFile(bin+".new", append(data, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(bin+".new", bin); err != nil {
		t.Fatal(err)
	}
	if err := call("crash"); err == nil {
		t.Fatal("crash did not fail")
	}
	if err := call("echo"); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("relaunch of the rewritten plugin: err = %v", err)
	}
}

// A process that has served MaxCalls calls is replaced once idle: the next call runs in a new
// process and the old one is gone.
func TestProcessRetiredAfterMaxCalls(t *testing.T) {
	h := newHost(t, Config{Workers: 1, MaxCalls: 2})
	call := func() {
		t.Helper()
		doc := textDoc(10)
		got, err := run(t, h, "echo", doc)
		if err != nil {
			t.Fatal(err)
		}
		checkEcho(t, got, doc)
	}
	call()
	first := h.Processes()
	if len(first) != 1 {
		t.Fatalf("processes after one call: %v", first)
	}
	call()
	assertGone(t, first)
	call()
	second := h.Processes()
	if len(second) != 1 || second[0] == first[0] {
		t.Errorf("processes after the third call: %v (first process %v)", second, first)
	}
}

// loweredHost runs the built-in fast plugin (this binary re-executed) with a 512 MiB memory
// limit and partitions pdf: 0 when that works.
func loweredHost(pdf string) int {
	self, _ := os.Executable()
	h := New(Config{Workers: 1})
	defer h.Close()
	p, err := h.Add(Spec{Name: "fast", Path: self, Env: []string{envServeFast + "=1"}, Strategies: []string{"fast"}, MemoryLimit: 512 << 20})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	data, err := os.ReadFile(pdf)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	doc := engine.NewDocument("a.pdf", data)
	doc.MIMEType = "application/pdf"
	opts := engine.DefaultOptions()
	n := 0
	if err := p.Partitioner("fast").Partition(context.Background(), doc, &opts, func(element.Element) error { n++; return nil }); err != nil || n == 0 {
		fmt.Fprintln(os.Stderr, "partition:", err, n, "elements")
		return 1
	}
	return 0
}

// TestHostUnderLowerHardLimits: a host whose own hard address-space limit is below what it
// gives a plugin (a container's ulimit) still starts plugins, with its limit; asking prlimit
// for more failed every start ("failed to set the AS resource limit: Operation not
// permitted"), so `quarry serve` under `ulimit -v` answered every document with 500.
func TestHostUnderLowerHardLimits(t *testing.T) {
	pl, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) not installed")
	}
	self, _ := os.Executable()
	// Below 512 MiB + AddressSpaceHeadroom, above what a Go process reserves.
	cmd := exec.Command(pl, "--as=3221225472", "--", self, "-test.run=^$")
	cmd.Env = append(os.Environ(), envLowered+"="+filepath.Join("..", "..", "testdata", "reference", "docs", "list-item-example.pdf"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("host under a 3 GiB address-space limit: %v\n%s", err, out)
	}
}
