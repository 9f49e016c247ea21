package host

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/quarrydocs/quarry/plugins/internal/wire"
	pluginv1 "github.com/quarrydocs/quarry/plugins/proto/v1"
)

// EnvCacheDir overrides the directory of the Describe cache.
const EnvCacheDir = "QUARRY_PLUGIN_CACHE_DIR"

// cacheFormat is bumped when cacheEntry changes incompatibly; entries of another format are
// ignored (and rewritten).
const cacheFormat = 1

// describeCache keeps each plugin's Describe answer in <dir>/<sha256>.json, keyed by the
// SHA-256 of its binary. A binary's answer cannot change without the binary changing, so a
// host that finds an entry for the checksum a plugin is installed with registers the
// plugin's strategies without starting it: a CLI run then launches only the plugins it uses,
// and the binary is verified against that same checksum before its first launch. A zero
// describeCache (no directory) stores nothing.
type describeCache struct{ dir string }

// cacheEntry is the file format: the DescribeResponse fields, plus the checksum the entry was
// written for, so a file copied or renamed to another name is not believed.
type cacheEntry struct {
	Format       int      `json:"format"`
	SHA256       string   `json:"sha256"`
	Name         string   `json:"name"`
	Version      string   `json:"version"`
	Protocol     uint32   `json:"protocol"`
	Strategies   []string `json:"strategies"`
	MIMETypes    []string `json:"mime_types,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
	MaxWorkers   uint32   `json:"max_workers,omitempty"`
	// Options are the plugin's own option keys (protocol 2).
	Options []cacheOption `json:"options,omitempty"`
}

type cacheOption struct {
	Key  string `json:"key"`
	Help string `json:"help,omitempty"`
	Kind string `json:"kind,omitempty"`
}

// DefaultCacheDir is where Describe answers are cached unless Config.CacheDir says otherwise:
// $QUARRY_PLUGIN_CACHE_DIR, else quarry/plugins in the user's cache directory ("" when there
// is none).
func DefaultCacheDir() string {
	if d := os.Getenv(EnvCacheDir); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "quarry", "plugins")
}

func (c describeCache) path(sum string) (string, bool) {
	// The key becomes a file name: only a well-formed digest may.
	if c.dir == "" || len(sum) != 64 {
		return "", false
	}
	if _, err := hex.DecodeString(sum); err != nil {
		return "", false
	}
	return filepath.Join(c.dir, sum+".json"), true
}

// load returns the cached answer for a binary with checksum sum. A missing, unreadable,
// corrupt or foreign entry is a miss.
func (c describeCache) load(sum string) (*pluginv1.DescribeResponse, bool) {
	path, ok := c.path(sum)
	if !ok {
		return nil, false
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 1<<20 {
		return nil, false
	}
	var e cacheEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, false
	}
	if e.Format != cacheFormat || e.SHA256 != sum || !wire.Speaks(int(e.Protocol)) {
		return nil, false
	}
	d := &pluginv1.DescribeResponse{
		Name: e.Name, Version: e.Version, Protocol: e.Protocol, Strategies: e.Strategies,
		MimeTypes: e.MIMETypes, Capabilities: e.Capabilities, MaxWorkers: e.MaxWorkers,
	}
	for _, o := range e.Options {
		d.Options = append(d.Options, &pluginv1.OptionSpec{Key: o.Key, Help: o.Help, Kind: o.Kind})
	}
	return d, true
}

// store writes the answer of the binary with checksum sum. The file is written beside and
// renamed, so a concurrent host reads the old entry or the new one, never half of one.
func (c describeCache) store(sum string, d *pluginv1.DescribeResponse) error {
	path, ok := c.path(sum)
	if !ok {
		return nil
	}
	e := cacheEntry{
		Format: cacheFormat, SHA256: sum, Name: d.Name, Version: d.Version, Protocol: d.Protocol,
		Strategies: d.Strategies, MIMETypes: d.MimeTypes, Capabilities: d.Capabilities, MaxWorkers: d.MaxWorkers,
	}
	for _, o := range d.Options {
		e.Options = append(e.Options, cacheOption{Key: o.Key, Help: o.Help, Kind: o.Kind})
	}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("plugin cache: %w", err)
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("plugin cache: %w", err)
	}
	tmp, err := os.CreateTemp(c.dir, sum+".*.tmp")
	if err != nil {
		return fmt.Errorf("plugin cache: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("plugin cache: write %s: %w", tmp.Name(), err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("plugin cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("plugin cache: %w", err)
	}
	return nil
}

// sameAnswer reports whether two Describe answers register the same things.
func sameAnswer(a, b *pluginv1.DescribeResponse) bool {
	return a.Name == b.Name && a.Version == b.Version && a.Protocol == b.Protocol &&
		slices.Equal(a.Strategies, b.Strategies) && slices.Equal(a.MimeTypes, b.MimeTypes) &&
		slices.Equal(a.Capabilities, b.Capabilities) && a.MaxWorkers == b.MaxWorkers &&
		slices.EqualFunc(a.Options, b.Options, func(x, y *pluginv1.OptionSpec) bool { return x.Key == y.Key && x.Help == y.Help && x.Kind == y.Kind })
}
