// Package odt partitions OpenDocument text files (.odt). The reference converts ODT to DOCX
// with pandoc and partitions the result; this package reads content.xml directly and builds the
// word-processing model DOCX is read into (formats/internal/wordproc), reproducing what pandoc's
// conversion keeps: headings become "Heading N" paragraphs, list items numbered paragraphs with
// their nesting level, other paragraphs plain body text (white space collapsed), bold and italic
// spans emphasis, hyperlinks links, tables tables. Headers and footers are dropped, as pandoc
// drops them; notes follow the body (python-docx would lose them); the text in frames (image
// captions, text boxes, shapes, linked images' captions) follows the paragraph that anchors the
// frame, as pandoc keeps a figure's caption.
package odt

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/formats/internal/opc"
	"github.com/quarrydocs/quarry/formats/internal/wordproc"
	"github.com/quarrydocs/quarry/formats/internal/xmlwalk"
)

// MIME is the canonical ODT content type.
const MIME = "application/vnd.oasis.opendocument.text"

// Partitioner is the registered ODT partitioner.
type Partitioner struct{}

var _ contract.Partitioner = Partitioner{}

func init() {
	// An ODF archive names its type in its "mimetype" member, which detection reads.
	contract.RegisterFormat(contract.Format{Name: "odt", MIME: MIME, Extensions: []string{".odt"}, Container: true,
		Partitioner: Partitioner{}})
}

// Partition implements contract.Partitioner.
func (Partitioner) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	return Partition(ctx, doc.Content, doc.Size, opts, emit)
}

func errInvalid(err error) error { return opc.InvalidError("odt", err) }

// Partition partitions the ODT bytes in r.
func Partition(ctx context.Context, r io.ReaderAt, size int64, opts contract.Options, emit contract.Emit) error {
	d, err := Load(ctx, r, size)
	if err != nil {
		return err
	}
	return wordproc.Partition(ctx, d, opts, emit)
}

// Load reads an ODT package into the word-processing model shared with DOCX.
func Load(ctx context.Context, r io.ReaderAt, size int64) (*wordproc.Document, error) {
	pkg, err := opc.Open(r, size)
	if err != nil {
		return nil, errInvalid(err)
	}
	if !pkg.Has("content.xml") {
		return nil, errInvalid(fmt.Errorf("%w: content.xml", opc.ErrMissingPart))
	}
	st := styles{}
	if pkg.Has("styles.xml") {
		rc, err := pkg.OpenPart("styles.xml")
		if err != nil {
			return nil, wrapErr(err)
		}
		err = st.read(rc)
		rc.Close()
		if err != nil {
			return nil, wrapErr(fmt.Errorf("styles.xml: %w", err))
		}
	}
	rc, err := pkg.OpenPart("content.xml")
	if err != nil {
		return nil, wrapErr(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, wrapErr(err)
	}
	if err := st.read(strings.NewReader(string(data))); err != nil {
		return nil, wrapErr(fmt.Errorf("content.xml: %w", err))
	}
	b := &builder{Decoder: xmlwalk.NewDecoder(ctx, strings.NewReader(string(data))), styles: st}
	b.object = func(href string) []wordproc.Block { return chartObject(ctx, pkg, st, href) }
	body, err := b.document()
	if err != nil {
		return nil, wrapErr(fmt.Errorf("content.xml: %w", err))
	}
	return &wordproc.Document{Body: body, Styles: StyleNames(), DefaultStyle: "Normal"}, nil
}

// StyleNames are the display names of the paragraph styles the ODF readers give their
// paragraphs (the names pandoc's conversion gives them), which wordproc types by.
func StyleNames() map[string]string {
	names := map[string]string{}
	for i := 1; i <= 9; i++ {
		names["Heading"+strconv.Itoa(i)] = "Heading " + strconv.Itoa(i)
	}
	names["BodyText"] = "Body Text"
	names["Compact"] = "Compact"
	return names
}

func wrapErr(err error) error { return opc.WrapError("odt", "", err) }

// textStyle is the emphasis a named style gives, with its parent for inheritance.
type textStyle struct {
	bold, italic *bool
	parent       string
}

type styles map[string]*textStyle

// read collects style:style text properties from a styles or content part.
func (s styles) read(r io.Reader) error {
	dec := xml.NewDecoder(r)
	var cur *textStyle
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				name, _ := opc.Attr(t, "name")
				parent, _ := opc.Attr(t, "parent-style-name")
				cur = &textStyle{parent: parent}
				s[name] = cur
			case "text-properties":
				if cur == nil {
					continue
				}
				if w, ok := opc.Attr(t, "font-weight"); ok {
					b := w == "bold" || (len(w) == 3 && w >= "600")
					cur.bold = &b
				}
				if st, ok := opc.Attr(t, "font-style"); ok {
					i := st == "italic" || st == "oblique"
					cur.italic = &i
				}
			}
		case xml.EndElement:
			if t.Name.Local == "style" {
				cur = nil
			}
		}
	}
}

// emphasis resolves a style's bold and italic through its parents.
func (s styles) emphasis(name string) (bold, italic bool) {
	var b, i *bool
	for depth := 0; name != "" && depth < 32; depth++ {
		st, ok := s[name]
		if !ok {
			break
		}
		if b == nil {
			b = st.bold
		}
		if i == nil {
			i = st.italic
		}
		name = st.parent
	}
	return b != nil && *b, i != nil && *i
}

type builder struct {
	*xmlwalk.Decoder
	styles styles
	// float collects the blocks of frames met in the paragraph being read (image captions in
	// draw:text-box, text in shapes); they follow that paragraph.
	float []wordproc.Block
	// notes collects footnotes' and endnotes' blocks; they follow the body.
	notes []wordproc.Block
	// object returns the blocks of an embedded object (draw:object) by its link (nil:
	// objects are not read).
	object func(href string) []wordproc.Block
}

func (b *builder) document() ([]wordproc.Block, error) {
	for {
		se, err := b.Root("text")
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if se.Name.Space == nsOffice {
			blocks, err := b.blocks(0, -1)
			return append(blocks, b.notes...), err
		}
	}
}

const (
	nsOffice = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	nsText   = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	nsTable  = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	nsDraw   = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
)

// blocks reads block content until the current element ends. listLevel is the nesting of
// enclosing lists (-1 outside lists).
func (b *builder) blocks(depth, listLevel int) ([]wordproc.Block, error) {
	if depth > opc.MaxDepth {
		return nil, opc.ErrTooDeep
	}
	var out []wordproc.Block
	err := b.Children(func(t xml.StartElement) error {
		var add []wordproc.Block
		var err error
		switch {
		case t.Name.Space == nsText && (t.Name.Local == "p" || t.Name.Local == "h"):
			add, err = b.paragraphBlocks(t)
		case t.Name.Space == nsText && t.Name.Local == "list":
			add, err = b.list(depth+1, listLevel+1)
		case t.Name.Space == nsText && (t.Name.Local == "section" || t.Name.Local == "list-header"):
			add, err = b.blocks(depth+1, listLevel)
		case t.Name.Space == nsTable && t.Name.Local == "table":
			var tbl *wordproc.Table
			tbl, err = b.table(depth + 1)
			add = []wordproc.Block{{T: tbl}}
		case t.Name.Space == nsDraw:
			// A frame anchored to the page or paragraph rather than inside its text.
			outer := b.float
			b.float = nil
			err = b.drawing(depth + 1)
			add = b.float
			b.float = outer
		default:
			return b.Skip()
		}
		if err != nil {
			return err
		}
		out = append(out, add...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// list reads text:list; the first paragraph of each item is a numbered paragraph at the
// list's level (pandoc's rendering), further content follows as it is.
func (b *builder) list(depth, level int) ([]wordproc.Block, error) {
	if depth > opc.MaxDepth {
		return nil, opc.ErrTooDeep
	}
	var out []wordproc.Block
	err := b.Children(func(t xml.StartElement) error {
		if t.Name.Space != nsText || (t.Name.Local != "list-item" && t.Name.Local != "list-header") {
			return b.Skip()
		}
		inner, err := b.blocks(depth+1, level)
		if err != nil {
			return err
		}
		if len(inner) > 0 {
			if p := inner[0].P; p != nil && p.StyleID != "" && !p.HasNumPr && !strings.HasPrefix(p.StyleID, "Heading") {
				p.HasNumPr, p.HasILvl, p.ILvl = true, true, min(level, 8)
				p.StyleID = "Compact"
			}
		}
		out = append(out, inner...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// inlineState accumulates a paragraph's runs.
type inlineState struct {
	items []wordproc.Inline
}

func (s *inlineState) add(text string, bold, italic bool, url string, link bool) {
	if text == "" {
		return
	}
	kind := wordproc.KindRun
	if link {
		kind = wordproc.KindHyperlink
	}
	if n := len(s.items); n > 0 {
		last := &s.items[n-1]
		if last.Kind == kind && last.Bold == bold && last.Italic == italic && last.URL == url && (kind == wordproc.KindRun || link) {
			last.Text += text
			return
		}
	}
	s.items = append(s.items, wordproc.Inline{Kind: kind, Text: text, Bold: bold, Italic: italic, URL: url})
}

// paragraph reads a text:p or text:h; it returns the blocks of the frames inside it besides.
func (b *builder) paragraph() (*wordproc.Paragraph, []wordproc.Block, error) {
	outer := b.float
	b.float = nil
	defer func() { b.float = outer }()
	// Only spans carry emphasis: pandoc does not turn paragraph-style formatting into
	// inline bold or italic.
	st := &inlineState{}
	if err := b.inline(st, false, false, "", false, 0); err != nil {
		return nil, nil, err
	}
	collapse(st)
	return &wordproc.Paragraph{Items: st.items}, b.float, nil
}

// drawing reads a draw:* element (frame, image link draw:a, text box, shape, group) until it
// ends, collecting the paragraphs, lists and tables inside it into b.float: a captioned image
// is a frame whose text box holds the caption paragraph, a shape holds its text directly.
// Images themselves carry no text.
func (b *builder) drawing(depth int) error {
	if depth > opc.MaxDepth {
		return opc.ErrTooDeep
	}
	return b.Children(func(t xml.StartElement) error {
		var blocks []wordproc.Block
		var err error
		switch {
		case t.Name.Space == nsDraw && t.Name.Local == "text-box":
			blocks, err = b.blocks(depth+1, -1)
		case t.Name.Space == nsText && (t.Name.Local == "p" || t.Name.Local == "h"):
			// Text placed directly in a shape.
			blocks, err = b.paragraphBlocks(t)
		case t.Name.Space == nsText && t.Name.Local == "list":
			blocks, err = b.list(depth+2, 0)
		case t.Name.Space == nsTable && t.Name.Local == "table":
			// A table placed in a frame (how drawings and slides hold tables).
			var tbl *wordproc.Table
			tbl, err = b.table(depth + 1)
			blocks = []wordproc.Block{{T: tbl}}
		case t.Name.Space == nsDraw && t.Name.Local == "object" && b.object != nil:
			href, _ := opc.Attr(t, "href")
			blocks = b.object(href)
			err = b.Skip()
		case t.Name.Space == nsDraw:
			return b.drawing(depth + 1)
		default:
			return b.Skip()
		}
		b.float = append(b.float, blocks...)
		return err
	})
}

// paragraphBlocks reads a text:p or text:h whose start tag se has just been consumed: the
// paragraph, styled as pandoc's reader styles it, then the frames anchored in it.
func (b *builder) paragraphBlocks(se xml.StartElement) ([]wordproc.Block, error) {
	p, float, err := b.paragraph()
	if err != nil {
		return nil, err
	}
	if se.Name.Local == "h" {
		lvl := 1
		if v, ok := opc.Attr(se, "outline-level"); ok {
			if n, err := strconv.Atoi(v); err == nil && n >= 1 {
				lvl = min(n, 9)
			}
		}
		p.StyleID = "Heading" + strconv.Itoa(lvl)
	} else {
		p.StyleID = "BodyText"
	}
	return append([]wordproc.Block{{P: p}}, float...), nil
}

// inline reads mixed content until the current element ends.
func (b *builder) inline(st *inlineState, bold, italic bool, url string, link bool, depth int) error {
	if depth > opc.MaxDepth {
		return opc.ErrTooDeep
	}
	for {
		tok, err := b.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.CharData:
			st.add(string(t), bold, italic, url, link)
		case xml.StartElement:
			if t.Name.Space == nsDraw {
				if err := b.drawing(depth + 1); err != nil {
					return err
				}
				continue
			}
			if t.Name.Space != nsText {
				if err := b.Skip(); err != nil {
					return err
				}
				continue
			}
			switch t.Name.Local {
			case "span":
				name, _ := opc.Attr(t, "style-name")
				sb, si := b.styles.emphasis(name)
				if err := b.inline(st, bold || sb, italic || si, url, link, depth+1); err != nil {
					return err
				}
			case "a":
				href, _ := opc.Attr(t, "href")
				if err := b.inline(st, bold, italic, href, true, depth+1); err != nil {
					return err
				}
			case "s":
				n := 1
				if v, ok := opc.Attr(t, "c"); ok {
					if c, err := strconv.Atoi(v); err == nil && c > 0 {
						n = min(c, 1000)
					}
				}
				st.add(strings.Repeat(" ", n), bold, italic, url, link)
				if err := b.Skip(); err != nil {
					return err
				}
			case "tab":
				st.add(" ", bold, italic, url, link)
				if err := b.Skip(); err != nil {
					return err
				}
			case "line-break":
				st.add("\n", bold, italic, url, link)
				if err := b.Skip(); err != nil {
					return err
				}
			case "note":
				if err := b.note(depth + 1); err != nil {
					return err
				}
			case "bookmark", "bookmark-start", "bookmark-end", "soft-page-break",
				"reference-mark", "reference-mark-start", "reference-mark-end", "annotation", "annotation-end",
				// A phonetic guide's annotation (furigana) sits over its base text, which is
				// read as the line reads in print.
				"ruby-text":
				if err := b.Skip(); err != nil {
					return err
				}
			default:
				// Fields (dates, page numbers, references) and other wrappers: keep their text.
				if err := b.inline(st, bold, italic, url, link, depth+1); err != nil {
					return err
				}
			}
		case xml.EndElement:
			return nil
		}
	}
}

// note reads a text:note: its citation mark is not text; its body's blocks are kept aside in
// b.notes, to follow the document body (pandoc's DOCX keeps them as footnotes, which python-docx
// then loses; here they are text).
func (b *builder) note(depth int) error {
	return b.Children(func(t xml.StartElement) error {
		if t.Name.Space != nsText || t.Name.Local != "note-body" {
			return b.Skip()
		}
		blocks, err := b.blocks(depth+1, -1)
		b.notes = append(b.notes, blocks...)
		return err
	})
}

// collapse applies pandoc's inline white-space model: runs of spaces become one space, and
// white space at the start and end of the paragraph disappears; line breaks stay.
func collapse(st *inlineState) {
	prevSpace := true
	for i := range st.items {
		var b strings.Builder
		for _, r := range st.items[i].Text {
			if r == '\n' {
				b.WriteRune(r)
				prevSpace = true
				continue
			}
			if r == ' ' || r == '\t' || r == '\r' {
				if !prevSpace {
					b.WriteByte(' ')
				}
				prevSpace = true
				continue
			}
			b.WriteRune(r)
			prevSpace = false
		}
		st.items[i].Text = b.String()
	}
	// Trim the trailing space.
	for i := len(st.items) - 1; i >= 0; i-- {
		t := strings.TrimRight(st.items[i].Text, " ")
		st.items[i].Text = t
		if t != "" {
			break
		}
	}
	out := st.items[:0]
	for _, it := range st.items {
		if it.Text != "" {
			out = append(out, it)
		}
	}
	st.items = out
}

func (b *builder) table(depth int) (*wordproc.Table, error) {
	if depth > opc.MaxDepth {
		return nil, opc.ErrTooDeep
	}
	tbl := &wordproc.Table{}
	for {
		tok, err := b.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Space == nsTable && t.Name.Local == "table-row":
				row, err := b.row(depth)
				if err != nil {
					return nil, err
				}
				tbl.Rows = append(tbl.Rows, row)
			case t.Name.Space == nsTable && (t.Name.Local == "table-header-rows" || t.Name.Local == "table-rows" || t.Name.Local == "table-row-group"):
				// descend: rows inside are read by this loop
			default:
				if err := b.Skip(); err != nil {
					return nil, err
				}
			}
		case xml.EndElement:
			if t.Name.Space == nsTable && t.Name.Local == "table" {
				return tbl, nil
			}
		}
	}
}

func (b *builder) row(depth int) (wordproc.Row, error) {
	var row wordproc.Row
	err := b.Children(func(t xml.StartElement) error {
		if t.Name.Space != nsTable || t.Name.Local != "table-cell" {
			return b.Skip()
		}
		span := 1
		if v, ok := opc.Attr(t, "number-columns-spanned"); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 1 {
				span = min(n, 1000)
			}
		}
		blocks, err := b.blocks(depth, -1)
		if err != nil {
			return err
		}
		row.Cells = append(row.Cells, wordproc.Cell{GridSpan: span, Blocks: blocks})
		return nil
	})
	return row, err
}

const nsChart = "urn:oasis:names:tc:opendocument:xmlns:chart:1.0"

// chartObject reads an embedded chart (draw:object linking a sub-document such as
// "./Object 1"): its title, subtitle and axis titles as paragraphs, then the data it keeps
// (its local table) as a table, after the paragraph that anchors it. pandoc's conversion
// drops embedded objects, and with them a report's figures. Other objects (formulas, embedded
// spreadsheets) and damaged ones give nothing.
func chartObject(ctx context.Context, pkg *opc.Package, st styles, href string) []wordproc.Block {
	name := strings.TrimPrefix(strings.TrimPrefix(href, "./"), "/")
	if name == "" || strings.Contains(name, "..") || !pkg.Has(name+"/content.xml") {
		return nil
	}
	data, err := pkg.ReadPart(name + "/content.xml")
	if err != nil {
		return nil
	}
	sub := &builder{Decoder: xmlwalk.NewDecoder(ctx, strings.NewReader(string(data))), styles: st}
	if _, err := sub.Root("chart"); err != nil {
		return nil // not a chart
	}
	blocks, _ := sub.chartParts(0) // what was read before damage is kept
	return blocks
}

// chartParts collects a chart's titles and its local table, in document order.
func (b *builder) chartParts(depth int) ([]wordproc.Block, error) {
	if depth > opc.MaxDepth {
		return nil, opc.ErrTooDeep
	}
	var out []wordproc.Block
	err := b.Children(func(t xml.StartElement) error {
		switch {
		case t.Name.Space == nsChart && (t.Name.Local == "title" || t.Name.Local == "subtitle"):
			blocks, err := b.blocks(depth+1, -1)
			out = append(out, blocks...)
			return err
		case t.Name.Space == nsTable && t.Name.Local == "table":
			tbl, err := b.table(depth + 1)
			if tbl != nil {
				out = append(out, wordproc.Block{T: tbl})
			}
			return err
		case t.Name.Space == nsChart:
			inner, err := b.chartParts(depth + 1)
			out = append(out, inner...)
			return err
		}
		return b.Skip()
	})
	return out, err
}
