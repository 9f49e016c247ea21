package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/quarrydocs/quarry/chunking"
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/lang"
)

// TextLayerProber is an optional capability of a strategy (the fast strategy): it reports
// whether a PDF has extractable text, which decides what strategy "auto" resolves to.
type TextLayerProber interface {
	HasText(ctx context.Context, doc *Document, opts *Options) (bool, error)
}

// frozen is set once the registry has been frozen by the first partition.
var frozen atomic.Bool

// freeze ends start-up: from the first document on, what is registered is what every request
// sees (contract.Freeze).
func freeze() {
	if !frozen.Load() {
		contract.Freeze()
		frozen.Store(true)
	}
}

// Partition partitions doc and returns its post-processed (and, when requested, chunked)
// elements.
func Partition(ctx context.Context, doc *Document, opts Options) ([]element.Element, error) {
	var out []element.Element
	err := PartitionStream(ctx, doc, opts, func(e element.Element) error {
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []element.Element{}
	}
	return out, nil
}

// PartitionStream partitions doc and passes post-processed elements to emit in document order.
// Without chunking, elements are held back only until the document's language is decided (its
// first 10,000 characters of text, see lang.Stream) and streamed after that, so memory stays
// bounded for large inputs.
func PartitionStream(ctx context.Context, doc *Document, opts Options, emit Emit) error {
	freeze()
	if opts.StartingPageNumber == 0 {
		opts.StartingPageNumber = 1
	}
	if opts.Chunking.Strategy != "" {
		if err := chunking.Validate(opts.Chunking); err != nil {
			return chunkingError(err)
		}
	}
	hint := opts.ContentType
	if hint == "" {
		hint = doc.ContentType
	}
	ft := Detect(doc, hint)
	if !ft.Partitionable {
		if len(Formats()) == 0 {
			return noFormatsError()
		}
		return UnsupportedError(ft.MIME)
	}
	doc.MIMEType = ft.MIME
	log := opts.Log().With("file", doc.BaseName(), "type", ft.MIME)
	if f, ok := contract.LookupFormat(ft.MIME); ok && f.Precheck != nil {
		if err := f.Precheck(ctx, doc); err != nil {
			return err
		}
	}
	p, name, err := route(ctx, doc, ft, &opts)
	if err != nil {
		return err
	}
	log.Debug("partitioning", "partitioner", name, "bytes", doc.Size)

	post := newPostProcessor(doc, ft, &opts)
	sink := emit
	var all []element.Element
	if opts.Chunking.Strategy != "" {
		sink = func(e element.Element) error { all = append(all, e); return nil }
	}
	err = p.Partition(ctx, doc, &opts, LimitElements(opts.MaxElements, func(e element.Element) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return post.add(e, sink)
	}))
	if err == nil {
		err = post.finish(sink)
	}
	if err != nil {
		return wrapPartitionError(err, ft)
	}
	if opts.Chunking.Strategy == "" {
		return nil
	}
	copts := opts.Chunking
	if copts.MaxChunks <= 0 {
		// The element budget bounds chunks too: a small max_characters multiplies them.
		copts.MaxChunks = opts.MaxElements
	}
	chunks, err := chunking.Chunk(ctx, all, copts)
	if err != nil {
		return chunkingError(err)
	}
	// The reference re-applies its metadata pass to chunks: languages from chunk texts, IDs
	// hashed from chunk texts, hierarchy.
	again := newPostProcessor(doc, ft, &opts)
	again.pageShift = 0
	for _, c := range chunks {
		if err := again.add(c, emit); err != nil {
			return err
		}
	}
	return again.finish(emit)
}

// LimitElements returns emit behind a counter: past max elements (when max > 0) it returns a
// KindUnprocessable error instead of passing them on, so a partitioner stops at the first
// element over the budget rather than after the millionth.
func LimitElements(max int, emit Emit) Emit {
	if max <= 0 {
		return emit
	}
	n := 0
	return func(e element.Element) error {
		n++
		if n > max {
			return TooManyElementsError(max)
		}
		return emit(e)
	}
}

// ErrTooManyElements is wrapped by the errors of an element or chunk budget, so a caller that
// shares one budget among several documents can say so.
var ErrTooManyElements = errors.New("too many elements")

// TooManyElementsError is the error LimitElements returns.
func TooManyElementsError(max int) *Error {
	return &Error{Kind: KindUnprocessable, Err: ErrTooManyElements,
		Msg: fmt.Sprintf("The document produces more than %d elements, the limit of this server; split it into smaller documents", max)}
}

// chunkingError maps chunking failures as the reference server does: an unknown strategy is a
// 400, an invalid option value surfaces as a 500 with the library's message.
func chunkingError(err error) error {
	var unknown *chunking.UnknownStrategyError
	if errors.As(err, &unknown) {
		return &Error{Kind: KindBadRequest, Msg: err.Error(), Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var many *chunking.TooManyChunksError
	if errors.As(err, &many) {
		return &Error{Kind: KindUnprocessable, Msg: fmt.Sprintf("The document produces more than %d chunks, the limit of this server; use a larger max_characters", many.Max), Err: ErrTooManyElements}
	}
	var opt *chunking.OptionError
	if errors.As(err, &opt) {
		// A bad option value (max_characters=-1, overlap ≥ max) is the client's error: 400, not
		// the reference's 500.
		return &Error{Kind: KindBadRequest, Msg: err.Error(), Err: err}
	}
	return &Error{Kind: KindInternal, Msg: err.Error(), Err: err}
}

func wrapPartitionError(err error, ft FileType) error {
	var e *Error
	if errors.As(err, &e) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &Error{Kind: KindInternal, Msg: err.Error(), Err: fmt.Errorf("partition %s: %w", ft.Name, err)}
}

// noFormatsError answers a program that imports engine without any format: every file would
// otherwise read as "File type application/octet-stream is not supported", hiding the cause.
func noFormatsError() *Error {
	return Errorf(KindInternal, "no document formats are registered in this program; "+
		"import _ \"github.com/quarrydocs/quarry/formats/all\" (and strategies/all for PDFs and images)")
}

// route picks the partitioner: a format's, or for PDFs and images a strategy's.
func route(ctx context.Context, doc *Document, ft FileType, opts *Options) (Partitioner, string, error) {
	if !ft.Paged {
		p, ok := LookupFormat(ft.MIME)
		if !ok {
			if len(Formats()) == 0 {
				return nil, "", noFormatsError()
			}
			return nil, "", UnsupportedError(ft.MIME)
		}
		return p, ft.Name, nil
	}
	name, why, err := resolveStrategy(ctx, doc, ft, opts)
	if err != nil {
		return nil, "", err
	}
	p, ok := LookupStrategy(name)
	switch {
	case ok:
		opts.Report(Progress{Strategy: name, Reason: why})
		return p, name, nil
	case slices.Contains(contract.APIStrategies, name):
		// One of the API's strategies whose plugin is not installed (hi_res and ocr_only need
		// the OCR plugin): reported as such rather than as unknown (the API schema accepts
		// them all, api/partitionapi).
		if len(Strategies()) == 0 {
			return nil, "", Errorf(KindBadRequest, "The %s strategy is not available: no PDF or image strategy is registered in this program; "+
				"import _ \"github.com/quarrydocs/quarry/strategies/all\" (or install a plugin, see plugins/README.md)", name)
		}
		return nil, "", Errorf(KindBadRequest, "The %s strategy is not available in this installation (installed: %s); "+
			"install its plugin (see plugins/README.md) or choose another strategy", name, strings.Join(Strategies(), ", "))
	}
	return nil, "", Errorf(KindBadRequest, "Invalid strategy: %s. Must be one of %s", name, pyList(Strategies()))
}

// resolveStrategy applies the reference's rules for "auto" and its fallbacks when a strategy is
// not installed (partition-api.md §7.1), and says in a few words why it chose what it did.
func resolveStrategy(ctx context.Context, doc *Document, ft FileType, opts *Options) (string, string, error) {
	s := strings.ToLower(opts.Strategy)
	if s == "" {
		s = contract.StrategyAuto
	}
	if ft.Image && s == contract.StrategyFast {
		return "", "", Errorf(KindBadRequest, "The %s strategy is not available for image files", s)
	}
	why := "as asked"
	hasText := func() bool {
		p, ok := LookupStrategy(contract.StrategyFast)
		if !ok {
			return false
		}
		prober, ok := p.(TextLayerProber)
		if !ok {
			return false
		}
		has, err := prober.HasText(ctx, doc, opts)
		return err == nil && has
	}
	const (
		auto, fast, hiRes, ocrOnly = contract.StrategyAuto, contract.StrategyFast, contract.StrategyHiRes, contract.StrategyOCROnly
	)
	if s == auto {
		switch {
		case ft.Image:
			s, why = hiRes, "an image has no text layer"
		case tableInference(ft, opts):
			s, why = hiRes, "tables are inferred (pdf_infer_table_structure, on by default)"
		case len(opts.ExtractImageBlockTypes) > 0:
			s, why = hiRes, "image blocks were asked for (extract_image_block_types)"
		case hasText():
			s, why = fast, "the PDF has a text layer"
		default:
			s, why = ocrOnly, "no page has a text layer"
		}
	}
	installed := func(n string) bool { _, ok := LookupStrategy(n); return ok }
	if s == hiRes && !installed(hiRes) {
		if installed(ocrOnly) {
			s, why = ocrOnly, why+"; "+hiRes+" is not installed"
		} else if !ft.Image {
			s, why = fast, why+"; "+hiRes+" is not installed"
		}
	}
	if s == ocrOnly && !installed(ocrOnly) && !ft.Image && hasText() {
		s, why = fast, why+"; "+ocrOnly+" is not installed"
	}
	return s, why, nil
}

// tableInference is the reference's PDF/image table flag: hi_res or auto, the
// pdf_infer_table_structure flag, and the type not skipped.
func tableInference(ft FileType, opts *Options) bool {
	s := strings.ToLower(opts.Strategy)
	if s != "" && s != contract.StrategyAuto && s != contract.StrategyHiRes {
		return false
	}
	return opts.PDFInferTableStructure && !slices.Contains(opts.SkipInferTableTypes, ft.Name)
}

// pyList renders names as a Python list literal, as the reference's messages do.
func pyList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + n + "'"
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// postProcessor applies what every format shares, in the reference's order: page offset,
// languages, filename/filetype, element IDs, hierarchy, and the server's field stripping
// (coordinates unless asked for, text_as_html of a type in skip_infer_table_types).
type postProcessor struct {
	opts      *Options
	filename  string
	filetype  string
	pageShift int
	ids       element.IDHasher
	tree      element.Hierarchy
	langs     *lang.Stream
	pending   []element.Element // held until langs is decided
	// noTableHTML: the type is in skip_infer_table_types and is not paged (PDFs and images
	// decide table inference in their strategy): its tables keep their text, not their HTML.
	noTableHTML bool
}

func newPostProcessor(doc *Document, ft FileType, opts *Options) *postProcessor {
	return &postProcessor{opts: opts, filename: doc.BaseName(), filetype: ft.MIME, pageShift: opts.StartingPageNumber - 1,
		langs: lang.NewStream(opts.Languages), noTableHTML: !ft.Paged && slices.Contains(opts.SkipInferTableTypes, ft.Name)}
}

func (p *postProcessor) add(e element.Element, emit Emit) error {
	if p.pageShift != 0 && e.Metadata.PageNumber != nil {
		e.Metadata.PageNumber = element.Int(*e.Metadata.PageNumber + p.pageShift)
	}
	if p.langs.Decided() {
		return p.emit(&e, emit)
	}
	p.pending = append(p.pending, e)
	if p.langs.Add(e.Text) {
		return p.release(emit)
	}
	return nil
}

// finish decides the language on what was seen and emits what is still held.
func (p *postProcessor) finish(emit Emit) error {
	p.langs.Finish()
	return p.release(emit)
}

func (p *postProcessor) release(emit Emit) error {
	batch := p.pending
	p.pending = nil
	for i := range batch {
		if err := p.emit(&batch[i], emit); err != nil {
			return err
		}
	}
	return nil
}

// emit finishes one element's metadata and passes it on.
func (p *postProcessor) emit(e *element.Element, emit Emit) error {
	p.langs.Assign(e)
	m := &e.Metadata
	hashName := m.Filename // attachments are hashed with their own name
	if hashName == "" {
		hashName = p.filename
	}
	m.Filename = p.filename
	if m.Filetype == "" {
		m.Filetype = p.filetype
	}
	if p.opts.UniqueElementIDs {
		e.ID = newUUID()
	} else {
		e.ID = p.ids.Next(hashName, e)
	}
	p.tree.Add(e)
	if !p.opts.Coordinates {
		m.Coordinates = nil
	}
	if p.noTableHTML && e.Type == element.Table {
		m.TextAsHTML = ""
	}
	m.LastModified, m.FileDirectory, m.DetectionClassProb = "", "", nil
	return emit(*e)
}
