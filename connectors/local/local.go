// Package local is the local-folder connector: a source that lists the files under a directory
// (recursively by default, optionally filtered by glob patterns) and a destination that writes
// one <document>.json file of elements per document. It lets a workflow run with no cloud at all.
//
// Config keys: "path" (required; the directory), and for sources "recursive" (default true) and
// "glob" (a pattern or a list of patterns matched against the file name and against the path
// relative to the directory with path.Match rules, e.g. "*.pdf" or "reports/*.docx"). When the QUARRY_LOCAL_ROOT environment variable is set, paths must lie
// inside it, so API users cannot read or write anywhere else on the server.
package local

import (
	"context"
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

	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

func init() {
	connectors.Register(connectors.Kind{
		Type:     "local",
		Validate: Validate,
		NewSource: func(config map[string]any) (connectors.Source, error) {
			return NewSource(config)
		},
		NewDestination: func(config map[string]any) (connectors.Destination, error) {
			return NewDestination(config)
		},
	})
}

// Validate checks a local connector config.
func Validate(config map[string]any) error {
	var errs []engine.FieldError
	fail := func(key, typ, msg string, input any) {
		errs = append(errs, engine.FieldError{Type: typ, Loc: []string{"body", "config", key}, Msg: msg, Input: input})
	}
	switch p := config["path"].(type) {
	case nil:
		fail("path", "missing", "Field required", config)
	case string:
		if strings.TrimSpace(p) == "" {
			fail("path", "string_too_short", "String should have at least 1 character", p)
		} else if _, err := resolve(p); err != nil {
			fail("path", "value_error", "Value error, "+err.Error(), p)
		}
	default:
		fail("path", "string_type", "Input should be a valid string", p)
	}
	if v, ok := config["recursive"]; ok && v != nil {
		if _, ok := v.(bool); !ok {
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
		return &engine.ValidationError{Errors: errs}
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

// resolve makes p absolute and, when QUARRY_LOCAL_ROOT is set, checks that it lies inside it.
func resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("local: %w", err)
	}
	if root := os.Getenv("QUARRY_LOCAL_ROOT"); root != "" {
		rootAbs, err := filepath.Abs(root)
		if err != nil {
			return "", fmt.Errorf("local: QUARRY_LOCAL_ROOT: %w", err)
		}
		rel, err := filepath.Rel(rootAbs, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("path %s is outside the allowed root %s (QUARRY_LOCAL_ROOT)", abs, rootAbs)
		}
	}
	return abs, nil
}

// Source lists the files under a directory.
type Source struct {
	root      string
	recursive bool
	globs     []string
}

// NewSource builds a source from a validated config.
func NewSource(config map[string]any) (*Source, error) {
	if err := Validate(config); err != nil {
		return nil, err
	}
	root, err := resolve(config["path"].(string))
	if err != nil {
		return nil, err
	}
	s := &Source{root: root, recursive: true}
	if r, ok := config["recursive"].(bool); ok {
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

// List yields every regular, non-empty file in lexical order. Symbolic links are not followed,
// so a link cannot lead the source outside its directory.
func (s *Source) List(ctx context.Context, yield func(connectors.Document) error) error {
	return filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("local: list %s: %w", p, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != s.root && !s.recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(s.root, p)
		if err != nil {
			return fmt.Errorf("local: %w", err)
		}
		rel = filepath.ToSlash(rel)
		if !s.match(rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("local: stat %s: %w", p, err)
		}
		if info.Size() == 0 {
			return nil
		}
		return yield(s.document(p, rel, info))
	})
}

func epoch(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixNano())/1e9, 'f', -1, 64)
}

func (s *Source) document(abs, rel string, info fs.FileInfo) connectors.Document {
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

// Open opens a listed file.
func (s *Source) Open(ctx context.Context, doc connectors.Document) (io.ReadCloser, error) {
	p, err := s.within(doc.ID)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("local: open %s: %w", doc.ID, err)
	}
	return f, nil
}

// within joins a document id to the root, refusing ids that climb out of it.
func (s *Source) within(id string) (string, error) {
	clean := path.Clean("/" + id)
	if clean == "/" {
		return "", fmt.Errorf("local: empty document id")
	}
	return filepath.Join(s.root, filepath.FromSlash(clean[1:])), nil
}

// Check verifies the directory exists and can be read.
func (s *Source) Check(ctx context.Context) error {
	f, err := os.Open(s.root)
	if err != nil {
		return fmt.Errorf("local: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("local: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("local: %s is not a directory", s.root)
	}
	if _, err := f.ReadDir(1); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("local: read %s: %w", s.root, err)
	}
	return nil
}

// Destination writes one JSON file of elements per document.
type Destination struct{ root string }

// NewDestination builds a destination from a validated config.
func NewDestination(config map[string]any) (*Destination, error) {
	if err := Validate(config); err != nil {
		return nil, err
	}
	root, err := resolve(config["path"].(string))
	if err != nil {
		return nil, err
	}
	return &Destination{root: root}, nil
}

// Write stores elements as <root>/<document id>.json, keeping the document's sub-directories.
// The file is written under a temporary name and renamed, so readers never see half a file.
func (d *Destination) Write(ctx context.Context, doc connectors.Document, elements []element.Element) error {
	id := doc.ID
	if id == "" {
		id = doc.Filename
	}
	clean := path.Clean("/" + id)
	if clean == "/" {
		return fmt.Errorf("local: document has no id")
	}
	target := filepath.Join(d.root, filepath.FromSlash(clean[1:])+".json")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("local: create directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), ".quarry-*.tmp")
	if err != nil {
		return fmt.Errorf("local: write %s: %w", target, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(element.MarshalList(elements)); err != nil {
		tmp.Close()
		return fmt.Errorf("local: write %s: %w", target, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("local: write %s: %w", target, err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("local: write %s: %w", target, err)
	}
	return nil
}

// Check verifies the directory can be created and written.
func (d *Destination) Check(ctx context.Context) error {
	if err := os.MkdirAll(d.root, 0o755); err != nil {
		return fmt.Errorf("local: create %s: %w", d.root, err)
	}
	f, err := os.CreateTemp(d.root, ".quarry-check-*")
	if err != nil {
		return fmt.Errorf("local: %s is not writable: %w", d.root, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
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
