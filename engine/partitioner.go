// Package engine turns a document into elements: it detects the file type, routes the document to
// a registered format partitioner or strategy, post-processes the elements every format shares
// (page offsets, languages, IDs, hierarchy) and applies chunking. Formats and strategies register
// themselves; the engine knows none of them.
package engine

import (
	"bytes"
	"context"
	"io"
	"path/filepath"

	"github.com/quarrydocs/quarry/element"
)

// Document is one input file.
type Document struct {
	// Filename is the name the document was given (a path or an upload name); metadata.filename
	// and element IDs use its base name.
	Filename string
	// ContentType is the caller's MIME hint (an HTTP part's Content-Type); may be empty.
	ContentType string
	// MIMEType is the canonical MIME type chosen by detection; set by the engine before a
	// partitioner is called.
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

// Emit receives elements in document order. Returning an error stops the partitioner.
type Emit func(element.Element) error

// A Partitioner turns one document into elements. Formats and strategies both implement it.
// Partitioners set type, text and the metadata only they know (page_number, category_depth,
// emphasis, links, text_as_html…); the engine sets filename, filetype, languages, IDs and
// parent_id afterwards. Page numbers start at 1; the engine shifts them by StartingPageNumber.
type Partitioner interface {
	Partition(ctx context.Context, doc *Document, opts *Options, emit Emit) error
}

// PartitionFunc adapts a function to Partitioner.
type PartitionFunc func(ctx context.Context, doc *Document, opts *Options, emit Emit) error

// Partition calls f.
func (f PartitionFunc) Partition(ctx context.Context, doc *Document, opts *Options, emit Emit) error {
	return f(ctx, doc, opts, emit)
}
