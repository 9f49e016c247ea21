package docx

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/internal/opc"
	"github.com/quarrydocs/quarry/formats/internal/wordproc"
	"github.com/quarrydocs/quarry/formats/internal/xmlwalk"
)

// sectProps are the parts of w:sectPr the partitioner needs.
type sectProps struct {
	startType string
	titlePg   bool
	headers   map[string]string // kind → relationship ID
	footers   map[string]string
}

// readContentControls makes block-level content controls (w:sdt, as Word uses for cover
// pages, tables of contents and templated tables) and custom-XML blocks contribute their
// paragraphs and tables. python-docx, and so the reference, skips them and loses that
// content; set it to false for strict parity.
const readContentControls = true

// parser walks one WordprocessingML part with a streaming decoder. It follows python-docx's
// view of the XML: only direct w:r and w:hyperlink children of a paragraph carry its text, and
// only w:p and w:tbl children of a container are blocks (tracked insertions are not read, as
// the reference does not read them). Beyond the reference, text boxes in shapes are read (see
// shapes) and so are content controls (see readContentControls).
type parser struct {
	*xmlwalk.Decoder
	rels    map[string]opc.Rel
	body    bool // parsing the main document body (rendered page breaks count)
	lrpb    bool // a rendered page break was seen where the reference looks for one
	bodySec *sectProps
	// breaks maps each body paragraph that ends a section (a w:sectPr in its w:pPr) to that
	// section's properties.
	breaks map[*wordproc.Paragraph]*sectProps
	nest   int // content-control nesting
	// float collects the blocks of text boxes (DrawingML wps:txbx, VML v:textbox) met in
	// the paragraph being read; they follow that paragraph, where its anchor sits.
	float []wordproc.Block
	depth int // table depth of the paragraph being read
	// diagram returns the text of a SmartArt diagram by the relationship ID of its data
	// part (nil: diagrams are not read).
	diagram func(rid string) []wordproc.Block
	// chunk returns the elements of an imported chunk (w:altChunk) by the relationship ID
	// of its part (nil: chunks are not read).
	chunk func(rid string) []element.Element
	// chart returns the titles and data table of a chart by the relationship ID of its part
	// (nil: charts are not read).
	chart func(rid string) []wordproc.Block
}

func newParser(ctx context.Context, r io.Reader, rels map[string]opc.Rel) *parser {
	return &parser{Decoder: xmlwalk.NewDecoder(ctx, r), rels: rels}
}

// blocks reads the w:p and w:tbl children of the current element until its end tag.
// depth counts table nesting. On an error it returns the blocks read before it too, so that a
// damaged part keeps its readable beginning.
func (p *parser) blocks(depth int) ([]wordproc.Block, error) {
	var out []wordproc.Block
	err := p.Children(func(t xml.StartElement) error {
		switch t.Name.Local {
		case "p":
			para, float, err := p.paragraph(depth)
			if err != nil {
				return err
			}
			out = append(out, wordproc.Block{P: para})
			out = append(out, float...)
			return nil
		case "tbl":
			tbl, err := p.table(depth + 1)
			if err != nil {
				return err
			}
			out = append(out, wordproc.Block{T: tbl})
			return nil
		case "sdt", "sdtContent", "customXml":
			if !readContentControls {
				return p.Skip()
			}
			// Block-level content controls wrap ordinary paragraphs and tables; their
			// content is read in place (see readContentControls).
			if p.nest++; p.nest > opc.MaxDepth {
				return opc.ErrTooDeep
			}
			inner, err := p.blocks(depth)
			p.nest--
			out = append(out, inner...)
			return err
		case "altChunk":
			out = append(out, p.altChunk(t)...)
		case "sectPr":
			if p.body && depth == 0 {
				sp, err := p.sectPr()
				if err != nil {
					return err
				}
				p.bodySec = sp
				return nil
			}
		}
		return p.Skip()
	})
	return out, err
}

// paragraph reads a w:p; it returns the blocks of the text boxes anchored in it besides.
func (p *parser) paragraph(depth int) (*wordproc.Paragraph, []wordproc.Block, error) {
	outerFloat, outerDepth := p.float, p.depth
	p.float, p.depth = nil, depth
	defer func() { p.float, p.depth = outerFloat, outerDepth }()
	para := &wordproc.Paragraph{}
	if err := p.items(para, depth); err != nil {
		return nil, p.float, err
	}
	return para, p.float, nil
}

// readInlineWrappers makes runs inside inline wrappers count: tracked insertions (w:ins,
// w:moveTo, shown by Word until rejected), simple fields (w:fldSimple: a cross-reference's or
// date's shown text), smart tags, inline content controls and custom XML. python-docx reads
// only a paragraph's direct runs and loses that text; deleted text (w:del, w:moveFrom) stays
// out, as Word shows it once changes are accepted.
const readInlineWrappers = true

// items reads the children of a paragraph, or of an inline wrapper inside one, into para
// until the element ends.
func (p *parser) items(para *wordproc.Paragraph, depth int) error {
	return p.Children(func(t xml.StartElement) error {
		var in wordproc.Inline
		var err error
		switch t.Name.Local {
		case "pPr":
			return p.pPr(para, depth)
		case "r":
			in, err = p.run()
		case "hyperlink":
			in, err = p.hyperlink(t)
		case "AlternateContent":
			return p.shapes(t)
		case "ins", "moveTo", "fldSimple", "smartTag", "sdt", "sdtContent", "customXml", "dir", "bdo":
			if !readInlineWrappers {
				return p.Skip()
			}
			if p.nest++; p.nest > opc.MaxDepth {
				return opc.ErrTooDeep
			}
			err := p.items(para, depth)
			p.nest--
			return err
		default:
			return p.Skip()
		}
		if err != nil {
			return err
		}
		if len(in.PageBreakAt) > 0 && p.body && depth <= 1 {
			p.lrpb = true
		}
		para.Items = append(para.Items, in)
		return nil
	})
}

func (p *parser) pPr(para *wordproc.Paragraph, depth int) error {
	return p.Children(func(t xml.StartElement) error {
		switch t.Name.Local {
		case "pStyle":
			para.StyleID, _ = opc.Attr(t, "val")
		case "numPr":
			return p.numPr(para)
		case "sectPr":
			sp, err := p.sectPr()
			if err != nil {
				return err
			}
			if p.body && depth == 0 {
				if p.breaks == nil {
					p.breaks = map[*wordproc.Paragraph]*sectProps{}
				}
				p.breaks[para] = sp
			}
			return nil
		}
		return p.Skip()
	})
}

func (p *parser) numPr(para *wordproc.Paragraph) error {
	children := 0
	err := p.Children(func(t xml.StartElement) error {
		children++
		if t.Name.Local == "ilvl" {
			if v, ok := opc.Attr(t, "val"); ok {
				para.HasILvl = true
				para.ILvl, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		return p.Skip()
	})
	// The reference tests for the literal "<w:numPr>" in the paragraph XML, which an empty
	// <w:numPr/> does not contain.
	para.HasNumPr = para.HasNumPr || (err == nil && children > 0)
	return err
}

func (p *parser) sectPr() (*sectProps, error) {
	sp := &sectProps{startType: "nextPage", headers: map[string]string{}, footers: map[string]string{}}
	err := p.Children(func(t xml.StartElement) error {
		switch t.Name.Local {
		case "type":
			if v, ok := opc.Attr(t, "val"); ok {
				sp.startType = v
			}
		case "titlePg":
			v, ok := opc.Attr(t, "val")
			sp.titlePg = opc.OnOff(v, ok)
		case "headerReference", "footerReference":
			kind, _ := opc.Attr(t, "type")
			if kind == "" {
				kind = "default"
			}
			id, _ := opc.Attr(t, "id")
			if t.Name.Local == "headerReference" {
				sp.headers[kind] = id
			} else {
				sp.footers[kind] = id
			}
		}
		return p.Skip()
	})
	if err != nil {
		return nil, err
	}
	return sp, nil
}

// run reads a w:r, translating its content to text the way python-docx's Run.text does.
func (p *parser) run() (wordproc.Inline, error) {
	in := wordproc.Inline{Kind: wordproc.KindRun}
	var b strings.Builder
	err := p.Children(func(t xml.StartElement) error {
		switch t.Name.Local {
		case "rPr":
			return p.rPr(&in)
		case "t":
			s, err := p.text()
			b.WriteString(s)
			return err
		case "tab", "ptab":
			b.WriteByte('\t')
		case "br":
			if v, ok := opc.Attr(t, "type"); !ok || v == "textWrapping" {
				b.WriteByte('\n')
			}
		case "cr":
			b.WriteByte('\n')
		case "noBreakHyphen":
			b.WriteByte('-')
		case "sym":
			font, _ := opc.Attr(t, "font")
			code, _ := opc.Attr(t, "char")
			if r, ok := symbolRune(font, code); ok {
				b.WriteRune(r)
			}
		case "lastRenderedPageBreak":
			in.PageBreakAt = append(in.PageBreakAt, b.Len())
		case "drawing", "pict", "object", "AlternateContent":
			return p.shapes(t)
		case "ruby":
			return p.ruby(&b)
		}
		return p.Skip()
	})
	in.Text = b.String()
	return in, err
}

// ruby writes the base text of a phonetic guide (w:ruby, furigana over Japanese or pinyin over
// Chinese) to b and leaves its annotation (w:rt) out, as the line reads in print. python-docx
// reads no ruby, so the reference loses the annotated characters themselves.
func (p *parser) ruby(b *strings.Builder) error {
	return p.Children(func(t xml.StartElement) error {
		if t.Name.Local != "rubyBase" {
			return p.Skip()
		}
		return p.Children(func(t xml.StartElement) error {
			if t.Name.Local != "r" {
				return p.Skip()
			}
			if p.nest++; p.nest > opc.MaxDepth {
				return opc.ErrTooDeep
			}
			r, err := p.run()
			p.nest--
			b.WriteString(r.Text)
			return err
		})
	})
}

// shapes reads the text boxes inside a drawing, VML picture or alternate content (shapes,
// grouped shapes, canvases) into p.float, in document order. Of mc:AlternateContent only the
// first choice that holds text is read: the fallback is the same shape's VML copy. python-docx
// (and so the reference) reads no text box, losing what documents put in shapes and boxes.
func (p *parser) shapes(se xml.StartElement) error {
	if p.nest++; p.nest > opc.MaxDepth {
		return opc.ErrTooDeep
	}
	defer func() { p.nest-- }()
	alternate := se.Name.Local == "AlternateContent"
	found := false
	return p.Children(func(t xml.StartElement) error {
		switch {
		case t.Name.Local == "txbxContent":
			if p.nest++; p.nest > opc.MaxDepth {
				return opc.ErrTooDeep
			}
			blocks, err := p.blocks(p.depth + 1)
			p.nest--
			if err != nil {
				return err
			}
			p.float = append(p.float, blocks...)
			return nil
		case alternate && found:
			return p.Skip()
		case t.Name.Local == "chart" && p.chart != nil:
			// A chart: its titles and cached data live in the chart part.
			if rid, ok := opc.Attr(t, "id"); ok {
				p.float = append(p.float, p.chart(rid)...)
			}
			return p.Skip()
		case t.Name.Local == "relIds" && p.diagram != nil:
			// SmartArt: its text lives in the diagram's data part.
			if rid, ok := opc.Attr(t, "dm"); ok {
				p.float = append(p.float, p.diagram(rid)...)
			}
			return p.Skip()
		}
		n := len(p.float)
		if err := p.shapes(t); err != nil {
			return err
		}
		found = alternate && len(p.float) > n
		return nil
	})
}

func (p *parser) rPr(in *wordproc.Inline) error {
	return p.Children(func(t xml.StartElement) error {
		switch t.Name.Local {
		case "b":
			v, ok := opc.Attr(t, "val")
			in.Bold = opc.OnOff(v, ok)
		case "i":
			v, ok := opc.Attr(t, "val")
			in.Italic = opc.OnOff(v, ok)
		}
		return p.Skip()
	})
}

// text returns the character data of the current element.
func (p *parser) text() (string, error) {
	var b strings.Builder
	for {
		tok, err := p.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			b.Write(t)
		case xml.StartElement:
			if err := p.Skip(); err != nil {
				return "", err
			}
		case xml.EndElement:
			return b.String(), nil
		}
	}
}

func (p *parser) hyperlink(se xml.StartElement) (wordproc.Inline, error) {
	in := wordproc.Inline{Kind: wordproc.KindHyperlink}
	rid, _ := opc.Attr(se, "id")
	anchor, _ := opc.Attr(se, "anchor")
	if rid != "" {
		if rel, ok := p.rels[rid]; ok {
			in.URL = rel.Target
			if anchor != "" {
				in.URL += "#" + anchor
			}
		}
	}
	var b strings.Builder
	brk := false
	err := p.Children(func(t xml.StartElement) error {
		if t.Name.Local != "r" {
			return p.Skip()
		}
		r, err := p.run()
		if err != nil {
			return err
		}
		b.WriteString(r.Text)
		brk = brk || len(r.PageBreakAt) > 0
		return nil
	})
	if err != nil {
		return in, err
	}
	in.Text = b.String()
	if brk {
		// python-docx keeps a hyperlink whole: a page break inside it falls after it.
		in.PageBreakAt = []int{len(in.Text)}
	}
	return in, nil
}

func (p *parser) table(depth int) (*wordproc.Table, error) {
	if depth > opc.MaxDepth {
		return nil, opc.ErrTooDeep
	}
	tbl := &wordproc.Table{}
	err := p.Children(func(t xml.StartElement) error {
		if t.Name.Local != "tr" {
			return p.Skip()
		}
		row, err := p.row(depth)
		if err != nil {
			return err
		}
		tbl.Rows = append(tbl.Rows, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return tbl, nil
}

func (p *parser) row(depth int) (wordproc.Row, error) {
	var row wordproc.Row
	err := p.Children(func(t xml.StartElement) error {
		switch t.Name.Local {
		case "trPr":
			return p.trPr(&row)
		case "tc":
			c, err := p.cell(depth)
			if err != nil {
				return err
			}
			row.Cells = append(row.Cells, c)
			return nil
		}
		return p.Skip()
	})
	return row, err
}

func (p *parser) trPr(row *wordproc.Row) error {
	return p.Children(func(t xml.StartElement) error {
		if t.Name.Local == "gridBefore" {
			v, _ := opc.Attr(t, "val")
			row.GridBefore, _ = strconv.Atoi(v)
			row.GridBefore = min(max(row.GridBefore, 0), 1000)
		}
		return p.Skip()
	})
}

func (p *parser) cell(depth int) (wordproc.Cell, error) {
	c := wordproc.Cell{GridSpan: 1}
	err := p.Children(func(t xml.StartElement) error {
		switch t.Name.Local {
		case "tcPr":
			return p.tcPr(&c)
		case "p":
			para, float, err := p.paragraph(depth)
			if err != nil {
				return err
			}
			c.Blocks = append(c.Blocks, wordproc.Block{P: para})
			c.Blocks = append(c.Blocks, float...)
			return nil
		case "tbl":
			tbl, err := p.table(depth + 1)
			if err != nil {
				return err
			}
			c.Blocks = append(c.Blocks, wordproc.Block{T: tbl})
			return nil
		case "altChunk":
			c.Blocks = append(c.Blocks, p.altChunk(t)...)
		}
		return p.Skip()
	})
	return c, err
}

// altChunk reads an imported chunk: content kept in another format (HTML, a web archive, text,
// RTF, a DOCX) that Word converts when it opens the file, as generators write it ("export to
// Word" from web pages, document assembly). python-docx skips it, so such a document read empty.
func (p *parser) altChunk(t xml.StartElement) []wordproc.Block {
	rid, ok := opc.Attr(t, "id")
	if !ok || p.chunk == nil {
		return nil
	}
	if els := p.chunk(rid); len(els) > 0 {
		return []wordproc.Block{{Imported: els}}
	}
	return nil
}

func (p *parser) tcPr(c *wordproc.Cell) error {
	return p.Children(func(t xml.StartElement) error {
		switch t.Name.Local {
		case "gridSpan":
			v, _ := opc.Attr(t, "val")
			if n, err := strconv.Atoi(v); err == nil && n > 1 {
				// A span wider than any real table is hostile; keep the matrix bounded.
				c.GridSpan = min(n, 1000)
			}
		case "vMerge":
			v, ok := opc.Attr(t, "val")
			if !ok || v == "" {
				v = "continue"
			}
			c.VMerge = v
		}
		return p.Skip()
	})
}

// body is what parseBody reads from the main document part.
type body struct {
	blocks []wordproc.Block
	// breaks maps the paragraphs that end a section to that section's properties.
	breaks map[*wordproc.Paragraph]*sectProps
	// final is the body's own w:sectPr, the last section's properties (nil when absent).
	final *sectProps
	// lrpb: the body holds rendered page breaks where the reference looks for them.
	lrpb bool
}

// parseBody parses the main document part. On error the blocks read before it are kept.
func parseBody(ctx context.Context, r io.Reader, rels map[string]opc.Rel, diagram, chart func(string) []wordproc.Block, chunk func(string) []element.Element) (body, error) {
	p := newParser(ctx, r, rels)
	p.diagram, p.chart, p.chunk = diagram, chart, chunk
	p.body = true
	if _, err := p.Root("body"); err != nil {
		if errors.Is(err, io.EOF) {
			return body{}, fmt.Errorf("no w:body")
		}
		return body{}, err
	}
	blocks, err := p.blocks(0)
	return body{blocks: blocks, breaks: p.breaks, final: p.bodySec, lrpb: p.lrpb}, err
}

// parseHeaderFooter parses a header or footer part (w:hdr / w:ftr).
func parseHeaderFooter(ctx context.Context, r io.Reader) (*wordproc.HeaderFooter, error) {
	p := newParser(ctx, r, nil)
	if _, err := p.Root("hdr", "ftr"); err != nil {
		if errors.Is(err, io.EOF) {
			return &wordproc.HeaderFooter{}, nil
		}
		return nil, err
	}
	blocks, err := p.blocks(0)
	if err != nil {
		return nil, err
	}
	return &wordproc.HeaderFooter{Blocks: blocks}, nil
}

// parseNotes reads a footnotes or endnotes part (w:footnotes / w:endnotes): the blocks of each
// note in part order, the separator notes Word keeps there aside.
func parseNotes(ctx context.Context, r io.Reader) ([]wordproc.Block, error) {
	p := newParser(ctx, r, nil)
	if _, err := p.Root("footnotes", "endnotes"); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	var out []wordproc.Block
	err := p.Children(func(t xml.StartElement) error {
		if t.Name.Local != "footnote" && t.Name.Local != "endnote" {
			return p.Skip()
		}
		if typ, _ := opc.Attr(t, "type"); typ != "" && typ != "normal" {
			return p.Skip() // separator, continuationSeparator, continuationNotice
		}
		blocks, err := p.blocks(0)
		if len(blocks) > 0 && blocks[0].P != nil {
			// The space Word puts after the note's reference mark.
			items := blocks[0].P.Items
			for i := range items {
				if items[i].Text = strings.TrimLeft(items[i].Text, " \t"); items[i].Text != "" {
					break
				}
			}
		}
		out = append(out, blocks...)
		return err
	})
	return out, err
}

// builtinStyleNames are python-docx's translations of Word's internal lower-case names of
// built-in styles to the names shown in Word's user interface.
var builtinStyleNames = map[string]string{
	"caption": "Caption", "footer": "Footer", "header": "Header",
	"heading 1": "Heading 1", "heading 2": "Heading 2", "heading 3": "Heading 3",
	"heading 4": "Heading 4", "heading 5": "Heading 5", "heading 6": "Heading 6",
	"heading 7": "Heading 7", "heading 8": "Heading 8", "heading 9": "Heading 9",
}

// parseStyles reads paragraph style names from styles.xml.
func parseStyles(data []byte) (map[string]string, string, error) {
	var doc struct {
		Styles []struct {
			Type    string `xml:"type,attr"`
			ID      string `xml:"styleId,attr"`
			Default string `xml:"default,attr"`
			Name    struct {
				Val string `xml:"val,attr"`
			} `xml:"name"`
		} `xml:"style"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, "", fmt.Errorf("parse styles: %w", err)
	}
	names := map[string]string{}
	def := ""
	for _, s := range doc.Styles {
		if s.Type != "paragraph" && s.Type != "" {
			continue
		}
		name := s.Name.Val
		if ui, ok := builtinStyleNames[name]; ok {
			name = ui
		}
		names[s.ID] = name
		if opc.OnOff(s.Default, s.Default != "") && s.Default != "" && def == "" {
			def = name
		}
	}
	return names, def, nil
}

// parseSettings reports w:evenAndOddHeaders.
func parseSettings(data []byte) bool {
	var doc struct {
		EvenOdd *struct {
			Val *string `xml:"val,attr"`
		} `xml:"evenAndOddHeaders"`
	}
	if xml.Unmarshal(data, &doc) != nil || doc.EvenOdd == nil {
		return false
	}
	if doc.EvenOdd.Val == nil {
		return true
	}
	return opc.OnOff(*doc.EvenOdd.Val, true)
}

// diagramText reads a SmartArt data part into paragraphs (opc.DiagramText).
func diagramText(data []byte) []wordproc.Block {
	var out []wordproc.Block
	for _, text := range opc.DiagramText(data) {
		out = append(out, wordproc.Block{P: &wordproc.Paragraph{Items: []wordproc.Inline{{Kind: wordproc.KindRun, Text: text}}}})
	}
	return out
}
