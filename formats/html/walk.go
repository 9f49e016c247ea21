package html

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	nethtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
)

// kind is the role an element plays in the reference's parser (its element-class map).
type kind uint8

const (
	kPhrasing        kind = iota // inline content: its text joins the surrounding paragraph
	kFlow                        // container: runs of inline content between blocks are paragraphs
	kList                        // ol, ul: a container counted for list-item depth
	kHeading                     // h1–h6: first run is a Title
	kListItem                    // li: first run is a ListItem
	kPre                         // CodeSnippet
	kTable                       // one Table
	kImage                       // one Image
	kRemovedBlock                // dropped with its content; breaks the paragraph
	kRemovedPhrasing             // dropped with its content; text around it joins
	kStripped                    // removed from the tree before parsing (its text vanishes)
	kBreak                       // br: a line break inside inline content
	kAnchor                      // a: link metadata
	kBold                        // b, strong
	kItalic                      // i, em
)

func kindOf(n *nethtml.Node) kind {
	if n.Namespace != "" {
		// SVG and MathML: drawing labels and formula markup, not document text.
		return kStripped
	}
	switch n.DataAtom {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body, atom.Center, atom.Div,
		atom.Footer, atom.Header, atom.Hgroup, atom.Main, atom.Section, atom.P:
		return kFlow
	// Deliberate difference: the reference drops definition lists, figures and disclosure
	// widgets with their content. They hold document text — glossaries, API references, the
	// field and definition lists pandoc makes of reStructuredText and Markdown, captions — so
	// here each term, definition, caption or summary is a paragraph of its own.
	case atom.Dt, atom.Dd, atom.Details, atom.Summary, atom.Figure, atom.Figcaption:
		return kFlow
	case atom.Ol, atom.Ul, atom.Dl:
		return kList
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return kHeading
	case atom.Li:
		return kListItem
	case atom.Pre:
		return kPre
	case atom.Table:
		return kTable
	case atom.Img:
		return kImage
	case atom.Form:
		// Deliberate difference: the reference drops every form with its content. A form
		// that holds document structure — paragraphs, headings, tables, lists — is a page
		// wrapped in one (ASP.NET WebForms pages put the whole body in <form runat=server>;
		// so do survey and report portals): dropping it empties the document. Such a form is
		// a container; its controls are dropped as before. A form of controls alone (login,
		// search) stays dropped.
		if holdsDocumentText(n) {
			return kFlow
		}
		return kRemovedBlock
	case atom.Nav, atom.Hr, atom.Template, atom.Input:
		return kRemovedBlock
	case atom.Button, atom.Label:
		return kRemovedPhrasing
	case atom.Del, atom.Link, atom.Meta, atom.Noscript, atom.Script, atom.Style:
		return kStripped
	case atom.Rt, atom.Rp:
		// A ruby annotation (furigana, pinyin) and its fallback parentheses sit over the base
		// text; read inline they split every annotated word (漢かん字じ). The base is the text.
		return kStripped
	case atom.Br:
		return kBreak
	case atom.A:
		return kAnchor
	case atom.B, atom.Strong:
		return kBold
	case atom.I, atom.Em:
		return kItalic
	case atom.Abbr, atom.Bdi, atom.Bdo, atom.Big, atom.Cite, atom.Code, atom.Data, atom.Dfn,
		atom.Kbd, atom.Mark, atom.Meter, atom.Q, atom.S, atom.Samp, atom.Small, atom.Span,
		atom.Strike, atom.Sub, atom.Sup, atom.Time, atom.Tt, atom.U, atom.Var, atom.Wbr:
		return kPhrasing
	}
	// Deliberate difference: the reference drops the content of every tag missing from its map
	// (<font>, <ix:nonNumeric>, custom elements, …) and keeps only the text after it. Quarry
	// treats such tags as transparent inline content (or as a container when they hold blocks),
	// so that text is not lost.
	return kPhrasing
}

// holdsDocumentText reports whether n has a paragraph, heading, table or list among its
// descendants outside the controls, navigation and inert content that are dropped anyway.
func holdsDocumentText(n *nethtml.Node) bool {
	stack := []*nethtml.Node{n.FirstChild}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for ; c != nil; c = c.NextSibling {
			if c.Type != nethtml.ElementNode || c.Namespace != "" {
				continue
			}
			switch c.DataAtom {
			case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Table, atom.Ul, atom.Ol,
				atom.Dl, atom.Article, atom.Main, atom.Blockquote, atom.Pre:
				return true
			case atom.Nav, atom.Template, atom.Button, atom.Label, atom.Select, atom.Textarea,
				atom.Script, atom.Style, atom.Noscript:
				continue
			}
			if c.FirstChild != nil {
				stack = append(stack, c.FirstChild)
			}
		}
	}
	return false
}

// isBlock reports whether a kind starts its own element (or is dropped as a block).
func isBlock(k kind) bool {
	switch k {
	case kFlow, kList, kHeading, kListItem, kPre, kTable, kImage, kRemovedBlock:
		return true
	}
	return false
}

// frame is one open container in the iterative walk.
type frame struct {
	n         *nethtml.Node
	next      *nethtml.Node
	k         kind
	listDepth int // number of ol/ul/dl elements enclosing n
	page      *int
	run       int // index of the current inline run (0 = the run before any block child)
	acc       accumulator
}

// accumulator gathers one run of inline content and its annotations.
type accumulator struct {
	raw       strings.Builder
	emContent []string
	emTags    []string
	linkTexts []string
	linkURLs  []string
}

func (a *accumulator) reset() {
	a.raw.Reset()
	a.emContent, a.emTags, a.linkTexts, a.linkURLs = nil, nil, nil, nil
}

func (a *accumulator) text(s, emphasis string) {
	a.raw.WriteString(s)
	if emphasis != "" {
		if t := normalizeSpace(s); t != "" {
			a.emContent = append(a.emContent, t)
			a.emTags = append(a.emTags, emphasis)
		}
	}
}

type walker struct {
	ctx   context.Context
	emit  contract.Emit
	block map[*nethtml.Node]bool // inline-looking elements that contain blocks act as containers
	steps int
}

func newWalker(ctx context.Context, emit contract.Emit) *walker {
	return &walker{ctx: ctx, emit: emit}
}

func (w *walker) tick() error {
	w.steps++
	if w.steps&1023 == 0 {
		return w.ctx.Err()
	}
	return nil
}

// markBlocks records which elements behave as blocks: block kinds, and inline elements
// (anchors, spans, unknown tags) that contain a block somewhere inside. One post-order pass,
// without recursion, so nesting depth costs no stack.
func (w *walker) markBlocks(root *nethtml.Node) {
	w.block = map[*nethtml.Node]bool{}
	var order []*nethtml.Node
	stack := []*nethtml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, n)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == nethtml.ElementNode {
				stack = append(stack, c)
			}
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		k := kindOf(n)
		switch {
		case k == kStripped || k == kRemovedPhrasing || k == kBreak:
		case isBlock(k):
			w.block[n] = true
		default:
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == nethtml.ElementNode && w.block[c] {
					w.block[n] = true
					break
				}
			}
		}
	}
}

// effectiveKind is kindOf, except that inline elements containing blocks act as containers.
func (w *walker) effectiveKind(n *nethtml.Node) kind {
	k := kindOf(n)
	switch k {
	case kPhrasing, kAnchor, kBold, kItalic:
		if w.block[n] {
			return kFlow
		}
	}
	return k
}

func (w *walker) run(body *nethtml.Node) error {
	w.markBlocks(body)
	stack := []*frame{w.newFrame(body, kFlow, 0, pageOf(body, nil))}
	for len(stack) > 0 {
		if err := w.tick(); err != nil {
			return err
		}
		f := stack[len(stack)-1]
		c := f.next
		if c == nil {
			if err := w.flush(f); err != nil {
				return err
			}
			stack = stack[:len(stack)-1]
			continue
		}
		f.next = c.NextSibling
		switch c.Type {
		case nethtml.TextNode:
			f.acc.text(c.Data, "")
			continue
		case nethtml.ElementNode:
		default:
			continue
		}
		k := w.effectiveKind(c)
		if !isBlock(k) {
			if err := w.inline(c, &f.acc, ""); err != nil {
				return err
			}
			continue
		}
		// A block child ends the current inline run.
		if err := w.flush(f); err != nil {
			return err
		}
		f.run++
		page := pageOf(c, f.page)
		var err error
		switch k {
		case kTable:
			err = w.table(c, page)
		case kImage:
			err = w.image(c, page)
		case kRemovedBlock:
		default:
			depth := f.listDepth
			if f.k == kList {
				depth++
			}
			stack = append(stack, w.newFrame(c, k, depth, page))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) newFrame(n *nethtml.Node, k kind, listDepth int, page *int) *frame {
	if n.DataAtom == atom.Dl {
		k = kList
	}
	return &frame{n: n, next: n.FirstChild, k: k, listDepth: listDepth, page: page}
}

// pageOf returns the page number from a data-page-number attribute on n, else inherited.
func pageOf(n *nethtml.Node, inherited *int) *int {
	for _, a := range n.Attr {
		if a.Key == "data-page-number" && a.Namespace == "" {
			if v, err := strconv.Atoi(strings.TrimSpace(a.Val)); err == nil {
				return element.Int(v)
			}
		}
	}
	return inherited
}

// inline adds the text of an inline element and its descendants to acc, with the emphasis of
// its b/i ancestors inside the run.
func (w *walker) inline(n *nethtml.Node, acc *accumulator, emphasis string) error {
	type item struct {
		n        *nethtml.Node
		emphasis string
	}
	stack := []item{{n, emphasis}}
	for len(stack) > 0 {
		if err := w.tick(); err != nil {
			return err
		}
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch it.n.Type {
		case nethtml.TextNode:
			acc.text(it.n.Data, it.emphasis)
			continue
		case nethtml.ElementNode:
		default:
			continue
		}
		em := it.emphasis
		switch kindOf(it.n) {
		case kStripped, kRemovedPhrasing, kRemovedBlock:
			continue
		case kBreak:
			acc.raw.WriteByte('\n')
			continue
		case kAnchor:
			if err := w.anchor(it.n, acc, em); err != nil {
				return err
			}
			continue
		case kBold:
			em = addEmphasis(em, 'b')
		case kItalic:
			em = addEmphasis(em, 'i')
		}
		// Children pushed in reverse so they pop in document order.
		for c := it.n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, item{c, em})
		}
	}
	return nil
}

// anchor adds a link's content like any inline content (emphasis inside it is recorded) and
// records the link: its whole text, normalised, with its href.
func (w *walker) anchor(n *nethtml.Node, acc *accumulator, emphasis string) error {
	var inner accumulator
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if err := w.inline(c, &inner, emphasis); err != nil {
			return err
		}
	}
	raw := inner.raw.String()
	acc.raw.WriteString(raw)
	if href, _ := attr(n, "href"); href != "" {
		if t := normalizeSpace(raw); t != "" {
			acc.linkTexts = append(acc.linkTexts, t)
			acc.linkURLs = append(acc.linkURLs, href)
		}
	}
	acc.emContent = append(acc.emContent, inner.emContent...)
	acc.emTags = append(acc.emTags, inner.emTags...)
	return nil
}

// addEmphasis combines emphasis letters sorted and without repeats ("b" + "i" → "bi").
func addEmphasis(em string, c byte) string {
	if strings.IndexByte(em, c) >= 0 {
		return em
	}
	if em == "" {
		return string(c)
	}
	if c < em[0] {
		return string(c) + em
	}
	return em + string(c)
}

// flush turns the frame's current inline run into an element.
func (w *walker) flush(f *frame) error {
	defer f.acc.reset()
	if f.k == kPre {
		return w.flushPre(f)
	}
	text := normalizeSpace(f.acc.raw.String())
	if text == "" {
		return nil
	}
	var typ element.Type
	var depth *int
	switch {
	case f.run == 0 && f.k == kHeading:
		typ = element.Title
		depth = element.Int(int(f.n.Data[1] - '1'))
	case f.run == 0 && f.k == kListItem:
		// The list item's own text keeps any bullet character, as the reference's does.
		typ = element.ListItem
		depth = element.Int(f.listDepth)
	case classify.IsBulleted(text):
		typ = element.ListItem
		text = classify.CleanBullet(strings.TrimSpace(text))
		depth = element.Int(0)
		if f.k == kListItem {
			depth = element.Int(f.listDepth)
		}
	default:
		if utf8.RuneCountInString(text) < 2 {
			return nil
		}
		typ, text = classify.Paragraph(text)
	}
	if text == "" {
		return nil
	}
	return w.emit(w.newElement(typ, text, depth, f))
}

// flushPre emits a CodeSnippet with the text as written, minus one leading and one trailing
// newline (as a browser shows it; the parser has already dropped a newline directly after the
// <pre> tag, this drops one that follows, say, a leading <code>).
func (w *walker) flushPre(f *frame) error {
	text := f.acc.raw.String()
	text = strings.TrimPrefix(text, "\n")
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return w.emit(w.newElement(element.CodeSnippet, text, nil, f))
}

func (w *walker) newElement(typ element.Type, text string, depth *int, f *frame) element.Element {
	e := element.Element{Type: typ, Text: text}
	e.Metadata.PageNumber = f.page
	e.Metadata.CategoryDepth = depth
	e.Metadata.EmphasizedTextContents = f.acc.emContent
	e.Metadata.EmphasizedTextTags = f.acc.emTags
	e.Metadata.LinkTexts = f.acc.linkTexts
	e.Metadata.LinkURLs = f.acc.linkURLs
	return e
}

// image emits an Image for an <img> with a source (data-src before src): its alt text, and
// the URL, or the MIME type and payload of a base64 data: URL of an image type.
func (w *walker) image(n *nethtml.Node, page *int) error {
	src, _ := attr(n, "data-src")
	src = pyStrip(src)
	if src == "" {
		s, _ := attr(n, "src")
		src = pyStrip(s)
	}
	if src == "" {
		return nil
	}
	alt, _ := attr(n, "alt")
	e := element.Element{Type: element.Image, Text: pyStrip(alt)}
	e.Metadata.PageNumber = page
	e.Metadata.ImageURL = src
	if m := dataImageURL.FindStringSubmatch(src); m != nil && m[2] != "" {
		e.Metadata.ImageMIMEType = m[1]
		e.Metadata.ImageBase64 = m[2]
		e.Metadata.ImageURL = ""
	}
	return w.emit(e)
}

var dataImageURL = regexp.MustCompile(`^data:(image/[^;]+);base64,(.*)`)

func attr(n *nethtml.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val, true
		}
	}
	return "", false
}
