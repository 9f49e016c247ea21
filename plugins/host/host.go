// Package host runs strategy plugins out of process with hashicorp/go-plugin and wraps each in
// an engine.Partitioner, so the engine cannot tell a plugin from an in-process strategy.
//
// A plugin is an executable named quarry-plugin-<name> in a plugin directory, with its SHA-256
// in quarry-plugin-<name>.sha256 beside it; the checksum is verified before every launch. The
// host talks to it over go-plugin's net/rpc transport (protocol 3; gRPC for plugins of protocols
// 1 and 2) with mutual TLS (go-plugin's AutoMTLS), keeps a warm pool of
// processes per plugin sized to the cores, gives every call a deadline and every process an
// address-space limit, and when a process crashes, hangs or blows its memory it is killed, the
// call gets an error naming the plugin, and the next call starts a fresh process. On Linux a
// parent-death signal kills plugins when the host dies, so none outlives it.
//
// The pure-Go built-in strategies are served the same way by re-executing the host's own
// binary (quarry plugin serve <strategy>); Options.InProcess runs them in process instead.
package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/engine"
	pluginv1 "github.com/quarrydocs/quarry/plugins/proto/v1"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvPluginDir   = "QUARRY_PLUGIN_DIR"
	EnvWorkers     = "QUARRY_PLUGIN_WORKERS"
	EnvTimeout     = "QUARRY_PLUGIN_TIMEOUT"
	EnvMemoryLimit = "QUARRY_PLUGIN_MEMORY_LIMIT_MB"
	EnvMaxCalls    = "QUARRY_PLUGIN_MAX_CALLS"
	// EnvUnconfined=true starts plugins without Landlock (Config.Unconfined).
	EnvUnconfined = "QUARRY_PLUGIN_UNCONFINED"
	// EnvReadDirs lists more directories plugins may read (Config.ReadDirs), separated like PATH.
	EnvReadDirs = "QUARRY_PLUGIN_READ_DIRS"
)

// DefaultMaxCalls is how many calls a plugin process serves before it is replaced.
const DefaultMaxCalls = 1000

// Config holds the host's defaults; a Spec may override them per plugin.
type Config struct {
	// Dirs are the plugin directories searched by Discover.
	Dirs []string
	// Workers is the number of processes per plugin (default: the number of cores).
	Workers int
	// Timeout is the deadline of one partition call (default 10 minutes).
	Timeout time.Duration
	// MemoryLimit is the memory limit of a plugin process in bytes (0 = none): RLIMIT_DATA,
	// with RLIMIT_AS at MemoryLimit+AddressSpaceHeadroom as a backstop.
	MemoryLimit uint64
	// MaxCalls retires a process after that many calls, once it is idle, and the next call
	// starts a fresh one (default DefaultMaxCalls; negative: never). Native code in a plugin
	// (Tesseract, leptonica) can leak a little per page; a bounded life keeps a long-running
	// service's plugins from growing into their memory limit in the middle of a request.
	MaxCalls int
	// Logger receives lifecycle events; nil discards them.
	Logger *slog.Logger
	// CacheDir holds the plugins' cached Describe answers (default: DefaultCacheDir()), so
	// registering a plugin whose binary was described before starts no process. NoCache
	// turns the cache off: every registration describes the plugin live.
	CacheDir string
	NoCache  bool
	// TempDir is where each plugin process gets its own temporary directory (its TMPDIR),
	// removed when the process stops however it stops. Default: os.TempDir().
	TempDir string
	// Unconfined starts plugin processes with the host's whole file-system access. By
	// default, where the kernel has Landlock, each plugin process — and the converters it
	// runs (LibreOffice, pandoc, pdftoppm, Tesseract) — may read only the system's directories
	// (childproc.SystemRead), its own binary and ReadDirs, and write only its own temporary
	// directory: a plugin taken over by a hostile document cannot read the data directory
	// (secret key, database, API key files) nor other requests' uploads.
	Unconfined bool
	// ReadDirs are more files or directories confined plugins may read and execute: a
	// third-party plugin's data files, LibreOffice installed under /opt.
	ReadDirs []string
}

// ConfigFromEnv returns a Config from QUARRY_PLUGIN_* variables.
func ConfigFromEnv() Config {
	c := Config{}
	if d := os.Getenv(EnvPluginDir); d != "" {
		c.Dirs = splitList(d)
	}
	if n, err := strconv.Atoi(os.Getenv(EnvWorkers)); err == nil && n > 0 {
		c.Workers = n
	}
	if d, err := time.ParseDuration(os.Getenv(EnvTimeout)); err == nil && d > 0 {
		c.Timeout = d
	}
	if n, err := strconv.ParseUint(os.Getenv(EnvMemoryLimit), 10, 64); err == nil {
		c.MemoryLimit = n << 20
	}
	if n, err := strconv.Atoi(os.Getenv(EnvMaxCalls)); err == nil && n != 0 {
		c.MaxCalls = n
	}
	c.Unconfined, _ = strconv.ParseBool(os.Getenv(EnvUnconfined))
	c.ReadDirs = splitList(os.Getenv(EnvReadDirs))
	return c
}

func splitList(s string) []string {
	var out []string
	for _, p := range splitOn(s, os.PathListSeparator) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func splitOn(s string, sep rune) []string {
	var out []string
	start := 0
	for i, r := range s {
		if r == sep {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// Spec says how to launch one plugin.
type Spec struct {
	// Name identifies the plugin in errors and logs.
	Name string
	// Path is the executable; Args are its arguments.
	Path string
	Args []string
	// SHA256 is the expected hex checksum of Path; empty skips the check (only for the host's
	// own binary).
	SHA256 string
	// Env is added to the plugin's environment (e.g. OMP_THREAD_LIMIT=1 for Tesseract, which
	// must be set before the process starts).
	Env []string
	// Strategies, when known in advance, saves a launch at registration; otherwise the host
	// asks the plugin (Describe).
	Strategies []string
	// Workers, Timeout and MemoryLimit override the host's Config when non-zero.
	Workers     int
	Timeout     time.Duration
	MemoryLimit uint64
	// checked is the executable's identity when Discover verified its checksum.
	checked fileStamp
}

// Host owns the plugin processes.
type Host struct {
	cfg Config
	log *slog.Logger

	cache describeCache

	mu      sync.Mutex
	plugins map[string]*Plugin
	closed  bool

	// sweeper removes the plugins' temporary directories should the host die without
	// closing (SIGKILL, the OOM killer): the plugins die with it, their files would not.
	sweepMu sync.Mutex
	sweeper *sweeper

	// confineLog says once whether plugin processes are confined.
	confineLog sync.Once
}

// sweepOnDeath hands dir to the sweeper, started on first use. Without one (no /bin/sh) the
// directories are still removed whenever the host stops normally.
func (h *Host) sweepOnDeath(dir string) {
	h.sweepMu.Lock()
	defer h.sweepMu.Unlock()
	if h.sweeper == nil {
		sw, err := startSweeper()
		if err != nil {
			h.log.Warn("plugin temporary directories will not be removed if this process is killed", "err", err)
			sw = &sweeper{}
		}
		h.sweeper = sw
	}
	h.sweeper.add(dir)
}

// New returns a host with cfg's defaults filled in.
func New(cfg Config) *Host {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Minute
	}
	if cfg.MaxCalls == 0 {
		cfg.MaxCalls = DefaultMaxCalls
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.CacheDir == "" && !cfg.NoCache {
		cfg.CacheDir = DefaultCacheDir()
	}
	h := &Host{cfg: cfg, log: log, plugins: map[string]*Plugin{}}
	if !cfg.NoCache {
		h.cache = describeCache{dir: cfg.CacheDir}
	}
	return h
}

// Plugin is one plugin with its pool of processes.
type Plugin struct {
	spec Spec
	host *Host
	pool *pool
	// local is the in-process strategy a built-in plugin re-executes.
	local engine.Partitioner
	// internal marks a plugin the host's own code calls (the built-in formats, hi_res's layout
	// pass): its one strategy name is not a strategy users may ask for.
	internal bool
	// budgetEnv, when set, makes the plugin's memory limit a per-document budget: running out
	// of it is the document's doing, answered with a 422 naming this variable, which raises it.
	budgetEnv string

	descMu sync.Mutex
	// desc is the answer of a running process of this plugin, stored the one in the cache
	// for its checksum.
	desc, stored *pluginv1.DescribeResponse
}

// Name is the plugin's name.
func (p *Plugin) Name() string { return p.spec.Name }

// Add makes a plugin available; no process starts until it is needed.
func (h *Host) Add(spec Spec) (*Plugin, error) {
	if spec.Name == "" || spec.Path == "" {
		return nil, errors.New("plugin host: spec needs a name and a path")
	}
	if spec.Workers <= 0 {
		spec.Workers = h.cfg.Workers
	}
	if spec.Timeout <= 0 {
		spec.Timeout = h.cfg.Timeout
	}
	if spec.MemoryLimit == 0 {
		spec.MemoryLimit = h.cfg.MemoryLimit
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errors.New("plugin host: closed")
	}
	if _, dup := h.plugins[spec.Name]; dup {
		return nil, fmt.Errorf("plugin host: plugin %q added twice", spec.Name)
	}
	p := &Plugin{spec: spec, host: h}
	p.pool = newPool(p, spec.Workers)
	h.plugins[spec.Name] = p
	return p, nil
}

// Plugin returns an added plugin by name.
func (h *Host) Plugin(name string) (*Plugin, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.plugins[name]
	return p, ok
}

// Describe returns what the plugin serves, launching a process if none has run yet. It always
// asks the plugin itself (plugin list uses it to check that a plugin starts); registration
// uses the cached answer when there is one.
func (p *Plugin) Describe(ctx context.Context) (*pluginv1.DescribeResponse, error) {
	if d := p.live(); d != nil {
		return d, nil
	}
	pr, err := p.pool.acquire(ctx)
	if err != nil {
		return nil, err
	}
	d, err := pr.client.Describe(ctx)
	p.pool.release(pr, err != nil)
	if err != nil {
		return nil, p.errorf("describe: %v", err)
	}
	p.learn(d)
	return d, nil
}

func (p *Plugin) live() *pluginv1.DescribeResponse {
	p.descMu.Lock()
	defer p.descMu.Unlock()
	return p.desc
}

// learn records the answer of a process that passed the checksum check, and caches it for
// the checksum unless the cache already holds it.
func (p *Plugin) learn(d *pluginv1.DescribeResponse) {
	p.descMu.Lock()
	p.desc = d
	stored := p.stored
	p.descMu.Unlock()
	if p.spec.SHA256 == "" || (stored != nil && sameAnswer(stored, d)) {
		return
	}
	if stored != nil {
		// Only a plugin whose answer depends on its environment gets here; the strategies
		// registered for this run stay as they are.
		p.host.log.Warn("plugin answer differs from its cached one", "plugin", p.spec.Name,
			"cached", stored.Strategies, "now", d.Strategies)
	}
	if err := p.host.cache.store(p.spec.SHA256, d); err != nil {
		// Not fatal: the next host describes the plugin live, as without a cache.
		p.host.log.Debug("plugin describe not cached", "plugin", p.spec.Name, "err", err)
		return
	}
	p.descMu.Lock()
	p.stored = d
	p.descMu.Unlock()
}

// Strategies are the strategy names the plugin serves: from the Spec, a running process, the
// cache entry for the plugin's checksum, or else a process started to ask.
func (p *Plugin) Strategies(ctx context.Context) ([]string, error) {
	if len(p.spec.Strategies) > 0 {
		return p.spec.Strategies, nil
	}
	if d := p.live(); d != nil {
		return d.Strategies, nil
	}
	if d, ok := p.host.cache.load(p.spec.SHA256); ok {
		p.descMu.Lock()
		p.stored = d
		p.descMu.Unlock()
		p.host.log.Debug("plugin registered from cache", "plugin", p.spec.Name, "strategies", d.Strategies)
		return d.Strategies, nil
	}
	d, err := p.Describe(ctx)
	if err != nil {
		return nil, err
	}
	return d.Strategies, nil
}

// Register registers every strategy of every added plugin with the engine, replacing built-in
// registrations of the same name.
func (h *Host) Register(ctx context.Context) error {
	h.mu.Lock()
	ps := make([]*Plugin, 0, len(h.plugins))
	for _, p := range h.plugins {
		ps = append(ps, p)
	}
	h.mu.Unlock()
	var errs []error
	for _, p := range ps {
		if p.internal {
			continue
		}
		names, err := p.Strategies(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		keys := p.declaredKeys()
		for _, n := range names {
			if p.local != nil {
				engine.ReplaceStrategy(n, &Builtin{Local: p.local, Remote: p.Partitioner(n)})
				continue
			}
			engine.ReplaceStrategy(n, p.Partitioner(n))
			// The plugin's own keys join the API's schema (the OpenAPI document, the CLI's
			// flags and help) and are checked by their kind, as a built-in's are.
			contract.DeclareStrategyOptions(n, keys)
		}
	}
	return errors.Join(errs...)
}

// declaredKeys are the option keys the plugin declared in its Describe answer (a running
// process's or the cached one), as contract declarations. A kind the host does not know reads
// as a string.
func (p *Plugin) declaredKeys() []contract.KeySpec {
	p.descMu.Lock()
	d := p.desc
	if d == nil {
		d = p.stored
	}
	p.descMu.Unlock()
	if d == nil {
		return nil
	}
	var out []contract.KeySpec
	for _, o := range d.Options {
		kind := contract.ValueKind(o.Kind)
		switch kind {
		case contract.Bool, contract.Int, contract.Float, contract.List:
		default:
			kind = contract.String
		}
		help := fmt.Sprintf("an option of plugin %s", p.spec.Name)
		if o.Help != "" {
			help = fmt.Sprintf("%s (plugin %s)", o.Help, p.spec.Name)
		}
		out = append(out, contract.KeySpec{Key: o.Key, Kind: kind, Help: help, Since: int(d.Protocol)})
	}
	return out
}

// Processes returns the process IDs currently running for all plugins (for tests and
// diagnostics).
func (h *Host) Processes() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var pids []int
	for _, p := range h.plugins {
		pids = append(pids, p.pool.pids()...)
	}
	return pids
}

// Close stops every plugin process and waits for them to exit.
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	ps := h.plugins
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() { defer wg.Done(); p.pool.close() }()
	}
	wg.Wait()
	h.sweepMu.Lock()
	if h.sweeper != nil {
		h.sweeper.stop() // the pools have removed their directories
		h.sweeper = nil
	}
	h.sweepMu.Unlock()
}

func (p *Plugin) errorf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &engine.Error{Kind: engine.KindInternal, Msg: fmt.Sprintf("plugin %s: %s", p.spec.Name, msg), Err: errors.New(msg)}
}
