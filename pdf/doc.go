// Package pdf reads the text layer of PDF files: it opens documents with pdfcpu's object model
// (relaxed, no full validation; intact files are read lazily, an object parsed by pdfcpu's
// parser when a page needs it, see xref.go), interprets page content streams itself (pdfcpu has
// no text extraction), decodes fonts to Unicode and groups the resulting glyphs into lines and text boxes
// with pdfminer's layout model and knobs (LAParams), so that callers get what the reference
// system's pdfminer-based "fast" strategy sees. It yields glyphs, lines and boxes, never elements.
package pdf

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

func init() {
	// pdfcpu otherwise creates a configuration directory under the user's home on first use;
	// a library must not write there, and the defaults are what we want anyway. (This is what
	// api.DisableConfigDir does; importing pdfcpu's api package would link its form and
	// table-printing code, whose initialisers cost a CLI run 20 ms.)
	model.ConfigPath = "disable"
}

// ErrEncrypted reports a PDF that needs a user (open) password.
var ErrEncrypted = errors.New("pdf: file is encrypted with a user password")

// InvalidError reports a file that cannot be read as a PDF at all (no usable xref, catalog or
// page tree). Reason is a short human-readable cause.
type InvalidError struct {
	Reason string
	Err    error
}

func (e *InvalidError) Error() string { return "pdf: invalid file: " + e.Reason }

// Unwrap returns the underlying cause.
func (e *InvalidError) Unwrap() error { return e.Err }

// Document is an opened PDF. It is safe for use by one goroutine at a time.
type Document struct {
	objs  objects
	pages []pageRef
	// fonts caches decoded fonts by object number so a font shared by many pages is parsed once.
	fonts map[int]*font
	// glyphHint is the glyph count of the page read last; spare is a recycled page's glyph
	// slice (see Recycle).
	glyphHint int
	spare     []Glyph
}

// pageRef is a leaf of the page tree with its inherited attributes resolved.
type pageRef struct {
	dict      types.Dict
	resources types.Dict
	mediaBox  [4]float64
	rotate    int
}

// Open reads a PDF from r without full validation and decrypts it when it has only an owner
// password. It returns ErrEncrypted for user-password files and *InvalidError for files that are
// not readable PDFs.
func Open(ctx context.Context, r io.ReaderAt, size int64) (doc *Document, err error) {
	defer func() {
		if p := recover(); p != nil {
			doc, err = nil, &InvalidError{Reason: fmt.Sprint(p), Err: fmt.Errorf("pdfcpu panic: %v", p)}
		}
	}()
	if size <= 0 {
		return nil, &InvalidError{Reason: "Stream has ended unexpectedly"}
	}
	data := make([]byte, size)
	if _, err := r.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("pdf: read: %w", err)
	}
	head := data[:min(size, 1024)]
	if !bytes.Contains(head, []byte("%PDF-")) && !bytes.Contains(head, []byte(" obj")) {
		return nil, &InvalidError{Reason: "Stream has ended unexpectedly"}
	}
	return open(ctx, data, head, false)
}

// open reads data lazily when its cross-reference data allows and full is false, else with
// pdfcpu's full reader; a file neither reads (or one pdfcpu would read as ciphertext) is
// rebuilt by scanning it for objects (scan.go).
func open(ctx context.Context, data, head []byte, full bool) (*Document, error) {
	hasHeader := bytes.Contains(head, []byte("%PDF-"))
	if !full && hasHeader {
		lazy, err := openLazy(ctx, data)
		if err == nil {
			if d, err := newDocument(lazy); err == nil {
				return d, nil
			}
			// An intact table whose trailer lacks a usable /Root: the scan below finds the
			// catalog by its type.
		}
		if errors.Is(err, ErrEncrypted) {
			return nil, ErrEncrypted
		}
	}
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	conf.Cmd = model.EXTRACTCONTENT
	mctx, err := pdfcpu.ReadWithContext(ctx, bytes.NewReader(data), conf)
	if err == nil && !hasHeader {
		// A body without a header: readers that find objects still lack a trustworthy root.
		err = errors.New("missing root: no PDF header")
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil && (errors.Is(err, pdfcpu.ErrWrongPassword) || strings.Contains(err.Error(), "password")) {
		return nil, ErrEncrypted
	}
	// pdfcpu only knows an /Encrypt entry that is a reference: with a direct dictionary it
	// reads ciphertext as content. The scan finds such an entry and decrypts or refuses.
	unnoticed := err == nil && mctx.Encrypt == nil && bytes.Contains(data, []byte("/Encrypt"))
	var d *Document
	if err == nil {
		if d, err = newDocument(pdfcpuObjects{mctx.XRefTable}); err == nil && d.NumPages() > 0 && !unnoticed {
			return d, nil
		}
	}
	if !hasHeader {
		return nil, classifyOpenError(err)
	}
	scan, serr := openScan(ctx, data)
	switch {
	case errors.Is(serr, ErrEncrypted):
		return nil, ErrEncrypted
	case serr == nil:
		if unnoticed && scan.dec == nil && d != nil && d.NumPages() > 0 {
			return d, nil // "/Encrypt" was only text in the file: pdfcpu's reading stands
		}
		if sd, perr := newDocument(scan); perr == nil && (sd.NumPages() > 0 || d == nil) {
			return sd, nil
		}
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	if d != nil {
		return d, nil // pdfcpu's reading, without pages, beats none
	}
	if err == nil {
		err = serr
	}
	var inv *InvalidError
	if errors.As(err, &inv) {
		return nil, err
	}
	return nil, classifyOpenError(err)
}

func newDocument(objs objects) (*Document, error) {
	d := &Document{objs: objs, fonts: map[int]*font{}}
	if err := d.loadPages(); err != nil {
		return nil, err
	}
	return d, nil
}

// Check opens and closes the document: the validation the reference performs before choosing a
// strategy (partition-api.md §3 step 8).
func Check(ctx context.Context, r io.ReaderAt, size int64) error {
	_, err := Open(ctx, r, size)
	return err
}

func classifyOpenError(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "missing root") || strings.Contains(msg, "Root") || strings.Contains(msg, "no header"):
		return &InvalidError{Reason: "Cannot find Root object in pdf", Err: err}
	case strings.Contains(msg, "Pages"):
		return &InvalidError{Reason: "Invalid object in /Pages", Err: err}
	}
	return &InvalidError{Reason: "Stream has ended unexpectedly", Err: err}
}

// NumPages is the number of pages found in the page tree.
func (d *Document) NumPages() int { return len(d.pages) }

// PageSize returns the width and height of page n (1-based) in PDF points, after /Rotate.
func (d *Document) PageSize(n int) (w, h float64) {
	if n < 1 || n > len(d.pages) {
		return 0, 0
	}
	p := d.pages[n-1]
	w, h = p.mediaBox[2]-p.mediaBox[0], p.mediaBox[3]-p.mediaBox[1]
	if p.rotate%180 != 0 {
		w, h = h, w
	}
	return w, h
}

const maxPageTreeDepth = 64

// loadPages walks the page tree once, resolving inherited Resources, MediaBox and Rotate, with a
// visited set so cyclic trees terminate.
func (d *Document) loadPages() error {
	root, err := d.objs.catalog()
	if err != nil || root == nil {
		return &InvalidError{Reason: "Cannot find Root object in pdf", Err: err}
	}
	pagesObj, ok := root.Find("Pages")
	if !ok {
		return &InvalidError{Reason: "Invalid object in /Pages"}
	}
	pages := d.dict(pagesObj)
	if pages == nil {
		return &InvalidError{Reason: "Invalid object in /Pages"}
	}
	seen := map[int]bool{}
	if ir, ok := pagesObj.(types.IndirectRef); ok {
		seen[ir.ObjectNumber.Value()] = true
	}
	var walk func(node types.Dict, res types.Dict, mb [4]float64, hasMB bool, rot int, depth int)
	walk = func(node types.Dict, res types.Dict, mb [4]float64, hasMB bool, rot int, depth int) {
		if depth > maxPageTreeDepth {
			return
		}
		if o, ok := node.Find("Resources"); ok {
			if r := d.dict(o); r != nil {
				res = r
			}
		}
		if o, ok := node.Find("MediaBox"); ok {
			if r, ok := d.rect(o); ok {
				mb, hasMB = r, true
			}
		}
		if o, ok := node.Find("Rotate"); ok {
			if v, ok := d.number(o); ok {
				rot = int(v)
			}
		}
		kidsObj, hasKids := node.Find("Kids")
		t := node.Type()
		if !hasKids || (t != nil && *t == "Page") {
			if !hasMB {
				mb = [4]float64{0, 0, 612, 792}
			}
			rot = ((rot % 360) + 360) % 360
			d.pages = append(d.pages, pageRef{dict: node, resources: res, mediaBox: mb, rotate: rot})
			return
		}
		kids := d.array(kidsObj)
		for _, k := range kids {
			if ir, ok := k.(types.IndirectRef); ok {
				n := ir.ObjectNumber.Value()
				if seen[n] {
					continue
				}
				seen[n] = true
			}
			kd := d.dict(k)
			if kd == nil {
				continue
			}
			walk(kd, res, mb, hasMB, rot, depth+1)
		}
	}
	walk(pages, nil, [4]float64{}, false, 0, 0)
	if len(d.pages) == 0 {
		if _, ok := pages.Find("Kids"); !ok {
			return &InvalidError{Reason: "Invalid object in /Pages"}
		}
	}
	return nil
}

func (d *Document) resolve(o types.Object) types.Object {
	for i := 0; i < 8; i++ {
		ir, ok := o.(types.IndirectRef)
		if !ok {
			return o
		}
		r, err := d.objs.deref(ir)
		if err != nil {
			return nil
		}
		o = r
	}
	return nil
}

func (d *Document) number(o types.Object) (float64, bool) {
	switch v := d.resolve(o).(type) {
	case types.Integer:
		return float64(v), true
	case types.Float:
		return float64(v), true
	}
	return 0, false
}

func (d *Document) rect(o types.Object) ([4]float64, bool) {
	a, ok := d.resolve(o).(types.Array)
	if !ok || len(a) != 4 {
		return [4]float64{}, false
	}
	var r [4]float64
	for i := range a {
		v, ok := d.number(a[i])
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return [4]float64{}, false
		}
		r[i] = v
	}
	if r[0] > r[2] {
		r[0], r[2] = r[2], r[0]
	}
	if r[1] > r[3] {
		r[1], r[3] = r[3], r[1]
	}
	return r, true
}

func (d *Document) dict(o types.Object) types.Dict {
	switch v := d.resolve(o).(type) {
	case types.Dict:
		return v
	case types.StreamDict:
		return v.Dict
	}
	return nil
}

func (d *Document) array(o types.Object) types.Array {
	a, _ := d.resolve(o).(types.Array)
	return a
}

func (d *Document) name(o types.Object) string {
	n, _ := d.resolve(o).(types.Name)
	return string(n)
}

// stringBytes returns the bytes of a string object (literal or hex), decrypted by pdfcpu.
func (d *Document) stringBytes(o types.Object) ([]byte, bool) {
	b, err := literalBytes(d.resolve(o))
	return b, err == nil
}

// textString decodes a PDF text string (UTF-16BE with BOM, UTF-8 with BOM, else PDFDocEncoding).
func (d *Document) textString(o types.Object) string {
	b, ok := d.stringBytes(o)
	if !ok {
		return ""
	}
	return decodeTextString(b)
}

// zlibReaders keeps inflaters for reuse: each holds a 32 KB window, and a page can have
// hundreds of small compressed streams.
var zlibReaders sync.Pool

// inflate decodes zlib data with a pooled reader. Like pdftotext it keeps what inflates before
// damage (a bad Adler-32 checksum, a truncated or corrupt deflate stream): it returns that
// prefix with a *DamagedStreamError describing the damage (a cut-short stream included, which
// pdfcpu ignores silently). Data without a zlib header is tried as raw deflate, which some
// writers emit.
func inflate(raw []byte) ([]byte, error) {
	src := bytes.NewReader(raw)
	var zr io.ReadCloser
	if r, ok := zlibReaders.Get().(io.ReadCloser); ok {
		if err := r.(zlib.Resetter).Reset(src, nil); err != nil {
			zlibReaders.Put(r)
			return inflateRaw(raw, err)
		}
		zr = r
	} else {
		r, err := zlib.NewReader(src)
		if err != nil {
			return inflateRaw(raw, err)
		}
		zr = r
	}
	defer zlibReaders.Put(zr)
	return readInflated(zr, len(raw))
}

func inflateRaw(raw []byte, headerErr error) ([]byte, error) {
	b, err := readInflated(flate.NewReader(bytes.NewReader(raw)), len(raw))
	if len(b) == 0 {
		return nil, fmt.Errorf("pdf: flate: %w", headerErr)
	}
	return b, err
}

func readInflated(zr io.Reader, rawLen int) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(min(4*rawLen+512, maxStreamBytes))
	_, err := io.Copy(&out, &io.LimitedReader{R: zr, N: maxStreamBytes + 1})
	if out.Len() > maxStreamBytes {
		return nil, fmt.Errorf("pdf: flate: stream inflates beyond %d bytes", maxStreamBytes)
	}
	if err != nil {
		if out.Len() == 0 {
			return nil, fmt.Errorf("pdf: flate: %w", err)
		}
		return out.Bytes(), &DamagedStreamError{Kept: out.Len(), Err: err}
	}
	return out.Bytes(), nil
}

// DamagedStreamError reports a stream read in part: Kept bytes decoded before Err.
type DamagedStreamError struct {
	Kept int
	Err  error
}

func (e *DamagedStreamError) Error() string {
	return fmt.Sprintf("pdf: stream damaged, %d bytes kept: %v", e.Kept, e.Err)
}

// Unwrap returns the decoder's error.
func (e *DamagedStreamError) Unwrap() error { return e.Err }

// maxStreamBytes bounds a decoded stream so a decompression bomb costs memory we chose.
const maxStreamBytes = 256 << 20

// streamData returns the decoded bytes of a stream object; the table's copy is not modified, so
// the document can be read by several pages in turn without re-decoding surprises. A stream
// decoded in part returns its prefix with a *DamagedStreamError.
func (d *Document) streamData(o types.Object) ([]byte, types.Dict, error) {
	sd, ok := d.resolve(o).(types.StreamDict)
	if !ok {
		return nil, nil, errors.New("not a stream")
	}
	if sd.Content != nil {
		return sd.Content, sd.Dict, nil
	}
	fp := sd.FilterPipeline
	if len(fp) == 1 && fp[0].Name == filter.Flate && fp[0].DecodeParms == nil {
		if b, err := inflate(sd.Raw); len(b) > 0 || err == nil {
			return b, sd.Dict, err
		}
	}
	cp := sd
	b, err := cp.DecodeLengthWithLimit(-1, maxStreamBytes)
	if err != nil {
		if pb, perr := decodePipeline(sd); len(pb) > 0 {
			return pb, sd.Dict, perr
		}
		return b, sd.Dict, err
	}
	return b, sd.Dict, nil
}

// decodePipeline runs a filter chain one filter at a time, so that a damaged Flate stage keeps
// its prefix for the stages after it; Flate with parameters (predictors) and unknown filters
// are left to pdfcpu.
func decodePipeline(sd types.StreamDict) ([]byte, error) {
	b := sd.Raw
	var damage error
	for _, f := range sd.FilterPipeline {
		if f.Name == filter.Flate {
			if f.DecodeParms != nil {
				return nil, errors.New("pdf: flate with parameters")
			}
			out, err := inflate(b)
			var de *DamagedStreamError
			if err != nil && !errors.As(err, &de) {
				return nil, err
			}
			if err != nil && damage == nil {
				damage = err
			}
			b = out
			continue
		}
		if f.DecodeParms != nil {
			return nil, errors.New("pdf: filter with parameters")
		}
		fl, err := filter.NewFilter(f.Name, nil, maxStreamBytes)
		if err != nil {
			return nil, err
		}
		r, err := fl.Decode(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		if b, err = io.ReadAll(io.LimitReader(r, maxStreamBytes)); err != nil {
			return nil, err
		}
	}
	return b, damage
}
