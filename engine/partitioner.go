// Package engine turns a document into elements: it detects the file type, routes the document to
// a registered format partitioner or strategy, post-processes the elements every format shares
// (page offsets, languages, IDs, hierarchy) and applies chunking.
//
// A program that partitions documents imports the formats and strategies it wants for their
// registration, usually all of them, and starts from the reference server's defaults:
//
//	import (
//		"github.com/quarrydocs/quarry/engine"
//		_ "github.com/quarrydocs/quarry/formats/all"    // every built-in format
//		_ "github.com/quarrydocs/quarry/strategies/all" // PDF and image strategies
//	)
//
//	elems, err := engine.Partition(ctx, engine.NewDocument("report.docx", data), engine.DefaultOptions())
//
// Without formats/all every document is refused with an error naming that import. With these
// imports alone PDFs go through fast and images are refused; hi_res's born-digital layout and
// OCR (as the quarry command has them) need auto.Install from strategies/ocr/auto and the OCR
// plugin loaded by plugins/host (the repository README shows the three lines). Errors are
// *Error values whose Kind maps to an HTTP status.
//
// Formats and strategies register with package contract (contract.RegisterFormat,
// contract.RegisterStrategy), bringing their own detection (MIME types, extensions, ZIP members,
// Compound File streams, text sniffers) and option keys; the engine reads that registry and
// names none of them (names_test.go asserts it over the package's string literals). Detection
// keeps the reference's precedence (containers, hint, byte sniffing refined for text, extension)
// and "auto" its rules over the API's strategy names (contract.StrategyFast…). The registry is
// frozen when the first document is partitioned: registration, and replacing a registered
// strategy (the plugin host, auto.Install), happen at start-up only.
//
// Options holds the standard keys as typed fields (their tags are the keys) and a registrant's
// own keys in Extra; partitioners receive them as contract.Options (Options.Keys). Partitioners
// still written against *Options are registered through Contract.
package engine

import (
	"context"

	"github.com/quarrydocs/quarry/contract"
)

// Document is one input file (contract.Document: formats, strategies and plugins read the
// same type).
type Document = contract.Document

// NewDocument wraps bytes in a Document.
func NewDocument(filename string, data []byte) *Document { return contract.NewDocument(filename, data) }

// Emit receives elements in document order. Returning an error stops the partitioner.
type Emit = contract.Emit

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
