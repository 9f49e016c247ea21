// Package chunking groups partitioned elements into retrieval-sized chunks, following the
// reference system's rules (partition-api.md §10): basic, by_title, by_page and by_similarity.
// Every strategy is a function of the element list and Options alone; the output holds only
// CompositeElement, Table and TableChunk elements with empty IDs (the engine hashes chunk IDs
// after chunking, as the reference does).
//
// How a chunk is formed:
//   - Elements stream into a pre-chunk builder. A pre-chunk ends when a strategy boundary fires
//     (by_title: a Title, and a page change when multipage_sections is off; by_page: every page
//     change; by_similarity: two neighbouring texts whose embeddings are less similar than
//     similarity_threshold) or when the next element does not fit max_characters, or the pre-chunk
//     already exceeds new_after_n_chars. Tables are always isolated.
//   - by_title merges consecutive small pre-chunks (combine_text_under_n_chars).
//   - A text pre-chunk becomes one CompositeElement (texts whitespace-normalised, joined by a
//     blank line), or — when a single oversized element made it too long — several, cut at
//     newlines or spaces with `overlap` characters repeated; later pieces carry is_continuation.
//   - A table becomes one Table, or TableChunks whose text and compact HTML are cut on the same
//     row (or cell) boundaries, each a well-formed <table>, with the header rows repeated.
//
// by_page and by_similarity exist only in the reference's hosted service, which publishes no
// code; they are implemented from its documentation. by_similarity needs embeddings, which come
// from an Embedder: OpenAIEmbedder talks to any OpenAI-compatible /v1/embeddings endpoint, and
// HashEmbedder, the offline default, is a lexical (bag of words and character n-grams)
// approximation — see its documentation.
package chunking

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/quarrydocs/quarry/element"
)

// textSeparator joins element texts inside a chunk.
const textSeparator = "\n\n"

// Chunk groups elems into chunks with the strategy and limits of opts. An empty Strategy
// returns elems unchanged. The input is not modified.
func Chunk(ctx context.Context, elems []element.Element, opts Options) ([]element.Element, error) {
	r, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	if r.strategy == "" {
		return elems, nil
	}
	c := newChunker(elems, r)
	preds, err := c.boundaries(ctx)
	if err != nil {
		return nil, err
	}
	pres, err := c.preChunks(ctx, preds)
	if err != nil {
		return nil, err
	}
	if r.strategy == ByTitle {
		pres = c.combine(pres)
	}
	out := make([]element.Element, 0, len(pres))
	for i, p := range pres {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("chunking: %w", err)
			}
		}
		if p.table {
			out = c.tableChunks(out, p)
		} else {
			out = c.textChunks(out, p)
		}
		if c.opts.maxChunks > 0 && len(out) > c.opts.maxChunks {
			return nil, &TooManyChunksError{Max: c.opts.maxChunks}
		}
	}
	return out, nil
}

type chunker struct {
	opts resolved
	in   []element.Element
	// norm is each element's chunk text: whitespace collapsed (CodeSnippet verbatim); normLen
	// its length and rawLen the raw text's length, both in code points as the reference
	// measures them.
	norm    []string
	normLen []int
	rawLen  []int
	// orig holds every element's copy for orig_elements, made on first use; chunks share
	// sub-slices of it since pre-chunks are runs of consecutive elements.
	orig     []element.Element
	newTable func() string
}

func newChunker(elems []element.Element, r resolved) *chunker {
	c := &chunker{
		opts:     r,
		in:       elems,
		norm:     make([]string, len(elems)),
		normLen:  make([]int, len(elems)),
		rawLen:   make([]int, len(elems)),
		newTable: uuid.NewString,
	}
	for i := range elems {
		e := &elems[i]
		c.rawLen[i] = runeLen(e.Text)
		var t string
		if e.Type == element.CodeSnippet {
			if trimPy(e.Text) != "" {
				t = e.Text
			}
		} else {
			t = collapse(e.Text)
		}
		c.norm[i] = t
		if t != "" {
			c.normLen[i] = runeLen(t)
		}
	}
	return c
}

// origElements returns the elements lo…hi-1 as a chunk's orig_elements: copies without nested
// orig_elements (no recursion), with IDs replaced as Options describes. The result shares its
// backing array with other chunks' and must not be appended to.
func (c *chunker) origElements(lo, hi int) []element.Element {
	if c.orig == nil {
		c.orig = make([]element.Element, len(c.in))
		copy(c.orig, c.in)
		var ids []string
		remap := map[string]string{}
		if !c.opts.keepOrigIDs {
			ids = newUUIDs(len(c.in))
			for i := range c.in {
				if old := c.in[i].ID; old != "" {
					if _, dup := remap[old]; !dup {
						remap[old] = ids[i]
					}
				}
			}
		}
		for i := range c.orig {
			e := &c.orig[i]
			e.Metadata.OrigElements = nil
			if ids == nil {
				continue
			}
			e.ID = ids[i]
			if p := e.Metadata.ParentID; p != "" {
				// A parent outside this chunking call keeps no link: its hash could never
				// match the reference's random IDs anyway.
				e.Metadata.ParentID = remap[p]
			}
		}
	}
	return c.orig[lo:hi:hi]
}

func isTable(t element.Type) bool { return t == element.Table || t == element.TableChunk }

// preChunk is a run of consecutive elements that will become one or more chunks.
type preChunk struct {
	lo, hi int    // the elements lo…hi-1
	prefix string // overlap carried from the previous pre-chunk (text pre-chunks only)
	table  bool
	// hard marks a pre-chunk that starts on a boundary combining must respect (a new page
	// when sections may not span pages).
	hard bool
}

// textLen is the length of the pre-chunk's chunk text: prefix and non-empty normalised texts
// joined by the separator.
func (c *chunker) textLen(p *preChunk) int {
	n, segs := 0, 0
	if p.prefix != "" {
		n, segs = runeLen(p.prefix), 1
	}
	for i := p.lo; i < p.hi; i++ {
		if c.normLen[i] > 0 {
			n += c.normLen[i]
			segs++
		}
	}
	if segs > 1 {
		n += len(textSeparator) * (segs - 1)
	}
	return n
}

// text builds the pre-chunk's chunk text and reports whether any element contributed text.
func (c *chunker) text(p *preChunk) (string, bool) {
	var b strings.Builder
	hasText := false
	if p.prefix != "" {
		b.WriteString(p.prefix)
	}
	for i := p.lo; i < p.hi; i++ {
		t := c.norm[i]
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(textSeparator)
		}
		b.WriteString(t)
		hasText = true
	}
	return b.String(), hasText
}

// builder accumulates elements into a pre-chunk, measuring raw text lengths as the reference
// does (§10.2), so chunks can come out a little shorter than the window after normalisation.
type builder struct {
	c       *chunker
	lo, n   int // the pre-chunk so far is elements lo…lo+n-1
	prefix  string
	segs    int
	textLen int
	hard    bool
}

func (b *builder) fits(i int) bool {
	if b.n == 0 {
		return true
	}
	if isTable(b.c.in[i].Type) || isTable(b.c.in[b.lo].Type) {
		return false
	}
	cur := b.textLen
	if b.segs > 1 {
		cur += len(textSeparator) * (b.segs - 1)
	}
	if cur > b.c.opts.soft {
		return false
	}
	room := b.c.opts.hard - b.textLen - len(textSeparator)*b.segs
	return room >= b.c.rawLen[i]
}

func (b *builder) add(i int) {
	if b.n == 0 {
		b.lo = i
	}
	b.n++
	if b.c.rawLen[i] > 0 {
		b.segs++
		b.textLen += b.c.rawLen[i]
	}
}

func (b *builder) flush(out []preChunk) []preChunk {
	if b.n == 0 {
		return out
	}
	p := preChunk{lo: b.lo, hi: b.lo + b.n, prefix: b.prefix, table: isTable(b.c.in[b.lo].Type), hard: b.hard}
	tail := ""
	if p.table {
		// No overlap is carried into or out of a table.
		p.prefix = ""
	} else if n := b.c.opts.interOverlap; n > 0 {
		t, _ := b.c.text(&p)
		tail = trimPy(lastRunes(t, n))
	}
	out = append(out, p)
	b.n = 0
	b.hard = false
	b.prefix = tail
	b.segs, b.textLen = 0, 0
	if tail != "" {
		b.segs, b.textLen = 1, runeLen(tail)
	}
	return out
}

// predicate reports whether element i starts a new pre-chunk. Predicates keep state, so each
// is called once per element, in order.
type predicate func(i int) bool

// boundarySet is a strategy's predicates; hard ones also stop by_title's combining.
type boundarySet struct {
	soft, hard []predicate
}

func (c *chunker) boundaries(ctx context.Context) (boundarySet, error) {
	var bs boundarySet
	switch c.opts.strategy {
	case ByTitle:
		bs.soft = []predicate{func(i int) bool { return c.in[i].Type == element.Title }}
		if !c.opts.multipage {
			// Only pre-chunks break on pages: the reference's combining is size-based and
			// does merge a short page-end section with the next page's (the multi-column-2p
			// golden's fourth chunk holds text of pages 1 and 2), so this boundary is soft.
			bs.soft = append(bs.soft, c.pageChange())
		}
	case ByPage:
		bs.hard = []predicate{c.pageChange()}
	case BySimilarity:
		p, err := c.similarityBreaks(ctx)
		if err != nil {
			return bs, err
		}
		bs.soft = []predicate{p}
	}
	return bs, nil
}

// pageChange fires on an element whose page number differs from the current page: the first
// element sets the current page (none counts as 1), later elements without a page number
// continue the current page, and any different number — even a smaller one — is a new page.
func (c *chunker) pageChange() predicate {
	current, first := 1, true
	return func(i int) bool {
		pn := c.in[i].Metadata.PageNumber
		if first {
			first = false
			if pn != nil && *pn != 0 {
				current = *pn
			}
			return false
		}
		if pn == nil || *pn == current {
			return false
		}
		current = *pn
		return true
	}
}

func (c *chunker) preChunks(ctx context.Context, bs boundarySet) ([]preChunk, error) {
	b := &builder{c: c}
	var out []preChunk
	for i := range c.in {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("chunking: %w", err)
			}
		}
		boundary, hard := false, false
		for _, p := range bs.soft {
			if p(i) {
				boundary = true
			}
		}
		for _, p := range bs.hard {
			if p(i) {
				boundary, hard = true, true
			}
		}
		if boundary || !b.fits(i) {
			out = b.flush(out)
		}
		if hard {
			b.hard = true
		}
		b.add(i)
	}
	return b.flush(out), nil
}

// combine merges consecutive text pre-chunks (by_title, §10.3) while the accumulated text is
// shorter than combine_text_under_n_chars and the merged text still fits max_characters.
func (c *chunker) combine(pres []preChunk) []preChunk {
	if c.opts.combine == 0 {
		return pres
	}
	out := pres[:0:0]
	var acc *preChunk
	accLen := 0
	flush := func() {
		if acc != nil {
			out = append(out, *acc)
			acc = nil
		}
	}
	for k := range pres {
		p := pres[k]
		if p.table {
			flush()
			out = append(out, p)
			continue
		}
		if acc != nil {
			addLen := c.textLen(&preChunk{lo: p.lo, hi: p.hi})
			merged := accLen
			if addLen > 0 {
				if merged > 0 {
					merged += len(textSeparator)
				}
				merged += addLen
			}
			if !p.hard && accLen < c.opts.combine && merged <= c.opts.hard {
				acc.hi = p.hi
				accLen = merged
				continue
			}
			flush()
		}
		cp := p
		acc = &cp
		accLen = c.textLen(acc)
	}
	flush()
	return out
}

// textChunks forms the CompositeElements of a text pre-chunk (§10.4).
func (c *chunker) textChunks(out []element.Element, p preChunk) []element.Element {
	text, hasText := c.text(&p)
	if !hasText {
		// Only text-less elements (page breaks, images…): nothing to retrieve. The reference
		// would emit a chunk made of the overlap prefix alone here; that chunk would only
		// duplicate text already in its neighbour.
		return out
	}
	md := c.consolidate(p.lo, p.hi)
	if c.opts.includeOrig {
		md.OrigElements = c.origElements(p.lo, p.hi)
	}
	if runeLen(text) <= c.opts.hard {
		return append(out, element.Element{Type: element.CompositeElement, Text: text, Metadata: md})
	}
	sp := splitter{max: c.opts.hard, overlap: c.opts.overlap, most: c.opts.maxChunks}
	for k, piece := range sp.splitAll(text) {
		m := md
		m.IsContinuation = k > 0
		out = append(out, element.Element{Type: element.CompositeElement, Text: piece, Metadata: m})
	}
	return out
}

// newUUIDs returns n random (version 4) UUIDs, drawing the randomness in one read.
func newUUIDs(n int) []string {
	buf := make([]byte, 16*n)
	if _, err := rand.Read(buf); err != nil {
		// crypto/rand does not fail on supported platforms; fall back to the library anyway.
		out := make([]string, n)
		for i := range out {
			out[i] = uuid.NewString()
		}
		return out
	}
	out := make([]string, n)
	for i := range out {
		b := buf[16*i : 16*i+16]
		b[6] = b[6]&0x0f | 0x40 // version 4
		b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
		u, _ := uuid.FromBytes(b)
		out[i] = u.String()
	}
	return out
}
