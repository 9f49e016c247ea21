// Package contract is what a partitioner needs to know and nothing more: the document it reads,
// the options it is given as keys, the emit callback, the error kinds callers see and progress
// reports. It is a leaf (it imports only element), like database/sql/driver beside database/sql:
// the plugin SDK and third-party strategies import it, and the machinery above it (detection,
// routing, post-processing, languages, chunking, in package engine) stays out of every plugin
// binary. Package engine re-exports Document, Emit, Error and Kind as aliases, so a value of one
// is a value of the other.
package contract

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/quarrydocs/quarry/element"
)

// Document is one input file.
type Document struct {
	// Filename is the name the document was given (a path or an upload name); metadata.filename
	// and element IDs use its base name.
	Filename string
	// ContentType is the caller's MIME hint (an HTTP part's Content-Type); may be empty.
	ContentType string
	// MIMEType is the canonical MIME type chosen by detection; set before a partitioner is
	// called.
	MIMEType string
	// Content holds the bytes; Size is their length.
	Content io.ReaderAt
	Size    int64

	memo memo
}

// NewDocument wraps bytes in a Document.
func NewDocument(filename string, data []byte) *Document {
	return &Document{Filename: filename, Content: bytes.NewReader(data), Size: int64(len(data))}
}

// BaseName is the document's file name without directories ("" when it has none).
func (d *Document) BaseName() string {
	if d.Filename == "" {
		return ""
	}
	return filepath.Base(d.Filename)
}

// Reader returns a fresh reader over the whole content.
func (d *Document) Reader() io.Reader { return io.NewSectionReader(d.Content, 0, d.Size) }

// Bytes reads the whole content into memory. Formats that need random access to everything use
// it; streaming formats use Reader.
func (d *Document) Bytes() ([]byte, error) {
	if br, ok := d.Content.(interface{ Bytes() []byte }); ok {
		return br.Bytes(), nil
	}
	buf := make([]byte, d.Size)
	_, err := d.Content.ReadAt(buf, 0)
	if err == io.EOF {
		err = nil
	}
	return buf, err
}

// memo holds per-document results shared by the steps that see the same document (a PDF parsed
// once for the validity check, the text-layer probe of "auto" and the strategy itself).
type memo struct {
	mu     sync.Mutex
	values map[any]memoEntry
}

type memoEntry struct {
	v   any
	err error
}

// Memo returns the value stored under key for this document, computing it with build the first
// time. Keys should be unexported types of the calling package, as with context values.
func (d *Document) Memo(key any, build func() (any, error)) (any, error) {
	d.memo.mu.Lock()
	defer d.memo.mu.Unlock()
	if e, ok := d.memo.values[key]; ok {
		return e.v, e.err
	}
	v, err := build()
	if d.memo.values == nil {
		d.memo.values = map[any]memoEntry{}
	}
	d.memo.values[key] = memoEntry{v, err}
	return v, err
}

// Emit receives elements in document order. Returning an error stops the partitioner.
type Emit func(element.Element) error

// A Partitioner turns one document into elements, reading its options as keys. Partitioners set
// type, text and the metadata only they know (page_number, category_depth, emphasis, links,
// text_as_html…); the caller sets filename, filetype, languages, IDs and parent_id afterwards.
// Page numbers start at 1.
type Partitioner interface {
	Partition(ctx context.Context, doc *Document, opts Options, emit Emit) error
}

// Func adapts a function to Partitioner.
type Func func(ctx context.Context, doc *Document, opts Options, emit Emit) error

// Partition calls f.
func (f Func) Partition(ctx context.Context, doc *Document, opts Options, emit Emit) error {
	return f(ctx, doc, opts, emit)
}

// Kind classifies errors so the HTTP layer can map them to the reference's status codes.
type Kind int

const (
	// KindInternal is an unexpected failure (HTTP 500).
	KindInternal Kind = iota
	// KindUnsupported is a file type without a partitioner (HTTP 400).
	KindUnsupported
	// KindBadRequest is a bad parameter value (HTTP 400).
	KindBadRequest
	// KindUnprocessable is a document that cannot be read: invalid or encrypted PDF, a DOCX
	// that is not a zip (HTTP 422).
	KindUnprocessable
	// KindUnavailable is a temporary overload (HTTP 503).
	KindUnavailable
)

// Error is an error with a Kind. Its message is the reference's detail text, shown to callers
// as it is.
type Error struct {
	Kind Kind
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error of the given kind.
func Errorf(kind Kind, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Kind: kind, Msg: err.Error(), Err: err}
}

type progressKey struct{}

// WithProgress returns a context whose ReportProgress calls go to f (the plugin server sets it
// for each call).
func WithProgress(ctx context.Context, f func(page, pages int, stage string)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// ReportProgress reports that page of pages is done, stage naming the work ("ocr", "text"). It
// does nothing when ctx carries no progress hook, so partitioner code may call it wherever it
// runs. Reports are advisory: a partitioner that sends none is correct.
func ReportProgress(ctx context.Context, page, pages int, stage string) {
	if f, ok := ctx.Value(progressKey{}).(func(page, pages int, stage string)); ok {
		f(page, pages, stage)
	}
}

type loggerKey struct{}

// WithLogger returns a context whose Logger is l (the engine sets the request's logger).
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// LoggerFrom returns the logger ctx carries, if any (a strategy in a plugin process, where the
// host's logger does not reach, may then log to its own stderr).
func LoggerFrom(ctx context.Context) (*slog.Logger, bool) {
	l, ok := ctx.Value(loggerKey{}).(*slog.Logger)
	return l, ok && l != nil
}

// Logger returns the logger ctx carries for diagnostics (damaged parts skipped, limits
// reached), or one that discards everything.
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok && l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
}

// PartitionFunc partitions a whole document with the machinery above the partitioners:
// detection, routing and post-processing, the caller's request-wide limits included.
type PartitionFunc func(ctx context.Context, doc *Document, opts Options) ([]element.Element, error)

type nestedKey struct{}

// WithNested returns a context from which Nested partitions documents with f (the engine sets
// it for every partitioner it calls).
func WithNested(ctx context.Context, f PartitionFunc) context.Context {
	return context.WithValue(ctx, nestedKey{}, f)
}

// Nested partitions a document found inside the one being partitioned (an email's attachment)
// as a document of its own: its type detected, routed and post-processed like any upload. It
// fails with KindUnsupported when ctx carries no engine (a partitioner called directly).
func Nested(ctx context.Context, doc *Document, opts Options) ([]element.Element, error) {
	f, ok := ctx.Value(nestedKey{}).(PartitionFunc)
	if !ok {
		return nil, Errorf(KindUnsupported, "no engine to partition the embedded document %s", doc.BaseName())
	}
	return f(ctx, doc, opts)
}

type strategyReportKey struct{}

// WithStrategyReports returns a context whose ReportStrategy calls go to f (the engine sets it
// to its progress hook).
func WithStrategyReports(ctx context.Context, f func(strategy, reason string, pages []int)) context.Context {
	return context.WithValue(ctx, strategyReportKey{}, f)
}

// ReportStrategy reports that strategy reads pages (nil: the whole document) and why, in a few
// words: what a router that sends some pages one way and the rest another tells the person
// watching. Like ReportProgress it does nothing when ctx carries no hook.
func ReportStrategy(ctx context.Context, strategy, reason string, pages []int) {
	if f, ok := ctx.Value(strategyReportKey{}).(func(strategy, reason string, pages []int)); ok {
		f(strategy, reason, pages)
	}
}
