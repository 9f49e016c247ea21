package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/formats/paged"
	"github.com/quarrydocs/quarry/plugins/host"
	"github.com/quarrydocs/quarry/plugins/sdk"
	"github.com/quarrydocs/quarry/plugins/sdk/engineplugin"
	_ "github.com/quarrydocs/quarry/strategies/all"
	"github.com/quarrydocs/quarry/strategies/ocr/auto"
)

// builtinPlugins are the in-process strategies run out of process by default, by re-executing
// this binary as "quarry plugin serve <name>".
var builtinPlugins = []string{"fast"}

// defaultPluginMemory is the memory limit of a plugin process unless
// QUARRY_PLUGIN_MEMORY_LIMIT_MB says otherwise.
const defaultPluginMemory = 4 << 30

// defaultFormatMemory is the memory limit of a process partitioning the built-in formats unless
// QUARRY_FORMAT_MEMORY_LIMIT_MB says otherwise: the budget a single non-PDF document gets.
const defaultFormatMemory = 768 << 20

// envFormatMemory overrides defaultFormatMemory (MiB).
const envFormatMemory = host.EnvFormatMemory

func formatMemory() uint64 { return envMemory(envFormatMemory, defaultFormatMemory) }

// defaultLayoutMemory is the memory limit of a process running hi_res's layout pass (the PDF
// parse, layout and tables of born-digital pages) unless QUARRY_LAYOUT_MEMORY_LIMIT_MB says
// otherwise: the budget one PDF gets (the 400-page bench file peaks near 80 MB; a page of
// three million glyphs needs over 1 GB).
const defaultLayoutMemory = 1 << 30

// envLayoutMemory overrides defaultLayoutMemory (MiB).
const envLayoutMemory = "QUARRY_LAYOUT_MEMORY_LIMIT_MB"

func envMemory(name string, def uint64) uint64 {
	if n, err := strconv.ParseUint(os.Getenv(name), 10, 64); err == nil && n > 0 {
		return n << 20
	}
	return def
}

// startPlugins sets up the plugin host once, for the commands that partition: the plugins found
// in the plugin directories (QUARRY_PLUGIN_DIR, else beside this binary and ~/.quarry/plugins)
// register their strategies, and with isolate the built-in strategies move behind plugin
// processes too (the service and workers isolate them; a one-shot CLI run keeps them in
// process, where a crash ends only itself, and saves the re-exec). QUARRY_PLUGINS=off keeps
// everything in process.
func startPlugins(isolate bool) {
	pluginOnce.Do(func() {
		switch v := os.Getenv(envPlugins); v {
		case "off":
			return
		case "", "on":
		default:
			fmt.Fprintf(os.Stderr, "quarry: %s=%q not understood (say off or on); plugins stay on\n", envPlugins, v)
		}
		h, err := setupPlugins(nil, isolate)
		if err != nil {
			fmt.Fprintln(os.Stderr, "quarry: plugins:", err)
		}
		pluginHost = h
	})
}

var pluginOnce sync.Once

// envPlugins=off runs everything in this process: no plugin host, so the built-in strategies
// and formats are not isolated behind plugin processes and no plugin on disk is loaded. It is
// for debugging and profiling one process, and for this package's tests, which run the commands
// in process (TestMain sets it; the test binary cannot serve as its own plugin).
const envPlugins = "QUARRY_PLUGINS"

// pluginHost is the host set up by startPlugins; main closes it on the way out so plugin
// processes end with the command rather than by the parent-death signal.
var pluginHost *host.Host

// setupPlugins creates the host for dirs (nil: configured or default directories), wraps the
// built-ins when isolate is set and registers discovered plugins. Errors are reported but do not
// stop the others.
func setupPlugins(dirs []string, isolate bool) (*host.Host, error) {
	cfg := host.ConfigFromEnv()
	if dirs != nil {
		cfg.Dirs = dirs
	}
	if len(cfg.Dirs) == 0 {
		cfg.Dirs = host.DefaultDirs()
	}
	if cfg.MemoryLimit == 0 {
		cfg.MemoryLimit = defaultPluginMemory
	}
	h := host.New(cfg)
	var errs []error
	if exe, err := os.Executable(); err == nil && isolate {
		errs = append(errs, h.WrapBuiltins(exe, []string{"plugin", "serve"}, builtinPlugins...))
		// The formats too: one memory budget per document, enforced by the kernel, for every
		// format at once (see plugins/host.WrapFormats).
		errs = append(errs, h.WrapFormats(exe, []string{"plugin", "serve"}, formatMemory()))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs = append(errs, h.Load(ctx))
	// hi_res's layout pass parses the PDF: with isolate it runs in a plugin process under a
	// per-document budget, as the formats do.
	var layout contract.Partitioner
	if exe, err := os.Executable(); err == nil && isolate {
		l, err := h.WrapInternal(auto.LayoutName, exe, []string{"plugin", "serve"}, envMemory(envLayoutMemory, defaultLayoutMemory), envLayoutMemory, engine.FromContract(auto.LayoutPass{}))
		errs = append(errs, err)
		if err == nil {
			layout = engine.Contract(l)
		}
	}
	// auto on a PDF mixing text and scanned pages: fast for the first, OCR for the others.
	auto.InstallWith(layout)
	return h, errors.Join(errs...)
}

const pluginUsage = `usage:
  quarry plugin list [--plugin-dir DIR]        list strategies, where they run and the option
                                               keys each reads (form fields of the API, flags
                                               of quarry partition)
  quarry plugin install [--plugin-dir DIR] BIN install a plugin binary and its checksum
  quarry plugin checksum BIN…                  write BIN.sha256 beside each plugin binary
  quarry plugin serve STRATEGY                 serve a built-in strategy as a plugin (used by
                                               the host; not run by hand)

Plugins are executables named quarry-plugin-<name> with a quarry-plugin-<name>.sha256 file,
in QUARRY_PLUGIN_DIR (a path list), else beside quarry and in ~/.quarry/plugins.
Environment: QUARRY_PLUGIN_WORKERS (processes per plugin, default: cores),
QUARRY_PLUGIN_TIMEOUT (per call, default 10m), QUARRY_PLUGIN_MEMORY_LIMIT_MB (default 4096),
QUARRY_PLUGIN_MAX_CALLS (calls before a process is replaced, default 1000),
QUARRY_PLUGIN_CACHE_DIR (what each plugin binary serves, keyed by its checksum, so that a
plugin starts only when used; default: the user cache directory), QUARRY_PLUGINS=off (no
plugins: built-in strategies and formats run inside the quarry process, for debugging).
`

// runPlugin is the "quarry plugin" command.
func runPlugin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, pluginUsage)
		if len(args) == 0 {
			return usageError("plugin: say what to do: list, install, checksum or serve (quarry plugin --help)")
		}
		return nil
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "serve":
		return pluginServe(rest)
	case "checksum":
		if len(rest) == 0 {
			return usageError("plugin checksum: give the plugin binaries to checksum, e.g. quarry plugin checksum bin/quarry-plugin-ocr")
		}
		for _, f := range rest {
			sum, err := host.WriteChecksum(f)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s  %s\n", sum, f)
		}
		return nil
	case "install":
		return pluginInstall(rest, stdout, stderr)
	case "list":
		return pluginList(ctx, rest, stdout, stderr)
	}
	if s := suggest(sub, []string{"list", "install", "checksum", "serve"}); s != "" {
		return usageError("plugin: unknown subcommand %q; did you mean %s? (quarry plugin --help)", sub, s)
	}
	return usageError("plugin: unknown subcommand %q; choose list, install, checksum or serve (quarry plugin --help)", sub)
}

func pluginServe(args []string) error {
	if len(args) != 1 {
		return usageError("plugin serve: give one strategy name, e.g. quarry plugin serve fast")
	}
	if args[0] == host.FormatsStrategy {
		sdk.ServePlugin(sdk.Plugin{Name: host.FormatsStrategy, Strategies: []sdk.Strategy{engineplugin.Strategy(host.FormatsStrategy, engine.Formats(), host.PartitionFormat)}})
		return nil
	}
	if args[0] == auto.LayoutName {
		sdk.ServePlugin(sdk.Plugin{Name: auto.LayoutName, Strategies: []sdk.Strategy{{Name: auto.LayoutName, MIMETypes: []string{paged.MIMEPDF}, Partition: auto.LayoutPass{}.Partition}}})
		return nil
	}
	p, ok := engine.LookupStrategy(args[0])
	if !ok {
		return usageError("plugin serve: no built-in strategy %q", args[0])
	}
	sdk.ServePlugin(sdk.Plugin{Name: args[0], Strategies: []sdk.Strategy{engineplugin.Strategy(args[0], nil, p.Partition)}})
	return nil
}

func pluginDirFlag(fs *flag.FlagSet) *string {
	return fs.String("plugin-dir", "", "plugin directory (default: $QUARRY_PLUGIN_DIR, else beside quarry and ~/.quarry/plugins)")
}

func pluginInstall(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plugin install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dirFlag := pluginDirFlag(fs)
	if err := fs.Parse(args); err != nil {
		return usageError("%v", err)
	}
	if fs.NArg() != 1 {
		return usageError("plugin install: give one plugin binary, e.g. quarry plugin install ./quarry-plugin-ocr")
	}
	dir := *dirFlag
	if dir == "" {
		if env := os.Getenv(host.EnvPluginDir); env != "" {
			dir = filepath.SplitList(env)[0]
		} else if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".quarry", "plugins")
		}
	}
	src := fs.Arg(0)
	name := filepath.Base(src)
	if !strings.HasPrefix(name, host.Prefix) {
		name = host.Prefix + name
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("plugin install: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("plugin install: %w", err)
	}
	dst := filepath.Join(dir, name)
	// Write beside and rename, so a running host never executes a half-written file.
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		return fmt.Errorf("plugin install: %w", err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("plugin install: %w", err)
	}
	sum, err := host.WriteChecksum(dst)
	if err != nil {
		return fmt.Errorf("plugin install: %w", err)
	}
	fmt.Fprintf(stdout, "installed %s (sha256 %s)\n", dst, sum)
	return nil
}

// printOption writes one key a strategy reads beyond the standard ones, as plugin list shows
// it: a request gives it as a form field (the API), a --KEY flag or --param KEY=VALUE (the CLI).
func printOption(w io.Writer, key, kind, help string) {
	if kind == "" {
		kind = string(contract.String)
	}
	fmt.Fprintf(w, "  %-12s   option %s (%s): %s\n", "", key, kind, help)
}

func pluginList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plugin list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dirFlag := pluginDirFlag(fs)
	if err := fs.Parse(args); err != nil {
		return usageError("%v", err)
	}
	cfg := host.ConfigFromEnv()
	if *dirFlag != "" {
		cfg.Dirs = filepath.SplitList(*dirFlag)
	} else if len(cfg.Dirs) == 0 {
		cfg.Dirs = host.DefaultDirs()
	}
	h := host.New(cfg)
	defer h.Close()
	specs, derr := h.Discover()
	fmt.Fprintln(stdout, "built in:")
	for _, n := range engine.Strategies() {
		p, _ := engine.LookupStrategy(n)
		where := "in process"
		if _, ok := p.(*host.Builtin); ok || slices.Contains(builtinPlugins, n) {
			where = "plugin process (quarry plugin serve " + n + ")"
		} else if _, ok := p.(*host.Remote); ok {
			continue
		}
		fmt.Fprintf(stdout, "  %-12s %s\n", n, where)
		if st, ok := contract.LookupStrategy(n); ok {
			for _, o := range st.Options {
				printOption(stdout, o.Key, string(o.Kind), o.Help)
			}
		}
	}
	fmt.Fprintf(stdout, "plugins in %s:\n", strings.Join(cfg.Dirs, string(os.PathListSeparator)))
	for _, s := range specs {
		p, err := h.Add(s)
		if err != nil {
			return err
		}
		d, err := p.Describe(ctx)
		if err != nil {
			fmt.Fprintf(stdout, "  %-12s %s: %v\n", s.Name, s.Path, err)
			continue
		}
		types := strings.Join(d.MimeTypes, ",")
		if types == "" {
			types = "PDFs and images"
		}
		fmt.Fprintf(stdout, "  %-12s %s version %s, protocol %d, strategies %s, types %s\n", s.Name, s.Path, d.Version,
			d.Protocol, strings.Join(d.Strategies, ","), types)
		for _, o := range d.Options {
			printOption(stdout, o.Key, o.Kind, o.Help)
		}
	}
	if derr != nil {
		fmt.Fprintln(stderr, "quarry: plugins:", derr)
	}
	return nil
}
