// Package wordproc is the word-processing document model shared by the DOCX and ODT partitioners,
// and the one path that turns it into elements. The model is the slice of WordprocessingML the
// reference's python-docx based partitioner looks at, nothing more; ODT documents are translated
// into it (formats/odt) as the reference converts ODT to DOCX before partitioning, so both
// formats type paragraphs, render tables and number pages the same way.
//
// Paragraph types come from numbering, paragraph styles and the text rules (package classify);
// tables become one Table element with compact HTML; bold and italic runs become emphasis
// metadata, external hyperlinks links; page numbers come from rendered page breaks.
package wordproc

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
)

// Partition emits the elements of a parsed document: per section its header, body blocks and
// footer (the body alone for a section-less document).
func Partition(ctx context.Context, d *Document, opts contract.Options, emit contract.Emit) error {
	if len(d.Damaged) > 0 {
		contract.Logger(ctx).Warn("docx: damaged parts read as far as possible; the rest is kept", "parts", strings.Join(d.Damaged, "; "))
	}
	start := opts.Int(contract.KeyStartingPageNumber, 1)
	if start == 0 {
		start = 1
	}
	e := &emitter{ctx: ctx, doc: d, emit: emit, page: 1, start: start,
		breaks: opts.Bool(contract.KeyIncludePageBreaks, false)}
	if len(d.Sections) == 0 {
		return e.blocks(d.Body)
	}
	for i := range d.Sections {
		if err := e.section(i, &d.Sections[i]); err != nil {
			return err
		}
	}
	return nil
}

type emitter struct {
	ctx    context.Context
	doc    *Document
	emit   contract.Emit
	page   int // 1-based; the engine shifts by the starting page number
	start  int // starting page number, for odd/even section starts
	breaks bool
	n      int
}

func (e *emitter) pageNumber() *int {
	if !e.doc.HasRenderedPageBreaks {
		return nil
	}
	return element.Int(e.page)
}

func (e *emitter) nextPage() error {
	e.page++
	if e.breaks {
		return e.emit(element.Element{Type: element.PageBreak})
	}
	return nil
}

func (e *emitter) section(idx int, s *Section) error {
	// A section that must start on an even (odd) page needs a second page break when the
	// previous one ended on an even (odd) page; the rendered break that follows supplies
	// the first.
	odd := (e.page+e.start-1)%2 == 1
	switch s.StartType {
	case "evenPage":
		if !odd {
			if err := e.nextPage(); err != nil {
				return err
			}
		}
	case "oddPage":
		if idx > 0 && odd {
			if err := e.nextPage(); err != nil {
				return err
			}
		}
	}
	if err := e.headerFooter(element.Header, s.Headers, s.TitlePage); err != nil {
		return err
	}
	if err := e.blocks(s.Blocks); err != nil {
		return err
	}
	return e.headerFooter(element.Footer, s.Footers, s.TitlePage)
}

func (e *emitter) headerFooter(typ element.Type, parts map[string]*HeaderFooter, titlePg bool) error {
	kinds := []struct{ kind, name string }{{"default", "primary"}}
	if titlePg {
		kinds = append(kinds, struct{ kind, name string }{"first", "first_page"})
	}
	if e.doc.EvenAndOddHeaders {
		kinds = append(kinds, struct{ kind, name string }{"even", "even_page"})
	}
	for _, k := range kinds {
		hf := parts[k.kind]
		if hf == nil {
			continue
		}
		var texts []string
		for _, b := range hf.Blocks {
			if t := strings.Join(cellTexts([]Block{b}, nil), " "); t != "" {
				texts = append(texts, t)
			}
		}
		if len(texts) == 0 {
			continue
		}
		el := element.Element{Type: typ, Text: strings.Join(texts, "\n")}
		el.Metadata.HeaderFooterType = k.name
		el.Metadata.CategoryDepth = element.Int(0)
		if err := e.emit(el); err != nil {
			return err
		}
	}
	return nil
}

func (e *emitter) blocks(blocks []Block) error {
	for _, b := range blocks {
		e.n++
		if e.n&255 == 0 {
			if err := e.ctx.Err(); err != nil {
				return err
			}
		}
		var err error
		switch {
		case b.P != nil:
			err = e.paragraph(b.P)
		case b.T != nil:
			err = e.table(b.T)
		default:
			err = e.imported(b.Imported)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Text is the paragraph's text: its runs and hyperlinks concatenated.
func (p *Paragraph) Text() string {
	if len(p.Items) == 1 {
		return p.Items[0].Text
	}
	var b strings.Builder
	for _, it := range p.Items {
		b.WriteString(it.Text)
	}
	return b.String()
}

// fragments splits the paragraph at its rendered page breaks.
func (p *Paragraph) fragments() [][]Inline {
	var out [][]Inline
	var cur []Inline
	for _, it := range p.Items {
		if len(it.PageBreakAt) == 0 {
			cur = append(cur, it)
			continue
		}
		prev := 0
		for _, at := range it.PageBreakAt {
			if at > prev {
				part := it
				part.Text, part.PageBreakAt = it.Text[prev:at], nil
				cur = append(cur, part)
			}
			out = append(out, cur)
			cur = nil
			prev = at
		}
		if prev < len(it.Text) {
			part := it
			part.Text, part.PageBreakAt = it.Text[prev:], nil
			cur = append(cur, part)
		}
	}
	return append(out, cur)
}

func (e *emitter) paragraph(p *Paragraph) error {
	frags := p.fragments()
	for i, items := range frags {
		if i > 0 {
			if err := e.nextPage(); err != nil {
				return err
			}
		}
		frag := &Paragraph{StyleID: p.StyleID, HasNumPr: p.HasNumPr, ILvl: p.ILvl, HasILvl: p.HasILvl, Items: items}
		if err := e.fragment(frag); err != nil {
			return err
		}
	}
	return nil
}

// styleTypes is the reference's paragraph-style map.
var styleTypes = map[string]element.Type{
	"Caption": element.UncategorizedText, "Intense Quote": element.UncategorizedText,
	"Macro Text": element.UncategorizedText, "No Spacing": element.UncategorizedText,
	"Quote":    element.UncategorizedText,
	"Subtitle": element.Title, "TOCHeading": element.Title, "Title": element.Title,
	"List": element.ListItem, "List 2": element.ListItem, "List 3": element.ListItem,
	"List Bullet": element.ListItem, "List Bullet 2": element.ListItem, "List Bullet 3": element.ListItem,
	"List Continue": element.ListItem, "List Continue 2": element.ListItem, "List Continue 3": element.ListItem,
	"List Number": element.ListItem, "List Number 2": element.ListItem, "List Number 3": element.ListItem,
	"List Paragraph": element.ListItem,
}

func init() {
	for i := 1; i <= 9; i++ {
		styleTypes["Heading "+strconv.Itoa(i)] = element.Title
	}
}

func (e *emitter) styleName(p *Paragraph) string {
	if name, ok := e.doc.Styles[p.StyleID]; ok && p.StyleID != "" && name != "" {
		return name
	}
	if e.doc.DefaultStyle != "" {
		return e.doc.DefaultStyle
	}
	return "Normal"
}

// depthFromStyle is the reference's category depth for a style name: the trailing number of
// heading and list styles minus one, Subtitle 1, else 0.
func depthFromStyle(name string) int {
	trailing := func() int {
		f := strings.Fields(name)
		if len(f) == 0 {
			return 0
		}
		n, err := strconv.Atoi(f[len(f)-1])
		if err != nil || n < 0 || strings.ContainsAny(f[len(f)-1], "+-") {
			return 0
		}
		return n - 1
	}
	switch {
	case strings.HasPrefix(name, "Heading"), strings.HasPrefix(name, "List"):
		return trailing()
	case name == "Subtitle":
		return 1
	}
	return 0
}

func (e *emitter) fragment(p *Paragraph) error {
	text := p.Text()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	el := element.Element{Text: text}
	m := &el.Metadata
	style := e.styleName(p)
	if p.HasILvl {
		m.CategoryDepth = element.Int(p.ILvl)
	} else {
		m.CategoryDepth = element.Int(max(depthFromStyle(style), 0))
	}
	m.EmphasizedTextContents, m.EmphasizedTextTags = emphasis(p.Items)
	m.Links, m.LinkTexts, m.LinkURLs = links(p.Items)
	m.PageNumber = e.pageNumber()

	switch {
	case classify.IsBulleted(text) || p.HasNumPr:
		el.Type = element.ListItem
		el.Text = strings.TrimSpace(classify.CleanBullet(text))
		if el.Text == "" {
			return nil
		}
	default:
		if t, ok := styleTypes[style]; ok {
			el.Type = t
			break
		}
		stripped := strings.TrimSpace(text)
		if utf8.RuneCountInString(stripped) < 2 {
			el.Type = element.UncategorizedText
			break
		}
		el.Type, _ = classify.Paragraph(stripped)
	}
	return e.emit(el)
}

// emphasis lists bold and italic run texts (direct runs only, as python-docx's
// Paragraph.runs does not look into hyperlinks).
func emphasis(items []Inline) (contents, tags []string) {
	for _, it := range items {
		if it.Kind != KindRun {
			continue
		}
		t := strings.TrimSpace(it.Text)
		if t == "" {
			continue
		}
		if it.Bold {
			contents, tags = append(contents, t), append(tags, "b")
		}
		if it.Italic {
			contents, tags = append(contents, t), append(tags, "i")
		}
	}
	return contents, tags
}

// links lists external hyperlinks with their character offsets in the paragraph text.
func links(items []Inline) (ls []element.Link, texts, urls []string) {
	offset := 0
	for _, it := range items {
		n := utf8.RuneCountInString(it.Text)
		if it.Kind == KindHyperlink && it.URL != "" && it.Text != "" {
			ls = append(ls, element.Link{Text: it.Text, URL: it.URL, StartIndex: offset})
			texts = append(texts, it.Text)
			urls = append(urls, it.URL)
		}
		offset += n
	}
	return ls, texts, urls
}

// tableTexts appends the stripped non-empty texts of t's cells, skipping the continuation
// cells of vertical merges and recursing into nested tables.
func tableTexts(t *Table, out []string) []string {
	for _, row := range t.Rows {
		for _, c := range row.Cells {
			if c.VMerge == "continue" {
				continue
			}
			out = cellTexts(c.Blocks, out)
		}
	}
	return out
}

func cellTexts(blocks []Block, out []string) []string {
	for _, b := range blocks {
		switch {
		case b.P != nil:
			if t := strings.TrimSpace(b.P.Text()); t != "" {
				out = append(out, t)
			}
		case b.T != nil:
			out = tableTexts(b.T, out)
		default:
			for _, el := range b.Imported {
				if t := strings.TrimSpace(el.Text); t != "" {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// imported emits elements another partitioner made of imported content, numbered with the
// document's current page; the outer pass gives them IDs and parents.
func (e *emitter) imported(els []element.Element) error {
	for _, el := range els {
		el.ID, el.Metadata.ParentID = "", ""
		el.Metadata.PageNumber = e.pageNumber()
		if err := e.emit(el); err != nil {
			return err
		}
	}
	return nil
}

const maxGridCols = 4096

// gridRows expands every row into its layout-grid cells the way python-docx's _Row.cells does:
// a horizontally spanned cell appears once per grid column it covers, and the continuation of
// a vertical merge repeats the cell above it. One pass, so long merged columns stay linear.
func gridRows(t *Table) [][]*Cell {
	out := make([][]*Cell, len(t.Rows))
	var prev map[int]*Cell // grid column → cell shown there in the previous row
	for ri := range t.Rows {
		cur := map[int]*Cell{}
		col := t.Rows[ri].GridBefore
		for ci := range t.Rows[ri].Cells {
			c := &t.Rows[ri].Cells[ci]
			span := max(c.GridSpan, 1)
			src := c
			if c.VMerge == "continue" {
				if above, ok := prev[col]; ok {
					src = above
				} else {
					src = &Cell{}
				}
			}
			if col+span > maxGridCols {
				// Word tables have at most 63 columns; a wider grid is hostile input.
				span = max(maxGridCols-col, 0)
			}
			for k := range span {
				out[ri] = append(out[ri], src)
				cur[col+k] = src
			}
			col += span
		}
		prev = cur
	}
	return out
}

// TableHTML renders t as compact HTML with one cell per layout-grid position.
func TableHTML(t *Table) string {
	var rows [][]element.Cell
	for _, cells := range gridRows(t) {
		if len(cells) == 0 {
			continue
		}
		row := make([]element.Cell, len(cells))
		for i, c := range cells {
			row[i].Text = strings.Join(strings.Fields(strings.Join(cellTexts(c.Blocks, nil), " ")), " ")
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return ""
	}
	return element.TableHTML(rows)
}

func (e *emitter) table(t *Table) error {
	el := element.Element{Type: element.Table, Text: strings.Join(tableTexts(t, nil), " ")}
	el.Metadata.TextAsHTML = TableHTML(t)
	el.Metadata.PageNumber = e.pageNumber()
	for _, cells := range gridRows(t) {
		for _, c := range cells {
			for _, b := range c.Blocks {
				if b.P != nil {
					ct, tg := emphasis(b.P.Items)
					el.Metadata.EmphasizedTextContents = append(el.Metadata.EmphasizedTextContents, ct...)
					el.Metadata.EmphasizedTextTags = append(el.Metadata.EmphasizedTextTags, tg...)
				}
			}
		}
	}
	return e.emit(el)
}
