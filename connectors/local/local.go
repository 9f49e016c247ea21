// Package local is the local-folder connector: a source that lists the files under a directory
// (recursively by default, optionally filtered by glob patterns) and a destination that writes
// one <document>.json file of elements per document. It lets a workflow run with no cloud at all.
//
// Config keys: "path" (required; the directory, absolute or relative to the first root), and for
// sources "recursive" (default true) and "glob" (a pattern or a list of patterns matched against
// the file name and against the path relative to the directory with path.Match rules, e.g.
// "*.pdf" or "reports/*.docx").
//
// Confinement: a path must lie inside one of the operator's roots (connectors.Env.LocalRoots);
// with no root the connector is refused. Every file operation goes through os.Root, which resolves
// each path component beneath the root's directory descriptor, so no "..", absolute path or
// symbolic link (anywhere in the path) reaches outside. Files with more than one hard link are
// refused for reading: a hard link to a file outside the root (made by someone who can write into
// the root) is indistinguishable from the file itself once opened.
package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/element"
)

func init() {
	connectors.Register(connectors.Kind{
		Type:     "local",
		Validate: Validate,
		NewSource: func(config map[string]any, env connectors.Env) (connectors.Source, error) {
			return NewSource(config, env)
		},
		NewDestination: func(config map[string]any, env connectors.Env) (connectors.Destination, error) {
			return NewDestination(config, env)
		},
	})
}

// ErrNoRoot is returned when the operator configured no root: the connector is disabled.
var ErrNoRoot = errors.New("the local connector is disabled on this server: no local root is configured (--local-root or QUARRY_LOCAL_ROOT)")

// Validate checks a local connector config against the operator's roots.
func Validate(config map[string]any, env connectors.Env) error {
	var errs []schema.FieldError
	fail := func(key, typ, msg string, input any) {
		errs = append(errs, schema.FieldError{Type: typ, Loc: []string{"body", "config", key}, Msg: msg, Input: input})
	}
	switch p := config["path"].(type) {
	case nil:
		fail("path", "missing", "Field required", config)
	case string:
		if strings.TrimSpace(p) == "" {
			fail("path", "string_too_short", "String should have at least 1 character", p)
		} else if _, err := resolve(p, env.LocalRoots); err != nil {
			fail("path", "value_error", "Value error, "+err.Error(), p)
		}
	default:
		fail("path", "string_type", "Input should be a valid string", p)
	}
	if v, ok := config["recursive"]; ok && v != nil {
		if _, ok := schema.JSONBool(v, schema.Strict); !ok {
			fail("recursive", "bool_type", "Input should be a valid boolean", v)
		}
	}
	if v, ok := config["glob"]; ok && v != nil {
		pats, ok := globs(v)
		if !ok {
			fail("glob", "list_type", "Input should be a string or a list of strings", v)
		}
		for _, p := range pats {
			if _, err := path.Match(p, ""); err != nil {
				fail("glob", "value_error", fmt.Sprintf("Value error, bad pattern %q", p), p)
			}
		}
	}
	if len(errs) > 0 {
		return &schema.ValidationError{Errors: errs}
	}
	return nil
}

func globs(v any) ([]string, bool) {
	switch g := v.(type) {
	case nil:
		return nil, true
	case string:
		if g == "" {
			return nil, true
		}
		return []string{g}, true
	case []string:
		return g, true
	case []any:
		out := make([]string, 0, len(g))
		for _, x := range g {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// place is a configured directory: the root it lies in and its path relative to that root.
type place struct {
	root string // absolute, clean
	rel  string // slash-separated, "." for the root itself
}

func (p place) abs() string { return filepath.Join(p.root, filepath.FromSlash(p.rel)) }

// resolve places p (absolute, or relative to the first root) inside one of roots. The check is
// lexical; the confinement itself is os.Root's, on every operation.
func resolve(p string, roots []string) (place, error) {
	if len(roots) == 0 {
		return place{}, ErrNoRoot
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(roots[0], p)
	}
	p = filepath.Clean(p)
	for _, r := range roots {
		r = filepath.Clean(r)
		rel, err := filepath.Rel(r, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		return place{root: r, rel: filepath.ToSlash(rel)}, nil
	}
	return place{}, fmt.Errorf("path %s is outside the local roots this server allows (%s); give a folder inside one "+
		"(a relative path is taken under the first), or start the server with --local-root naming this folder", p, strings.Join(roots, ", "))
}

// open opens the configured directory as an os.Root beneath its root: a symbolic link on the
// way that leads outside fails here, not later.
func (p place) open() (*os.Root, error) {
	base, err := os.OpenRoot(p.root)
	if err != nil {
		return nil, fmt.Errorf("local: open root: %w", err)
	}
	defer base.Close()
	r, err := base.OpenRoot(p.rel)
	if err != nil {
		return nil, fmt.Errorf("local: open %s: %w", p.rel, err)
	}
	return r, nil
}

// Source lists the files under a directory.
type Source struct {
	dir       place
	recursive bool
	globs     []string
}

// NewSource builds a source from a config, confined to env's roots.
func NewSource(config map[string]any, env connectors.Env) (*Source, error) {
	if err := Validate(config, env); err != nil {
		return nil, err
	}
	dir, err := resolve(config["path"].(string), env.LocalRoots)
	if err != nil {
		return nil, err
	}
	s := &Source{dir: dir, recursive: true}
	if r, ok := schema.JSONBool(config["recursive"], schema.Strict); ok {
		s.recursive = r
	}
	s.globs, _ = globs(config["glob"])
	return s, nil
}

func (s *Source) match(rel string) bool {
	if len(s.globs) == 0 {
		return true
	}
	base := path.Base(rel)
	for _, g := range s.globs {
		if ok, _ := path.Match(g, base); ok {
			return true
		}
		if ok, _ := path.Match(g, rel); ok {
			return true
		}
	}
	return false
}

// List yields every regular, non-empty file in lexical order. Symbolic links are not followed
// and files with several hard links are skipped (Open refuses them).
func (s *Source) List(ctx context.Context, yield func(connectors.Document) error) error {
	r, err := s.dir.open()
	if err != nil {
		return err
	}
	defer r.Close()
	return fs.WalkDir(r.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("local: list %s: %w", rel, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." && !s.recursive {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !s.match(rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("local: stat %s: %w", rel, err)
		}
		if info.Size() == 0 || links(info) > 1 {
			return nil
		}
		return yield(s.document(rel, info))
	})
}

func epoch(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixNano())/1e9, 'f', -1, 64)
}

func (s *Source) document(rel string, info fs.FileInfo) connectors.Document {
	abs := filepath.Join(s.dir.abs(), filepath.FromSlash(rel))
	version := strconv.FormatInt(info.ModTime().UnixNano(), 10) + "-" + strconv.FormatInt(info.Size(), 10)
	return connectors.Document{
		ID:       rel,
		Filename: path.Base(rel),
		Version:  version,
		Size:     info.Size(),
		DataSource: map[string]any{
			"url":              "file://" + filepath.ToSlash(abs),
			"version":          version,
			"record_locator":   map[string]any{"path": abs},
			"date_created":     epoch(info.ModTime()),
			"date_modified":    epoch(info.ModTime()),
			"date_processed":   epoch(time.Now()),
			"permissions_data": []any{map[string]any{"mode": int(info.Mode().Perm())}},
			"filesize_bytes":   info.Size(),
		},
	}
}

// ErrHardLink is returned for a file with more than one hard link.
var ErrHardLink = errors.New("file has more than one hard link; refused, as it may be a link to a file outside the root")

// Open opens a listed file beneath the directory. Only regular files with a single link are
// opened; the checks run on the opened descriptor, so the file cannot be swapped in between.
func (s *Source) Open(ctx context.Context, doc connectors.Document) (io.ReadCloser, error) {
	name, err := relName(doc.ID)
	if err != nil {
		return nil, err
	}
	r, err := s.dir.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// Lstat first: a FIFO or a device would block or never end when opened.
	if info, err := r.Lstat(name); err != nil {
		return nil, fmt.Errorf("local: open %s: %w", doc.ID, err)
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("local: open %s: not a regular file", doc.ID)
	}
	f, err := r.Open(name)
	if err != nil {
		return nil, fmt.Errorf("local: open %s: %w", doc.ID, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("local: open %s: %w", doc.ID, err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("local: open %s: not a regular file", doc.ID)
	}
	if links(info) > 1 {
		f.Close()
		return nil, fmt.Errorf("local: open %s: %w", doc.ID, ErrHardLink)
	}
	return f, nil
}

// relName turns a document id into a name relative to the directory, refusing ids that name
// the directory itself. "..", "." and empty segments are dropped (connectors.RelPath), so an id
// names neither a place outside the directory (os.Root would refuse it anyway) nor another
// document's output.
func relName(id string) (string, error) {
	clean := connectors.RelPath(id)
	if clean == "" {
		return "", errors.New("local: empty document id")
	}
	return clean, nil
}

// Check verifies the directory exists and can be read.
func (s *Source) Check(ctx context.Context) error {
	r, err := s.dir.open()
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := r.Open(".")
	if err != nil {
		return fmt.Errorf("local: %w", err)
	}
	defer f.Close()
	if _, err := f.ReadDir(1); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("local: read %s: %w", s.dir.abs(), err)
	}
	return nil
}

// Destination writes one JSON file of elements per document.
type Destination struct{ dir place }

// NewDestination builds a destination from a config, confined to env's roots.
func NewDestination(config map[string]any, env connectors.Env) (*Destination, error) {
	if err := Validate(config, env); err != nil {
		return nil, err
	}
	dir, err := resolve(config["path"].(string), env.LocalRoots)
	if err != nil {
		return nil, err
	}
	return &Destination{dir: dir}, nil
}

// Modes of what a destination creates (the umask still applies). Partitioned documents are as
// confidential as their sources (a Confluence page may be restricted to a few users), so nothing
// is readable by other users of the machine. The group keeps read access: it is how an operator
// deliberately shares outputs with a downstream reader (a set-group-ID root owned by a group the
// reader belongs to, or default ACLs, which a 0600 mask would cancel).
const (
	outputFileMode os.FileMode = 0o640
	outputDirMode  os.FileMode = 0o750
)

// openDir opens the destination directory, creating it beneath its root when missing.
func (d *Destination) openDir() (*os.Root, error) {
	base, err := os.OpenRoot(d.dir.root)
	if err != nil {
		return nil, fmt.Errorf("local: open root: %w", err)
	}
	defer base.Close()
	if err := base.MkdirAll(d.dir.rel, outputDirMode); err != nil {
		return nil, fmt.Errorf("local: create %s: %w", d.dir.abs(), err)
	}
	r, err := base.OpenRoot(d.dir.rel)
	if err != nil {
		return nil, fmt.Errorf("local: open %s: %w", d.dir.abs(), err)
	}
	return r, nil
}

func tmpName(dir string) string {
	var b [8]byte
	rand.Read(b[:])
	return path.Join(dir, ".quarry-"+hex.EncodeToString(b[:])+".tmp")
}

// Write stores elements as <dir>/<document id>.json, keeping the document's sub-directories.
// The file is written under a new temporary name (O_EXCL: never through an existing link) and
// renamed, so readers never see half a file.
func (d *Destination) Write(ctx context.Context, doc connectors.Document, elements []element.Element) error {
	id := doc.ID
	if id == "" {
		id = doc.Filename
	}
	name, err := relName(id)
	if err != nil {
		return errors.New("local: document has no id")
	}
	target := name + ".json"
	r, err := d.openDir()
	if err != nil {
		return err
	}
	defer r.Close()
	if dir := path.Dir(target); dir != "." {
		if err := r.MkdirAll(dir, outputDirMode); err != nil {
			return fmt.Errorf("local: create directory: %w", err)
		}
	}
	tmp := tmpName(path.Dir(target))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, outputFileMode)
	if err != nil {
		return fmt.Errorf("local: write %s: %w", target, err)
	}
	defer r.Remove(tmp)
	if _, err := f.Write(element.MarshalList(elements)); err != nil {
		f.Close()
		return fmt.Errorf("local: write %s: %w", target, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("local: write %s: %w", target, err)
	}
	if err := r.Rename(tmp, target); err != nil {
		return fmt.Errorf("local: write %s: %w", target, err)
	}
	return nil
}

// Check verifies the directory can be created and written.
func (d *Destination) Check(ctx context.Context) error {
	r, err := d.openDir()
	if err != nil {
		return err
	}
	defer r.Close()
	tmp := tmpName(".")
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("local: %s is not writable: %w", d.dir.abs(), err)
	}
	f.Close()
	return r.Remove(tmp)
}

// Defaults returns config with the keys the API echoes back filled in: recursive true and glob
// null when unset.
func Defaults(config map[string]any) map[string]any {
	out := make(map[string]any, len(config)+2)
	for k, v := range config {
		out[k] = v
	}
	if v, ok := out["recursive"]; !ok || v == nil {
		out["recursive"] = true
	}
	if _, ok := out["glob"]; !ok {
		out["glob"] = nil
	}
	return out
}
