package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	pluginv1 "github.com/quarrydocs/quarry/plugins/proto/v1"
)

// installCopy puts a copy of the misbehave test plugin in a fresh directory as
// quarry-plugin-<name>, with extra bytes appended (a different binary, a different checksum,
// the same behaviour), and writes its checksum.
func installCopy(t *testing.T, dir, name string, extra []byte) (string, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(pluginDir, Prefix+"misbehave"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, Prefix+name)
	// Replaced as installers do, by renaming a new file over the old one.
	if err := os.WriteFile(bin+".new", append(data, extra...), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(bin+".new", bin); err != nil {
		t.Fatal(err)
	}
	sum, err := WriteChecksum(bin)
	if err != nil {
		t.Fatal(err)
	}
	return bin, sum
}

// launchedFrom lists the live processes whose executable is in dir, from /proc: a plugin
// started by any path shows up here, whether or not the host still tracks it.
func launchedFrom(dir string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err == nil && filepath.Dir(strings.TrimSuffix(exe, " (deleted)")) == dir {
			pids = append(pids, pid)
		}
	}
	return pids
}

// loadHost starts a host on dir with the Describe cache in cache, as the CLI does (Load).
func loadHost(t *testing.T, dir, cache string) *Host {
	t.Helper()
	h := New(Config{Dirs: []string{dir}, CacheDir: cache, Workers: 2, Timeout: 10 * time.Second})
	t.Cleanup(func() { closeAndWait(t, h, dir) })
	if err := h.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h
}

// closeAndWait closes h and waits for its plugin processes in dir to be gone.
func closeAndWait(t *testing.T, h *Host, dir string) {
	t.Helper()
	h.Close()
	deadline := time.Now().Add(5 * time.Second)
	for len(launchedFrom(dir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := launchedFrom(dir); len(left) > 0 {
		t.Errorf("plugin processes left after Close: %v", left)
	}
}

func echoThroughEngine(t *testing.T, strategy string) error {
	t.Helper()
	part, ok := engine.LookupStrategy(strategy)
	if !ok {
		t.Fatalf("strategy %s not registered", strategy)
	}
	opts := engine.DefaultOptions()
	opts.Extra = contract.Options{"tag": {"x"}}
	doc := textDoc(40)
	var got []element.Element
	err := part.Partition(context.Background(), doc, &opts, func(e element.Element) error { got = append(got, e); return nil })
	if err == nil {
		checkEcho(t, got, doc)
	}
	return err
}

// A second registration of a plugin described before starts no process; the strategy still
// works (its process starts on first use); a replaced binary is described afresh.
func TestCachedRegistrationLaunchesNothing(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	_, sum := installCopy(t, dir, "cached", nil)

	first := loadHost(t, dir, cache)
	if n := len(launchedFrom(dir)); n != 1 {
		t.Fatalf("first registration: %d processes, want 1 (to describe the plugin)", n)
	}
	b, err := os.ReadFile(filepath.Join(cache, sum+".json"))
	if err != nil {
		t.Fatalf("no cache entry after the first registration: %v", err)
	}
	var e cacheEntry
	if err := json.Unmarshal(b, &e); err != nil || e.SHA256 != sum || e.Name != "misbehave" || len(e.Strategies) != 12 {
		t.Fatalf("cache entry %s: %v", b, err)
	}
	// The process that answered Describe serves the first call: no second launch.
	if err := echoThroughEngine(t, "echo"); err != nil {
		t.Fatal(err)
	}
	if n := len(launchedFrom(dir)); n != 1 {
		t.Errorf("first host after a call: %d processes, want the one that described", n)
	}
	closeAndWait(t, first, dir)

	second := loadHost(t, dir, cache)
	if pids := launchedFrom(dir); len(pids) != 0 || len(second.Processes()) != 0 {
		t.Fatalf("registration from the cache launched %v (host: %v)", pids, second.Processes())
	}
	if err := echoThroughEngine(t, "echo"); err != nil {
		t.Fatalf("cached strategy on first use: %v", err)
	}
	if n := len(second.Processes()); n != 1 {
		t.Errorf("%d processes after the first call, want 1", n)
	}
	closeAndWait(t, second, dir)

	// A new build of the plugin has a new checksum: its old entry is not used.
	_, sum2 := installCopy(t, dir, "cached", []byte{0})
	if sum2 == sum {
		t.Fatal("checksum did not change")
	}
	third := loadHost(t, dir, cache)
	if n := len(launchedFrom(dir)); n != 1 {
		t.Errorf("replaced binary: %d processes at registration, want 1 (described afresh)", n)
	}
	if _, err := os.Stat(filepath.Join(cache, sum2+".json")); err != nil {
		t.Errorf("no cache entry for the new binary: %v", err)
	}
	if err := echoThroughEngine(t, "echo"); err != nil {
		t.Fatal(err)
	}
	closeAndWait(t, third, dir)
}

// A corrupt entry, or one written for another checksum, is a miss: the plugin is described
// live and the entry rewritten.
func TestCorruptCacheEntryRewritten(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	_, sum := installCopy(t, dir, "corrupt", nil)
	other := strings.Repeat("ab", 32)
	foreign, _ := json.Marshal(cacheEntry{Format: cacheFormat, SHA256: other, Name: "x", Protocol: 1, Strategies: []string{"evil"}})
	for _, bad := range [][]byte{[]byte("{not json"), {}, foreign, []byte(`{"format":99,"sha256":"` + sum + `","protocol":1,"strategies":["evil"]}`)} {
		path := filepath.Join(cache, sum+".json")
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		h := loadHost(t, dir, cache)
		if n := len(h.Processes()); n != 1 {
			t.Errorf("entry %q: %d processes at registration, want 1", bad, n)
		}
		if _, ok := engine.LookupStrategy("evil"); ok {
			t.Fatalf("entry %q was believed", bad)
		}
		b, _ := os.ReadFile(path)
		var e cacheEntry
		if err := json.Unmarshal(b, &e); err != nil || e.SHA256 != sum || len(e.Strategies) != 12 {
			t.Errorf("entry %q not rewritten: %s", bad, b)
		}
		closeAndWait(t, h, dir)
	}
}

// Without a writable cache directory the host describes plugins live, as with no cache.
func TestUnwritableCacheFallsBack(t *testing.T) {
	dir := t.TempDir()
	installCopy(t, dir, "nocache", nil)
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		h := loadHost(t, dir, filepath.Join(notDir, "cache"))
		if n := len(h.Processes()); n != 1 {
			t.Errorf("%d processes at registration, want 1", n)
		}
		if err := echoThroughEngine(t, "echo"); err != nil {
			t.Fatal(err)
		}
		closeAndWait(t, h, dir)
	}
}

// A cached plugin that cannot start fails the request that first uses it with the error a
// live registration reports: the plugin's name, what failed and the plugin's own last words.
func TestCachedPluginFailsAtFirstUse(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	bin := filepath.Join(dir, Prefix+"broken")
	script := "#!/bin/sh\necho 'error while loading shared libraries: libtesseract.so.5' >&2\nexit 127\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := WriteChecksum(bin)
	if err != nil {
		t.Fatal(err)
	}
	// Without an entry, registration starts it and reports the failure.
	h := New(Config{Dirs: []string{dir}, CacheDir: cache, Workers: 1})
	live := h.Load(context.Background())
	h.Close()
	want := "plugin broken: start " + bin + ": the process ended before its handshake (exit status 127): error while loading shared libraries: libtesseract.so.5"
	if live == nil || !strings.Contains(live.Error(), want) || strings.Contains(live.Error(), "\n") {
		t.Fatalf("live registration error = %v\nwant one line with %q", live, want)
	}
	// As if it had worked when it was described (a library removed since).
	if err := (describeCache{dir: cache}).store(sum, &pluginv1.DescribeResponse{Name: "broken", Protocol: 1, Strategies: []string{"broken-strategy"}}); err != nil {
		t.Fatal(err)
	}
	h = loadHost(t, dir, cache)
	err = echoThroughEngine(t, "broken-strategy")
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Kind != engine.KindInternal || ee.Msg != live.Error() {
		t.Fatalf("first use error = %v\nwant the live registration's %v", err, live)
	}
	// The same on the next request: nothing is left half started.
	if err := echoThroughEngine(t, "broken-strategy"); err == nil || err.Error() != ee.Error() {
		t.Errorf("second use error = %v, want %v", err, ee)
	}
	closeAndWait(t, h, dir)

	// A cached plugin rewritten without a new checksum is refused before it runs.
	installCopy(t, dir, "tampered", nil)
	tampered := filepath.Join(dir, Prefix+"tampered")
	closeAndWait(t, loadHost(t, dir, cache), dir) // describes tampered and caches its answer
	data, _ := os.ReadFile(tampered)
	if err := os.WriteFile(tampered+".new", append(data, 1), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tampered+".new", tampered); err != nil {
		t.Fatal(err)
	}
	h = New(Config{Dirs: []string{dir}, CacheDir: cache, Workers: 1})
	defer h.Close()
	if err := h.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(launchedFrom(dir)); n != 0 {
		t.Fatalf("%d processes at registration", n)
	}
	err = echoThroughEngine(t, "echo")
	if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "plugin tampered: checksum mismatch") {
		t.Fatalf("tampered plugin: err = %v", err)
	}
	if n := len(launchedFrom(dir)); n != 0 {
		t.Fatalf("tampered plugin launched: %d processes", n)
	}
}

// A call after Describe is served by the process that answered, even in a pool of several.
func TestPoolPrefersWarmProcess(t *testing.T) {
	h := newHost(t, Config{Workers: 2})
	p, _ := h.Plugin("misbehave")
	if _, err := p.Describe(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		doc := textDoc(20)
		got, err := run(t, h, "echo", doc)
		if err != nil {
			t.Fatal(err)
		}
		checkEcho(t, got, doc)
	}
	if n := len(h.Processes()); n != 1 {
		t.Errorf("%d processes for sequential calls, want 1", n)
	}
}

// An entry keeps the plugin's own option keys, and is believed for the protocols this host
// speaks only.
func TestCacheEntryOptionsAndProtocols(t *testing.T) {
	c := describeCache{dir: t.TempDir()}
	sum := strings.Repeat("ab", 32)
	for _, proto := range []uint32{1, 2, 9} {
		d := &pluginv1.DescribeResponse{Name: "p", Protocol: proto, Strategies: []string{"s"},
			Options: []*pluginv1.OptionSpec{{Key: "shout_volume", Help: "how loud"}}}
		if err := c.store(sum, d); err != nil {
			t.Fatal(err)
		}
		got, ok := c.load(sum)
		if ok != (proto != 9) {
			t.Errorf("protocol %d: loaded %v", proto, ok)
		}
		if ok && !sameAnswer(got, d) {
			t.Errorf("protocol %d: %+v, stored %+v", proto, got, d)
		}
	}
}
