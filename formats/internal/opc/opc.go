// Package opc reads Open Packaging Conventions containers (the ZIP packages behind DOCX, PPTX
// and XLSX, and the ODF packages that share their shape) defensively: every part is read through
// a decompression cap so that a zip bomb becomes an error instead of an out-of-memory crash, and
// relationship targets are resolved the way Office resolves them.
package opc

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// Default decompression caps. A real Office part rarely exceeds a few tens of MiB; these bound
// what one hostile package can make us inflate.
const (
	DefaultMaxPartSize  = 256 << 20
	DefaultMaxTotalSize = 1 << 30
)

// ErrNotZip is returned by Open when the bytes are not a ZIP archive.
var ErrNotZip = errors.New("not a zip archive")

// ErrTooLarge is returned when a part (or the package as a whole) inflates past its cap.
var ErrTooLarge = errors.New("decompressed size exceeds the limit")

// ErrMissingPart is returned when a required part is absent.
var ErrMissingPart = errors.New("missing part")

// Package is an opened container.
type Package struct {
	zr           *zip.Reader
	files        map[string]*zip.File
	MaxPartSize  int64
	MaxTotalSize int64
	total        int64
}

// Open opens the package in r.
func Open(r io.ReaderAt, size int64) (*Package, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotZip, err)
	}
	p := &Package{zr: zr, files: make(map[string]*zip.File, len(zr.File)),
		MaxPartSize: DefaultMaxPartSize, MaxTotalSize: DefaultMaxTotalSize}
	for _, f := range zr.File {
		// Part names are case-insensitive in OPC; producers are not always consistent.
		p.files[strings.ToLower(strings.TrimPrefix(f.Name, "/"))] = f
	}
	return p, nil
}

// Has reports whether the package holds a part named name.
func (p *Package) Has(name string) bool {
	_, ok := p.files[strings.ToLower(strings.TrimPrefix(name, "/"))]
	return ok
}

// Names lists the part names in archive order.
func (p *Package) Names() []string {
	out := make([]string, 0, len(p.zr.File))
	for _, f := range p.zr.File {
		out = append(out, f.Name)
	}
	return out
}

// OpenPart opens a part for streaming; reading past the caps fails with ErrTooLarge.
func (p *Package) OpenPart(name string) (io.ReadCloser, error) {
	f, ok := p.files[strings.ToLower(strings.TrimPrefix(name, "/"))]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrMissingPart, name)
	}
	if f.UncompressedSize64 > uint64(p.MaxPartSize) {
		return nil, fmt.Errorf("part %s: %w (%d bytes declared)", name, ErrTooLarge, f.UncompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("open part %s: %w", name, err)
	}
	return &capped{rc: rc, name: name, left: p.MaxPartSize, pkg: p}, nil
}

// ReadPart reads a whole part.
func (p *Package) ReadPart(name string) ([]byte, error) {
	rc, err := p.OpenPart(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, rc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// capped enforces the per-part and per-package caps on the inflated stream, whatever the
// (attacker-controlled) size the ZIP directory declares.
type capped struct {
	rc   io.ReadCloser
	name string
	left int64
	pkg  *Package
}

func (c *capped) Read(b []byte) (int, error) {
	if int64(len(b)) > c.left+1 {
		b = b[:c.left+1]
	}
	n, err := c.rc.Read(b)
	c.left -= int64(n)
	c.pkg.total += int64(n)
	if c.left < 0 {
		return n, fmt.Errorf("part %s: %w", c.name, ErrTooLarge)
	}
	if c.pkg.total > c.pkg.MaxTotalSize {
		return n, fmt.Errorf("package: %w", ErrTooLarge)
	}
	if err != nil && err != io.EOF {
		err = fmt.Errorf("read part %s: %w", c.name, err)
	}
	return n, err
}

func (c *capped) Close() error { return c.rc.Close() }

// Rel is one relationship of a part.
type Rel struct {
	ID       string
	Type     string
	Target   string // resolved part name for internal targets, raw URI for external ones
	External bool
}

// Rels reads the relationships of part (from _rels/<name>.rels next to it). A part without a
// relationships part has none; that is not an error.
func (p *Package) Rels(part string) (map[string]Rel, error) {
	dir, base := path.Split(strings.TrimPrefix(part, "/"))
	relsName := dir + "_rels/" + base + ".rels"
	out := map[string]Rel{}
	if !p.Has(relsName) {
		return out, nil
	}
	data, err := p.ReadPart(relsName)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Rels []struct {
			ID         string `xml:"Id,attr"`
			Type       string `xml:"Type,attr"`
			Target     string `xml:"Target,attr"`
			TargetMode string `xml:"TargetMode,attr"`
		} `xml:"Relationship"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", relsName, err)
	}
	for _, r := range doc.Rels {
		rel := Rel{ID: r.ID, Type: r.Type, External: strings.EqualFold(r.TargetMode, "External")}
		if rel.External {
			rel.Target = r.Target
		} else {
			rel.Target = ResolveTarget(dir, r.Target)
		}
		out[r.ID] = rel
	}
	return out, nil
}

// ResolveTarget resolves an internal relationship target against the directory of its source
// part; absolute targets start at the package root.
func ResolveTarget(dir, target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean("/"+dir+target), "/")
}

// RelByType returns the first relationship whose type ends with suffix (types are long URIs
// that differ between the transitional and strict schemas only in their prefix).
func RelByType(rels map[string]Rel, suffix string) (Rel, bool) {
	var best Rel
	found := false
	for _, r := range rels {
		if strings.HasSuffix(r.Type, suffix) && (!found || r.ID < best.ID) {
			best, found = r, true
		}
	}
	return best, found
}

// Attr returns the value of the attribute with local name local, ignoring its namespace.
func Attr(se xml.StartElement, local string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// OnOff reads a WordprocessingML/DrawingML boolean attribute value; absent means true for
// toggle elements such as <w:b/>.
func OnOff(v string, present bool) bool {
	if !present {
		return true
	}
	switch strings.ToLower(v) {
	case "0", "false", "off", "none":
		return false
	}
	return true
}

// MaxDepth bounds element nesting the partitioners follow (nested tables, groups), so hostile
// input cannot exhaust the stack.
const MaxDepth = 256

// ErrTooDeep is returned when nesting exceeds MaxDepth.
var ErrTooDeep = errors.New("nesting too deep")
