// Package layout lays out born-digital PDF pages from their own geometry, without rendering
// and without a model: the text lines and boxes of package pdf (pdfminer's model), the page's
// vector graphics and image placements. It cuts boxes into blocks, orders blocks, figures and
// tables by XY-cut (gutters make columns, full-width headings and figures cut the page into
// bands), types blocks the way a layout model labels regions (titles from font size and
// weight relative to the page's body text and from the text rules, headers and footers from
// the page's top and bottom bands and repetition across pages, page numbers, captions,
// narrative text), finds pictures (image placements and dense vector drawings) and tables
// (package layout/tables), and returns elements with coordinates.
//
// The hi_res and auto strategies use it on every page whose text layer is usable; Usable says
// which pages are.
package layout

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/layout/tables"
	"github.com/quarrydocs/quarry/pdf"
)

// Options set what the layout emits.
type Options struct {
	// TableHTML sets text_as_html on tables (table-structure inference asked for). Tables are
	// found either way, as the reference's hi_res emits Table elements without it too.
	TableHTML bool
	// ImageData, when not nil, is asked for the bytes of pictures whose element type is
	// listed in ExtractTypes (extract_image_block_types); it returns the MIME type and base64.
	ImageData    func(im pdf.Image) (mime, b64 string, ok bool)
	ExtractTypes map[element.Type]bool
}

// Doc lays out the pages of one document in order. Running heads and feet are text repeated
// in the top or bottom band across the document's pages, so their types are settled with a
// look-ahead: Add lays a page out and holds its elements until LookAhead more pages have been
// added (Ready hands them on) or the document ends (Finish) — the first pages' heads are
// recognised by the pages after them. A Doc is used by one goroutine.
type Doc struct {
	opts Options
	// bands counts the pages on which each candidate text for a running head or foot occurs
	// (runKey, over every page added: a few entries a page).
	bands map[string]int
	sizes map[float64]int
	// pageTop and pageBottom are the top of the current page's first text and the bottom of
	// its last (top-left space).
	pageTop, pageBottom float64
	// held are the pages laid out whose running heads are not settled yet.
	held []*heldPage
	// heads are the positions of running heads and feet found repeated on settled pages.
	heads []runPos
	added int
}

// New returns a Doc.
func New(opts Options) *Doc {
	return &Doc{opts: opts, bands: map[string]int{}, sizes: map[float64]int{}}
}

// box is a rectangle in top-left page space (y grows downwards), the space of elements'
// coordinates.
type box struct{ x0, y0, x1, y1 float64 }

func (b box) w() float64 { return b.x1 - b.x0 }
func (b box) h() float64 { return b.y1 - b.y0 }
func (b box) union(o box) box {
	return box{math.Min(b.x0, o.x0), math.Min(b.y0, o.y0), math.Max(b.x1, o.x1), math.Max(b.y1, o.y1)}
}
func (b box) contains(x, y float64) bool { return x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1 }
func (b box) overlaps(o box) bool        { return b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1 }

// tline is a text line of the flow.
type tline struct {
	text string
	b    box
	size float64 // median glyph size
	bold bool
	// turned is set for lines of glyphs not upright (a rotated margin note, a turned label).
	turned bool
	// mark is set when the line starts with a small raised digit or symbol (an affiliation or
	// footnote mark): such a line starts an item of its own.
	mark bool
	// bullet is set when the line opens with a bullet drawn as a shape (markDrawnBullets): it
	// starts an item of its own.
	bullet bool
	// glyphs counts the line's visible glyphs, math those of a math font or mathematical in
	// themselves (tables.MathFont, tables.MathRune), letters the other letters (a text
	// font's): display formulas are found by them.
	glyphs, math, letters int
}

// region is an element-to-be.
type region struct {
	typ   element.Type
	text  string
	b     box
	lines []tline
	html  string
	img   *pdf.Image
}

// glyphSource is a glyph list with pdfminer's boxes over it: the page's own, or those of the
// glyphs inside Form XObjects, which pdfminer keeps apart as figures.
type glyphSource struct {
	glyphs []pdf.Glyph
	boxes  []*pdf.TextBox
	drop   []bool
}

// Params are the reading parameters of a page to lay out: base (pdfminer's knobs) with the page
// geometry and without the box grouping, which the layout does not use (it groups lines
// itself) and which is quadratic on long runs of aligned lines, and with substitute widths
// for glyphs whose font declares none (pdf.LAParams.SubstituteWidths: pdfminer lays them out
// as no text at all).
func Params(base pdf.LAParams) pdf.LAParams {
	base.LinesOnly = true
	base.NoGeometry = false
	base.SubstituteWidths = true
	return base
}

// maxPictureWords is the most text a picture takes as its own (labels, a chart's axes).
const maxPictureWords = 80

// Picture describes an Image element of a page: Element indexes the elements returned, the
// box is in PDF points from the page's top-left corner, and Raster is set for a placed image
// (PixW × PixH samples) as against a vector drawing.
type Picture struct {
	Element        int
	X0, Y0, X1, Y1 float64
	Raster         bool
	PixW, PixH     int
}

// Page lays out one page read by package pdf (with Params) and settles its running heads and
// feet at once, against the pages laid out before it only: for callers that need each page's
// elements before the next page is read. Add, Ready and Finish settle them against the pages
// after it too. It fails only when ctx is done.
func (d *Doc) Page(ctx context.Context, p *pdf.Page) ([]element.Element, error) {
	hp, err := d.layPage(ctx, p)
	if err != nil {
		return nil, err
	}
	d.settle(hp, false)
	return hp.Elements, nil
}

// layPage lays out a page and counts its band texts.
func (d *Doc) layPage(ctx context.Context, p *pdf.Page) (hp *heldPage, err error) {
	// The layout runs in the serving process: a bug met on some input ends this page's
	// request with an error naming the page, never the process.
	defer func() {
		if r := recover(); r != nil {
			hp, err = nil, fmt.Errorf("layout: page %d: internal error: %v", p.Number, r)
		}
	}()
	els, pics, cands, retypes, err := d.page(ctx, p)
	if err != nil {
		return nil, err
	}
	hp = &heldPage{Laid: Laid{Number: p.Number, Elements: els, Pictures: pics, Width: p.Width, Height: p.Height}, cands: cands, retypes: retypes}
	d.count(hp)
	return hp, nil
}

func (d *Doc) page(ctx context.Context, p *pdf.Page) ([]element.Element, []Picture, []runCand, []retype, error) {
	// Text turned by the content stream (a landscape table, a booklet sheet) is laid out as a
	// reader turns the sheet; left as it is, its lines fall apart into single letters.
	p.TurnUpright(Params(pdf.DefaultLAParams()))
	H := p.Height
	toBox := func(x0, y0, x1, y1 float64) box { return box{x0, H - y1, x1, H - y0} }

	srcs := []*glyphSource{{glyphs: p.Glyphs, boxes: p.Boxes}}
	if fg := figureGlyphs(p); len(fg) > 0 {
		srcs = append(srcs, &glyphSource{glyphs: fg, boxes: pdf.Analyze(fg, p.Width, p.Height, Params(pdf.DefaultLAParams()))})
	}
	for _, s := range srcs {
		s.drop = hiddenGlyphs(s.glyphs)
	}
	slanted := slantedLines(p, srcs)
	srcs = append(srcs, turnedSources(p, srcs)...)

	// Tables first: their words leave the text flow.
	var regions []region
	tbls, err := d.findTables(ctx, p, srcs)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var taken []box
	for _, t := range tbls {
		b := toBox(t.Box.X0, t.Box.Y0, t.Box.X1, t.Box.Y1)
		r := region{typ: element.Table, text: t.Text(), b: b}
		if d.opts.TableHTML {
			r.html = t.HTML()
		}
		regions = append(regions, r)
		taken = append(taken, b)
	}
	// Pictures: images and vector drawings; the text on them (labels, a chart's axes) is
	// theirs, unless the picture is a page background under running text. Their boxes are
	// not taken from the text flow (only tables' are): the words over a picture must reach
	// the blocks below to be given to it or kept as text, never dropped with it.
	for _, f := range figures(p, taken) {
		b := toBox(f.b.x0, f.b.y0, f.b.x1, f.b.y1)
		regions = append(regions, region{typ: element.Image, b: b, img: f.img})
	}

	lines := append(joinJustified(d.flowLines(p, srcs, taken)), slanted...)
	markDrawnBullets(lines, &p.Geometry, H)
	body := d.bodySize(lines)
	blocks := formulas(buildBlocks(joinLabels(lines, H), body), body)
	// Text inside a picture becomes the picture's text, when the picture holds little text: a
	// drawing or image under running text is a background, not a picture with labels.
	// A picture over half the page (a decorative frame, a full-page drawing) is a background
	// whatever the amount of text on it: its words stay text.
	inPicture := make([]int, len(blocks))
	words := make([]int, len(regions))
	for k, bl := range blocks {
		inPicture[k] = -1
		cx, cy := (bl.b.x0+bl.b.x1)/2, (bl.b.y0+bl.b.y1)/2
		for i := range regions {
			if regions[i].typ == element.Image && regions[i].b.contains(cx, cy) && regions[i].b.w()*regions[i].b.h() <= 0.5*p.Width*p.Height {
				inPicture[k] = i
				words[i] += len(strings.Fields(bl.text))
				break
			}
		}
	}
	var keep []region
	for k, bl := range blocks {
		if in := inPicture[k]; in >= 0 && words[in] <= maxPictureWords {
			regions[in].text = strings.TrimSpace(regions[in].text + " " + bl.text)
			continue
		}
		keep = append(keep, bl)
	}
	blocks = keep

	d.pageTop, d.pageBottom = math.Inf(1), math.Inf(-1)
	for _, bl := range blocks {
		d.pageTop, d.pageBottom = math.Min(d.pageTop, bl.b.y0), math.Max(d.pageBottom, bl.b.y1)
	}
	// Filled form fields' values are drawn by their widgets' appearance streams, not the
	// page's content: each is a block of its own (fast does the same), or a filled form would
	// come out as its blank labels.
	for _, fd := range p.Fields {
		t := strings.Join(strings.Fields(fd.Value), " ")
		if t == "" {
			continue
		}
		typ, _ := classify.Text(t)
		blocks = append(blocks, region{typ: typ, text: t, b: toBox(fd.X0, fd.Y0, fd.X1, fd.Y1)})
	}
	all := append(blocks, regions...)
	order := xyCut(all, gutterWidth(body), body, pageRules(p, 3*gutterWidth(body)))
	out := make([]element.Element, 0, len(all))
	var pics []Picture
	var cands []runCand
	var numbers []box
	var retypes []retype
	for _, i := range order {
		r := &all[i]
		var c *runCand
		if r.typ == "" {
			r.typ, c = d.blockType(r, p, body)
			if r.typ != element.PageNumber && strings.TrimSpace(r.text) != "" {
				retypes = append(retypes, d.retypeOf(r, len(out), body))
			}
		}
		if strings.TrimSpace(r.text) == "" && r.typ != element.Image {
			continue
		}
		if c != nil {
			c.elem = len(out)
			cands = append(cands, *c)
		}
		if r.typ == element.PageNumber {
			numbers = append(numbers, r.b)
		}
		if r.typ == element.Image {
			pic := Picture{Element: len(out), X0: r.b.x0, Y0: r.b.y0, X1: r.b.x1, Y1: r.b.y1}
			if r.img != nil {
				pic.Raster, pic.PixW, pic.PixH = true, r.img.PixW, r.img.PixH
			}
			pics = append(pics, pic)
		}
		out = append(out, d.toElement(r, p))
	}
	markBeside(cands, numbers, H)
	if len(out) == 0 && p.HasText() {
		// Never a silently empty page: fall back to pdfminer's boxes as they are.
		for _, tb := range p.Boxes {
			t := strings.Join(strings.Fields(tb.Text()), " ")
			if t == "" {
				continue
			}
			typ, _ := classify.Text(t)
			r := region{typ: typ, text: t, b: toBox(tb.X0, tb.Y0, tb.X1, tb.Y1)}
			out = append(out, d.toElement(&r, p))
		}
	}
	return out, pics, cands, retypes, ctx.Err()
}

func (d *Doc) toElement(r *region, p *pdf.Page) element.Element {
	b := r.b
	m := element.Metadata{
		PageNumber: element.Int(p.Number),
		Coordinates: &element.Coordinates{
			Points: []element.Point{{b.x0, b.y0}, {b.x0, b.y1}, {b.x1, b.y1}, {b.x1, b.y0}},
			System: "PixelSpace", LayoutWidth: p.Width, LayoutHeight: p.Height,
		},
		TextAsHTML: r.html,
	}
	if r.typ != element.Image {
		m.IsExtracted = "true"
	}
	if d.opts.ImageData != nil && d.opts.ExtractTypes[r.typ] && r.img != nil {
		if mime, b64, ok := d.opts.ImageData(*r.img); ok {
			m.ImageBase64, m.ImageMIMEType = b64, mime
		}
	}
	return element.Element{Type: r.typ, Text: r.text, Metadata: m}
}

// figureGlyphs collects the glyphs drawn inside Form XObjects (kept apart by pdfminer).
func figureGlyphs(p *pdf.Page) []pdf.Glyph {
	var out []pdf.Glyph
	for _, f := range p.Figures {
		for _, it := range f.Items {
			if it.Glyph != nil {
				out = append(out, *it.Glyph)
			}
		}
	}
	return out
}

// hiddenGlyphs marks glyphs a reader does not see: invisible ones (an OCR layer), ones the
// clip hides (unless the clip would hide every glyph: a clip read wrongly must not empty a
// page) and the second copy of text drawn twice with a small offset for fake bold.
func hiddenGlyphs(gs []pdf.Glyph) []bool {
	drop := make([]bool, len(gs))
	clipped := 0
	for i := range gs {
		if gs[i].Clipped {
			clipped++
		}
	}
	honourClip := clipped < len(gs)
	type key struct {
		text string
		x, y int32
	}
	seen := make(map[key]int, len(gs))
	for i := range gs {
		g := &gs[i]
		if g.Invisible || (honourClip && g.Clipped) {
			drop[i] = true
			continue
		}
		if strings.TrimSpace(g.Text) == "" {
			continue
		}
		// Cells of 2 points: a copy drawn within about a point is found in a neighbour cell.
		cx, cy := int32(math.Floor(g.X0/2)), int32(math.Floor(g.Y0/2))
		dup := false
		for dx := int32(-1); dx <= 1 && !dup; dx++ {
			for dy := int32(-1); dy <= 1; dy++ {
				if j, ok := seen[key{g.Text, cx + dx, cy + dy}]; ok {
					o := &gs[j]
					// Within a fifth of its width or half a point, but under half its
					// advance: a doubled letter ("11", "ll") of tiny or condensed text
					// sits one advance on and is not a copy.
					tol := math.Max(0.2*(g.X1-g.X0), 0.5)
					if w := g.X1 - g.X0; w > 0 {
						tol = math.Min(tol, 0.5*w)
					}
					if math.Abs(o.X0-g.X0) <= tol && math.Abs(o.Y0-g.Y0) <= tol {
						dup = true
						break
					}
				}
			}
		}
		if dup {
			drop[i] = true
			continue
		}
		seen[key{g.Text, cx, cy}] = i
	}
	return drop
}

// isBold reads the weight from the font name: Bold, Black, Heavy, Semibold, Demi, and the
// "-Medi" of the URW/TeX Times (NimbusRomNo9L-Medi is Times Bold).
func isBold(font string) bool {
	f := strings.ToLower(font)
	return strings.Contains(f, "bold") || strings.Contains(f, "black") || strings.Contains(f, "heavy") ||
		strings.Contains(f, "demi") || strings.HasSuffix(f, "-medi") || strings.HasSuffix(f, "-mediita")
}

// findTables runs the table finder on the page's visible words and ruling.
func (d *Doc) findTables(ctx context.Context, p *pdf.Page, srcs []*glyphSource) ([]tables.Table, error) {
	var gs []tables.Glyph
	for _, s := range srcs {
		for i := range s.glyphs {
			g := &s.glyphs[i]
			if s.drop[i] {
				continue
			}
			gs = append(gs, tables.Glyph{Text: g.Text, Box: tables.Rect{X0: g.X0, Y0: g.Y0, X1: g.X1, Y1: g.Y1},
				Size: g.Size, Bold: isBold(g.Font), Upright: g.Upright, Math: tables.MathFont(g.Font)})
		}
	}
	if len(gs) == 0 {
		return nil, nil
	}
	in := &tables.Page{Width: p.Width, Height: p.Height, Words: tables.Words(gs)}
	geo := &p.Geometry
	for _, s := range geo.Segments {
		// Curves and slanted strokes draw charts and diagrams: the table finder uses their
		// extent to reject text set around a drawing (axis labels, legends) as a table.
		if s.Kind == pdf.SegCurve || (!s.Horizontal(1) && !s.Vertical(1)) {
			in.Drawing = append(in.Drawing, tables.Rect{X0: min(s.X0, s.X1), Y0: min(s.Y0, s.Y1), X1: max(s.X0, s.X1), Y1: max(s.Y0, s.Y1)})
			continue
		}
		switch s.Kind {
		case pdf.SegStroke, pdf.SegFillEdge:
			// Axis-aligned edges of filled paths are rules too: spreadsheet exports draw grid
			// lines as thin filled four-sided paths.
			if s.Gray < 0.95 {
				in.Segments = append(in.Segments, tables.Segment{X0: s.X0, Y0: s.Y0, X1: s.X1, Y1: s.Y1, Width: s.Width})
			}
		case pdf.SegRule:
			if s.Gray < 0.95 {
				hw := s.Width / 2
				if s.Horizontal(0.01) {
					in.Rects = append(in.Rects, tables.Rect{X0: s.X0, Y0: s.Y0 - hw, X1: s.X1, Y1: s.Y1 + hw})
				} else {
					in.Rects = append(in.Rects, tables.Rect{X0: s.X0 - hw, Y0: s.Y0, X1: s.X1 + hw, Y1: s.Y1})
				}
			}
		}
	}
	for _, im := range geo.Images {
		in.Drawing = append(in.Drawing, tables.Rect{X0: im.X0, Y0: im.Y0, X1: im.X1, Y1: im.Y1})
	}
	for _, r := range geo.Rects {
		if r.Stroke && r.StrokeGray < 0.95 {
			for _, e := range [4][4]float64{{r.X0, r.Y0, r.X1, r.Y0}, {r.X0, r.Y1, r.X1, r.Y1}, {r.X0, r.Y0, r.X0, r.Y1}, {r.X1, r.Y0, r.X1, r.Y1}} {
				in.Segments = append(in.Segments, tables.Segment{X0: e[0], Y0: e[1], X1: e[2], Y1: e[3], Width: r.LineWidth})
			}
		}
		if r.Fill && r.FillGray < 0.95 {
			in.Rects = append(in.Rects, tables.Rect{X0: r.X0, Y0: r.Y0, X1: r.X1, Y1: r.Y1})
		}
	}
	ts, err := tables.Find(ctx, in, tables.Options{})
	keep := ts[:0]
	for _, t := range ts {
		if !proseTable(&t) {
			keep = append(keep, t)
		}
	}
	return keep, err
}

// proseTable reports a "table" that is prose set in columns: in a real table a multi-line cell
// is one cell, so a cell starting in lower case right under a cell of the same column that
// holds a run of words not ending a sentence is a paragraph's next line. A quarter of the
// cells so is prose.
func proseTable(t *tables.Table) bool {
	if t.Kind == tables.Ruled && t.LabelRow() {
		return false // a ruled grid under a row of column labels: a table of sentences
	}
	g := t.Grid()
	cont, filled := 0, 0
	for r := range g {
		for c := range g[r] {
			cell := strings.TrimSpace(g[r][c])
			if cell == "" {
				continue
			}
			filled++
			if r == 0 {
				continue
			}
			above := strings.TrimSpace(g[r-1][c])
			first := []rune(cell)[0]
			if len(strings.Fields(above)) >= 4 && unicode.IsLower(first) && !strings.ContainsAny(above[len(above)-1:], ".:;!?") {
				cont++
			}
		}
	}
	return cont >= 3 && 4*cont >= filled
}

// flowLines are the visible text lines (pdfminer's) outside tables and pictures.
func (d *Doc) flowLines(p *pdf.Page, srcs []*glyphSource, taken []box) []tline {
	H := p.Height
	var out []tline
	var sb strings.Builder
	for _, s := range srcs {
		for _, tb := range s.boxes {
			for _, l := range tb.Lines {
				sb.Reset()
				var lb box
				first := true
				var sizes []float64
				bold, n, rot, nmath, nlet := 0, 0, 0, 0, 0
				firstText, firstSize := "", 0.0
				for _, it := range l.Items {
					if it.Glyph < 0 {
						sb.WriteString(it.Text)
						continue
					}
					if s.drop[it.Glyph] {
						continue
					}
					g := &s.glyphs[it.Glyph]
					b := box{g.X0, H - g.Y1, g.X1, H - g.Y0}
					cx, cy := (b.x0+b.x1)/2, (b.y0+b.y1)/2
					inTaken := false
					for _, t := range taken {
						if t.contains(cx, cy) {
							inTaken = true
							break
						}
					}
					if inTaken {
						sb.WriteByte(' ')
						continue
					}
					sb.WriteString(it.Text)
					if strings.TrimSpace(g.Text) == "" {
						continue
					}
					if first {
						lb, first = b, false
						firstText, firstSize = g.Text, g.Size
					} else {
						lb = lb.union(b)
					}
					sizes = append(sizes, g.Size)
					n++
					if r, _ := utf8.DecodeRuneInString(g.Text); tables.MathFont(g.Font) || tables.MathRune(r) {
						nmath++
					} else if unicode.IsLetter(r) {
						nlet++
					}
					if !g.Upright {
						rot++
					}
					if isBold(g.Font) {
						bold++
					}
				}
				if first {
					continue
				}
				t := strings.Join(strings.Fields(sb.String()), " ")
				if t == "" {
					continue
				}
				sort.Float64s(sizes)
				med := sizes[len(sizes)/2]
				mark := n > 2 && firstSize < 0.8*med && strings.ContainsAny(firstText, "0123456789*†‡§¶")
				out = append(out, tline{text: t, b: lb, size: med, bold: 2*bold > n, turned: 2*rot > n, mark: mark, glyphs: n, math: nmath, letters: nlet})
			}
		}
	}
	return out
}

// bodySize is the font size carrying most characters on the pages seen so far, this one
// included (a page of small print, an abstract or notes, is not the document's body text).
func (d *Doc) bodySize(lines []tline) float64 {
	weight := d.sizes
	for _, l := range lines {
		weight[math.Round(l.size*2)/2] += len(l.text)
	}
	best, bw := 10.0, -1
	for s, w := range weight {
		if w > bw || (w == bw && s < best) {
			best, bw = s, w
		}
	}
	return best
}

// docBody is the document's body size over the pages laid out so far (bodySize's choice).
func (d *Doc) docBody() float64 {
	best, bw := 10.0, -1
	for s, w := range d.sizes {
		if w > bw || (w == bw && s < best) {
			best, bw = s, w
		}
	}
	return best
}

// retype is what typing a text block used, kept with its page until it is settled: the
// body size is the document's over the pages laid out so far, and a document's first pages
// (a cover, a contents page, a foreword in small type) can set it apart from the body size
// the pages after them show. Settling types the block again against the body size then
// (LookAhead pages later), so that a line in the document's body type is not a Title for
// being larger than a cover's small print (an errata sheet's instructions in 10.5 pt after
// two pages of 9 pt).
type retype struct {
	elem        int
	typ         element.Type
	body, size  float64
	nlines      int
	words, bold int
	mark        bool
}

func (d *Doc) retypeOf(r *region, elem int, body float64) retype {
	size, bold := 0.0, 0
	for _, l := range r.lines {
		size = math.Max(size, l.size)
		if l.bold {
			bold++
		}
	}
	return retype{elem: elem, typ: r.typ, body: body, size: size, nlines: len(r.lines), words: len(strings.Fields(r.text)), bold: bold, mark: r.lines[0].mark}
}

func gutterWidth(body float64) float64 { return math.Max(0.6*body, 4) }

// joinLabels joins a short label (a section number, a bullet) to the text that follows it on
// the same baseline: pdfminer makes two lines of "1" and "Introduction" set apart by a wide gap.
func joinLabels(ls []tline, H float64) []tline {
	sort.SliceStable(ls, func(a, b int) bool {
		if math.Abs(ls[a].b.y0-ls[b].b.y0) > 0.5*math.Min(ls[a].b.h(), ls[b].b.h()) {
			return ls[a].b.y0 < ls[b].b.y0
		}
		return ls[a].b.x0 < ls[b].b.x0
	})
	// Edges of the page's long lines: a number at the right edge of a column with the text
	// after it at the left edge of another (a table of contents' page number beside the next
	// column's line on its baseline) closes a row of its column; it does not open the text
	// beyond the gutter, as a section number or a bullet opens the text after it.
	lefts, rights := map[int]int{}, map[int]int{}
	for _, l := range ls {
		if l.b.w() >= 40 {
			lefts[int(math.Round(l.b.x0))]++
			rights[int(math.Round(l.b.x1))]++
		}
	}
	edge := func(m map[int]int, x float64, tol int) bool {
		k, n := int(math.Round(x)), 0
		for d := -tol; d <= tol; d++ {
			n += m[k+d]
		}
		return n >= 3
	}
	// A contents list's page numbers: numbers after leader dots on their row, and the
	// numbers right-aligned with them (an entry set without leaders). Each closes its row; a
	// line of the next column on its baseline is no text it opens.
	pageNums := map[int]bool{}
	for i := 1; i < len(ls); i++ {
		p := strings.TrimSpace(ls[i-1].text)
		if sectionNumber.MatchString(ls[i].text) && math.Abs(ls[i].b.y0-ls[i-1].b.y0) <= 0.5*math.Min(ls[i].b.h(), ls[i-1].b.h()) &&
			(strings.HasSuffix(p, ". .") || strings.HasSuffix(p, "..") || strings.HasSuffix(p, "…")) {
			pageNums[int(math.Round(ls[i].b.x1))] = true
		}
	}
	pageNum := func(x float64) bool {
		k := int(math.Round(x))
		return pageNums[k-1] || pageNums[k] || pageNums[k+1]
	}
	out := ls[:0:0]
	for _, l := range ls {
		if n := len(out); n > 0 {
			a := &out[n-1]
			ov := math.Min(a.b.y1, l.b.y1) - math.Max(a.b.y0, l.b.y0)
			gap := l.b.x0 - a.b.x1
			// In the top and bottom bands a number is a page number beside a running head.
			inBand := a.b.y1 < 0.14*H || a.b.y0 > 0.86*H
			label := ((!inBand && sectionNumber.MatchString(a.text) && !pageNum(a.b.x1)) || markRune(a.text)) &&
				!(edge(rights, a.b.x1, 3) && edge(lefts, l.b.x0, 1))
			if label && !a.turned && !l.turned && ov > 0.6*math.Min(a.b.h(), l.b.h()) && gap >= 0 && gap < 2.5*math.Max(a.size, l.size) {
				a.text += " " + l.text
				a.b = a.b.union(l.b)
				a.glyphs, a.math, a.letters = a.glyphs+l.glyphs, a.math+l.math, a.letters+l.letters
				a.size, a.bold = l.size, l.bold
				continue
			}
		}
		out = append(out, l)
	}
	return out
}

// markStart reports a line starting with a lone mark and a space ("▪ We announced").
func markStart(s string) bool {
	f, _, ok := strings.Cut(strings.TrimSpace(s), " ")
	return ok && markRune(f) && !strings.ContainsAny(f, "$€£¥%&'\"")
}

// markRune reports a lone bullet-like mark: one character that is neither a letter nor a digit.
func markRune(s string) bool {
	r := []rune(strings.TrimSpace(s))
	return len(r) == 1 && !unicode.IsLetter(r[0]) && !unicode.IsDigit(r[0]) && r[0] != '(' && r[0] != '['
}

var sectionHeading = regexp.MustCompile(`^([0-9]{1,2}(\.[0-9]{1,2})*\.?|[A-Z]\.|[IVX]{1,4}\.)\s+\p{Lu}`)

var sectionNumber = regexp.MustCompile(`^([0-9]{1,2}(\.[0-9]{1,2})*\.?|[A-Z]\.|[IVX]{1,4}\.)$`)

// buildBlocks groups lines into blocks: a line continues the block whose last line is just
// above it (a gap under about a line's height) and overlaps it horizontally (the same column),
// in the same size and weight, unless it starts a list item. Lines are visited top to bottom;
// only blocks that ended within reach stay candidates, so work stays near linear.
func buildBlocks(ls []tline, body float64) []region {
	sort.SliceStable(ls, func(a, b int) bool { return ls[a].b.y0 < ls[b].b.y0 })
	type open struct {
		r    region
		last tline
	}
	var done []region
	var active []*open
	pitch := pagePitches(ls)
	for _, l := range ls {
		// Blocks whose last line is far above can take no more lines.
		keep := active[:0]
		for _, o := range active {
			if l.b.y0-o.last.b.y1 > 2.5*math.Max(o.last.b.h(), l.b.h()) {
				done = append(done, o.r)
				continue
			}
			keep = append(keep, o)
		}
		active = keep
		var best *open
		bestOv := 0.0
		for _, o := range active {
			if !continues(&o.r, o.last, l, body, pitch) {
				continue
			}
			ov := math.Min(o.last.b.x1, l.b.x1) - math.Max(o.last.b.x0, l.b.x0)
			if ov > bestOv {
				best, bestOv = o, ov
			}
		}
		if best != nil {
			best.r.lines = append(best.r.lines, l)
			best.r.b = best.r.b.union(l.b)
			best.last = l
			continue
		}
		active = append(active, &open{r: region{lines: []tline{l}, b: l.b}, last: l})
	}
	for _, o := range active {
		done = append(done, o.r)
	}
	done = absorbFragments(done, body)
	for i := range done {
		r := &done[i]
		orderRows(r.lines)
		parts := make([]string, len(r.lines))
		for k, l := range r.lines {
			parts[k] = l.text
		}
		if r.lines[0].turned {
			r.text = strings.Join(parts, " ")
		} else {
			r.text = joinLines(parts)
		}
	}
	return done
}

// absorbFragments merges small-type fragments (a formula's sub- and superscripts, which
// pdfminer makes lines of their own, met before their base line) into the block of larger
// type their box overlaps. Quadratic in the fragments times the blocks, so skipped on pages
// with very many blocks.
func absorbFragments(bs []region, body float64) []region {
	if len(bs) > 3000 {
		return bs
	}
	maxSize := func(r *region) float64 {
		m := 0.0
		for _, l := range r.lines {
			m = math.Max(m, l.size)
		}
		return m
	}
	gone := make([]bool, len(bs))
	for i := range bs {
		f := &bs[i]
		fs := maxSize(f)
		if f.lines[0].turned {
			continue
		}
		small := fs < 0.9*body
		for j := range bs {
			t := &bs[j]
			// Nor does a fragment join turned text: a watermark set across the page holds
			// small pieces of the text under it in its box.
			if j == i || gone[j] || len(t.lines) <= len(f.lines) || t.lines[0].turned {
				continue
			}
			// A piece lying wholly inside a block with more lines (a word a justified line
			// set far apart, a line pdfminer cut at an inline formula into runs of its own), or
			// up to three lines of small type overlapping a block of larger type.
			within := f.b.x0 >= t.b.x0 && f.b.x1 <= t.b.x1 && f.b.y0 >= t.b.y0 && f.b.y1 <= t.b.y1 && math.Abs(fs-maxSize(t)) < 0.1*fs
			pad := 0.3 * fs
			overlaps := small && len(f.lines) <= 3 && maxSize(t) > fs*1.1 && f.b.x0 < t.b.x1+pad && t.b.x0-pad < f.b.x1 && f.b.y0 < t.b.y1 && t.b.y0 < f.b.y1
			if within || overlaps {
				t.lines = append(t.lines, f.lines...)
				t.b = t.b.union(f.b)
				gone[i] = true
				break
			}
		}
	}
	out := bs[:0]
	for i := range bs {
		if !gone[i] {
			out = append(out, bs[i])
		}
	}
	return out
}

// orderRows puts a block's lines in reading order: rows top to bottom (lines overlapping
// vertically by more than half are one row), a row's pieces left to right.
func orderRows(ls []tline) {
	sort.SliceStable(ls, func(a, b int) bool { return ls[a].b.y0+ls[a].b.y1 < ls[b].b.y0+ls[b].b.y1 })
	for i := 0; i < len(ls); {
		j := i + 1
		for j < len(ls) && math.Min(ls[j-1].b.y1, ls[j].b.y1)-math.Max(ls[j-1].b.y0, ls[j].b.y0) > 0.5*math.Min(ls[j-1].b.h(), ls[j].b.h()) {
			j++
		}
		row := ls[i:j]
		sort.SliceStable(row, func(a, b int) bool { return row[a].b.x0 < row[b].b.x0 })
		i = j
	}
}

// pagePitches is the page's line pitch for each type size (to the half point): the lower
// quartile of the steps from each line to the nearest line of its size below it in its
// column, over at least three steps. Paragraph spacing and lines made taller by formulas only
// lengthen steps, so the short end is the pitch; a block of two lines, whose one step says
// nothing of its own, is measured against it. Lines come sorted by top.
func pagePitches(ls []tline) map[float64]float64 {
	steps := map[float64][]float64{}
	for i, a := range ls {
		if a.turned {
			continue
		}
		k := sizeKey(a.size)
		for j, seen := i+1, 0; j < len(ls) && seen < 64 && ls[j].b.y0-a.b.y0 < 3*math.Max(a.size, 1); j, seen = j+1, seen+1 {
			b := ls[j]
			if b.turned || sizeKey(b.size) != k || math.Min(a.b.x1, b.b.x1)-math.Max(a.b.x0, b.b.x0) <= 0 {
				continue
			}
			if s := lineStep(a, b); s >= 0.9*a.size {
				steps[k] = append(steps[k], s)
				break
			}
		}
	}
	out := map[float64]float64{}
	for k, ss := range steps {
		if len(ss) >= 3 {
			sort.Float64s(ss)
			out[k] = ss[len(ss)/4]
		}
	}
	return out
}

func sizeKey(size float64) float64 { return math.Round(size*2) / 2 }

// continues reports whether line b, below line a, goes on a's block (pitch: pagePitches).
func continues(r *region, a, b tline, body float64, pitch map[float64]float64) bool {
	if a.turned != b.turned {
		return false
	}
	h := math.Max(a.b.h(), b.b.h())
	gap := b.b.y0 - a.b.y1
	if a.turned {
		// Turned glyphs come one per line: they stack with small gaps.
		return gap < 2*h && math.Min(a.b.x1, b.b.x1)-math.Max(a.b.x0, b.b.x0) > 0
	}
	if gap < -0.4*h || gap > 0.75*math.Max(h, 0.5*body) {
		return false
	}
	// Sub- and superscripts (and a formula's pieces) come as lines of their own that overlap
	// their base line, above, below or just beside it: they belong with it whatever their size.
	hgap := math.Max(b.b.x0-a.b.x1, a.b.x0-b.b.x1)
	if vo := math.Min(a.b.y1, b.b.y1) - math.Max(a.b.y0, b.b.y0); vo > 0.3*math.Min(a.b.h(), b.b.h()) && hgap < 1.5*math.Max(a.size, b.size) {
		return true
	}
	if hgap >= 0 {
		return false
	}
	ratio := a.size / math.Max(b.size, 0.1)
	if ratio > 1.12 || ratio < 1/1.12 {
		return false
	}
	if a.bold != b.bold && (len(strings.Fields(a.text)) <= 12 || len(strings.Fields(b.text)) <= 12) {
		return false // a heading above its paragraph, or a run-in bold lead
	}
	if b.mark || b.bullet || numberedItem.MatchString(b.text) {
		return false
	}
	// A bullet starts an item, unless the line above uses the same character as a separator
	// ("Analysis · Deep Learning ·" wrapping onto "· Character Recognition").
	if classify.IsBulleted(b.text) || markStart(b.text) {
		bullet := []rune(strings.TrimSpace(b.text))[0]
		if !strings.Contains(a.text, " "+string(bullet)+" ") {
			return false
		}
	}
	// A gap between two lines well over the block's own line pitch starts a paragraph: a
	// paragraph spacing smaller than a blank line (LibreOffice's 0.2 cm) is the only mark
	// between two paragraphs whose last line runs full width.
	if paragraphGap(r, b, pitch[sizeKey(b.size)]) {
		return false
	}
	// Indents. A block whose later lines hang indented under its first (a reference, a list
	// item) ends where a line comes back to the first line's edge. Otherwise a first-line
	// indent under a line flush with the block's left edge starts a paragraph (a list item's
	// first line is exempt: its next lines hang indented).
	em := math.Max(a.size, 1)
	if len(r.lines) >= 2 {
		first, second := r.lines[0].b.x0, r.lines[1].b.x0
		if second-first > 0.8*em {
			return math.Abs(b.b.x0-first) >= 0.3*em
		}
		edge := leftEdge(r)
		aFlush := math.Abs(a.b.x0-edge) < 0.3*em
		lead := a.bullet || classify.IsBulleted(a.text) || numberedItem.MatchString(a.text)
		if aFlush && !lead && b.b.x0-edge > 0.8*em && b.b.x0-edge < 6*em && r.b.w() > 15*em {
			return false
		}
	}
	// A line ending a sentence (or a colon) short of the block's right edge ends the
	// paragraph: short by more than 4 em, or by room enough for the next line's first word,
	// which a line-breaker would have set there had the paragraph gone on. The block's right
	// edge is the next line's too when the block is one line so far: paragraphs of one line
	// each, set one under the other with no spacing, and a one-line paragraph followed by an
	// indented first line (which a block's second line hung under its first would be too,
	// but a hanging first line runs full).
	words := 1
	if len(r.lines) == 1 {
		words = 2
	}
	if !endsSentence(a.text, words) {
		return true
	}
	right := math.Max(r.b.x1, b.b.x1)
	short := right-a.b.x1 > 4*em || right-a.b.x1 > firstWordWidth(b)+0.5*em
	if !short {
		return true
	}
	edge := leftEdge(r)
	if math.Abs(b.b.x0-edge) < 0.3*em {
		return false
	}
	return !(len(r.lines) == 1 && b.b.x0-edge > 0.8*em && b.b.x0-edge < 6*em)
}

// endsSentence reports text ending in a full stop, a question or exclamation mark or a colon
// that ends a word, before any closing quotes and brackets ("… end.”", "(… end.)"); not
// leader dots (". . .", "...", an index or contents entry cut before its page numbers), nor
// a mark alone ("!" for an arrow in a TeX math font). Text of fewer words than asked (a
// formula's piece "7!", "d(x)." as a block of its own) is not a sentence.
func endsSentence(s string, words int) bool {
	s = strings.TrimRight(strings.TrimSpace(s), "\"'”’»)]")
	if s == "" || !strings.ContainsAny(s[len(s)-1:], ".!?:") || strings.HasSuffix(s, "..") || strings.HasSuffix(s, "…") {
		return false
	}
	f := strings.Fields(s)
	last := []rune(f[len(f)-1])
	return len(f) >= words && len(last) >= 2
}

// firstWordWidth is the width line l's first word takes with a space before it, from the
// line's mean advance per character.
func firstWordWidth(l tline) float64 {
	n := utf8.RuneCountInString(l.text)
	if n == 0 {
		return 0
	}
	f, _, _ := strings.Cut(l.text, " ")
	return float64(utf8.RuneCountInString(f)+1) * l.b.w() / float64(n)
}

// lineStep is how far line b sits below line a: the smaller of the steps of their tops and
// of their bottoms, so that a superscript raising one line's top or a subscript lowering
// one line's bottom does not lengthen it. Zero for lines sharing a row.
func lineStep(a, b tline) float64 {
	s := math.Min(b.b.y0-a.b.y0, b.b.y1-a.b.y1)
	if s < 0.5*math.Min(a.b.h(), b.b.h()) {
		return 0
	}
	return s
}

// paragraphGap reports whether line b lies farther below the block's last line of its size
// than the block's line pitch (the median step between its lines of b's size) by a quarter
// em or more, and farther than any step the block already holds: an outlier, not the uneven
// pitch of lines that carry inline formulas, nor next to a line that a formula makes taller
// than the block's lines. Lines of another size (a sub- or superscript
// pdfminer set apart) are left out, so a raised mark does not lengthen the step after it.
func paragraphGap(r *region, b tline, pagePitch float64) bool {
	var steps, hs []float64
	var prev *tline
	for i := range r.lines {
		l := &r.lines[i]
		ratio := l.size / math.Max(b.size, 0.1)
		if ratio > 1.12 || ratio < 1/1.12 {
			continue
		}
		hs = append(hs, l.b.h())
		if prev != nil {
			if s := lineStep(*prev, *l); s > 0 {
				steps = append(steps, s)
			}
		}
		prev = l
	}
	// The pitch needs two steps to be the block's, not one gap that may be the odd one; a
	// block of two lines has the page's pitch when its one step is that.
	em := math.Max(b.size, 1)
	if prev == nil || len(steps) == 0 || (len(steps) < 2 && (pagePitch == 0 || math.Abs(steps[0]-pagePitch) > 0.1*em)) {
		return false
	}
	step := lineStep(*prev, b)
	if step == 0 {
		return false
	}
	sort.Float64s(steps)
	sort.Float64s(hs)
	pitch := steps[len(steps)/2]
	// Steps shorter than the type are rows of a formula's pieces, not lines of text.
	if pitch < 0.9*em {
		return false
	}
	// Only whole lines count: the block's last line running from its left edge to within 4
	// em of its right (a shorter one ending a sentence is another rule's), the next one starting at that edge
	// or indented and running over half the block — not the pieces pdfminer cuts a formula into.
	edge := leftEdge(r)
	if math.Abs(prev.b.x0-edge) > 0.3*em || r.b.x1-prev.b.x1 > 4*em ||
		b.b.x0-edge < -0.3*em || b.b.x0-edge > 6*em || b.b.w() < 0.5*r.b.w() {
		return false
	}
	// A line made taller than the block's lines by a formula's sub- and superscripts pushes
	// its neighbours apart (TeX widens the leading where boxes would touch): no evidence.
	if math.Max(prev.b.h(), b.b.h()) > hs[len(hs)/2]+0.25*em {
		return false
	}
	return step > pitch+0.25*em && step > steps[len(steps)-1]+0.1*em
}

// leftEdge is where a block's lines start: the median start of its last few lines, not the
// box's left side, which a line opening with punctuation hung into the margin (a quotation
// mark, as TeX's microtype sets it) pulls a few points left, so that no line would be flush
// and no first-line indent seen.
func leftEdge(r *region) float64 {
	ls := r.lines[max(0, len(r.lines)-9):]
	xs := make([]float64, len(ls))
	for i, l := range ls {
		xs[i] = l.b.x0
	}
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

var numberedItem = regexp.MustCompile(`^(\(?[0-9]{1,2}[.)]|\(?[a-z][.)]|\([ivx]+\))\s`)

// joinLines joins a block's lines with spaces. A word hyphenated across lines keeps its hyphen
// ("veriﬁ- cation"), as the reference's text does: a hyphen cannot be told from a compound's.
func joinLines(parts []string) string { return strings.Join(parts, " ") }

var captionRE = regexp.MustCompile(`^(?i)(figure|fig\.|table|tab\.|chart|exhibit|plate)\s*[0-9IVX]+[.:]?`)

// numberedCaptionRE is captionRE's figures and tables with their number whole (a roman
// numeral must end a word). Not exhibits: a filing's "Exhibit 31.2" at the top of each of its
// pages names a document, as a running head does.
var numberedCaptionRE = regexp.MustCompile(`^(?i)(figure|fig\.|table|tab\.|chart|plate)\s*([0-9]+|[ivx]+\b)`)

var pageNumberRE = regexp.MustCompile(`^(?i)(page\s*)?[0-9]{1,4}(\s*(of|/)\s*[0-9]{1,4})?$|^[-–—]\s*[0-9]{1,4}(\s*[-–—])?$|^(?i)[ivxlc]{1,6}$`)

var digitsRE = regexp.MustCompile(`[0-9]+`)

// cidRE is a glyph pdfminer could not map, as it writes it.
var cidRE = regexp.MustCompile(`\(cid:[0-9]+\)`)

// blockType types a text block as a layout model labels regions. A block that may be a
// running head or foot (a short line on the page's first or last text line, or in its outer
// margin) is typed as if it were not and comes with its candidacy, which the document
// settles (runCand).
func (d *Doc) blockType(r *region, p *pdf.Page, body float64) (element.Type, *runCand) {
	text := r.text
	H := p.Height
	cy := (r.b.y0 + r.b.y1) / 2
	words := len(strings.Fields(text))
	short := len(r.lines) <= 2 && words <= 20
	size, bold := 0.0, 0
	for _, l := range r.lines {
		size = math.Max(size, l.size)
		if l.bold {
			bold++
		}
	}
	// Running heads, feet and page numbers: a page number on the first or last line
	// anywhere; a short line on the page's first or last text line, or in its outer tenth
	// (a foot of two lines), is a candidate. It is placed (pos) when it is one line in no more than body size (a
	// page's title at the top is larger) within the top or bottom band.
	oneLine := len(r.lines) == 1 && size <= 1.05*body
	first, last := r.b.y0 <= d.pageTop+0.5*body, r.b.y1 >= d.pageBottom-0.5*body
	// A sentence is body text even alone at the top of a page (a running head is a name or a
	// title, it does not end with a full stop) unless it repeats.
	sentence := words >= 6 && strings.HasSuffix(strings.TrimSpace(text), ".")
	top := oneLine && !sentence && words <= 10 && (cy < 0.06*H || (first && cy < 0.14*H))
	bottom := oneLine && !sentence && words <= 14 && (cy > 0.94*H || (last && cy > 0.86*H))
	var c *runCand
	margin := cy < 0.06*H || cy > 0.94*H
	if short && (first || last || margin) && len(r.lines) == 1 && pageNumberRE.MatchString(strings.TrimSpace(text)) {
		return element.PageNumber, nil
	}
	// Lines within the bottom tenth of the page but not its last (a foot of two lines: a
	// catalogue number over the manual's name) are candidates too, whose text must come back
	// at the same distance from the page edge. Not so at the top, where the second line under
	// a running head is the page's own (a statement's "(In millions)", "Proof:") and comes
	// back as often.
	// A numbered caption ("TABLE 2.1 A", "Figure 3") on a page's first or last line is the
	// caption of what lies under or over it, not a running head, though the next pages set
	// their captions where it is, numbered alike.
	if short && (first || last || margin || cy > 0.9*H) && !numberedCaptionRE.MatchString(strings.TrimSpace(text)) {
		c = &runCand{key: runKey(text, size), first: first, last: last, upper: cy < 0.5*H, size: size, b: r.b,
			canRepeat: tables.Letters(cidRE.ReplaceAllString(text, "")) >= 2 && (cy < 0.2*H || cy > 0.8*H || size < 1.15*body)}
		if !first && !last && !margin {
			c.key += fmt.Sprintf("@%.0f", math.Min(r.b.y0, H-r.b.y1)/2)
		}
		switch {
		case top:
			c.pos, c.placed, c.edge = true, element.Header, r.b.y0
		case bottom:
			c.pos, c.placed, c.edge = true, element.Footer, H-r.b.y1
		}
	}
	return textType(len(r.lines), r.lines[0].mark, text, words, size, bold, body), c
}

// textType types a text block that is not a running head, foot or page number.
func textType(nlines int, mark bool, text string, words int, size float64, bold int, body float64) element.Type {
	if captionRE.MatchString(text) && nlines <= 6 {
		return element.FigureCaption
	}
	heading := nlines <= 3 && words <= 20 && !strings.HasSuffix(strings.TrimSpace(text), ".") &&
		(size >= 1.15*body || (2*bold > nlines && size >= 0.95*body)) && hasLetters(text)
	if heading {
		return element.Title
	}
	typ, _ := classify.Text(text)
	switch {
	case typ == element.Title && nlines == 1 && words <= 10 && !mark && sectionHeading.MatchString(text):
		// A numbered heading set in body type ("2.1 Methods").
		return element.Title
	case typ == element.UncategorizedText && words < 3:
		return element.UncategorizedText
	}
	return element.NarrativeText
}

// hasLetters reports text that is mostly words: a heading is, a figure set large ("$6.8B") is
// not.
func hasLetters(s string) bool {
	n, all := 0, 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			continue
		}
		all++
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n >= 2 && 5*n >= 2*all
}

// turnedSources takes the glyphs of a page that run in another direction than its text (an
// arXiv identifier up the margin, a chart's vertical axis title, a turned table header) out
// of their sources and gives one source per direction, whose lines pdf.Analyze forms in the
// frame where that text reads left to right — left among the page's upright text, each of
// its letters is a line of its own and the label reads backwards, letter-spaced. The
// source's glyphs keep their page boxes (and are marked not upright, so their lines stay
// blocks of their own); only the grouping and the text order come from the turned frame.
func turnedSources(p *pdf.Page, srcs []*glyphSource) []*glyphSource {
	var out []*glyphSource
	W, H := p.Width, p.Height
	for dir := uint8(1); dir < 4; dir++ {
		var turned, orig []pdf.Glyph
		for _, s := range srcs {
			for i := range s.glyphs {
				g := s.glyphs[i]
				if s.drop[i] || g.Dir != dir {
					continue
				}
				s.drop[i] = true
				t := g
				t.X0, t.Y0, t.X1, t.Y1 = turnBox(dir, W, H, g.X0, g.Y0, g.X1, g.Y1)
				t.Dir, t.Upright, t.Size = 0, true, t.Y1-t.Y0
				turned = append(turned, t)
				g.Upright, g.Size = false, t.Size
				orig = append(orig, g)
			}
		}
		if len(turned) == 0 {
			continue
		}
		tw, th := W, H
		if dir != 2 {
			tw, th = H, W
		}
		boxes := pdf.Analyze(turned, tw, th, Params(pdf.DefaultLAParams()))
		out = append(out, &glyphSource{glyphs: orig, boxes: boxes, drop: make([]bool, len(orig))})
	}
	return out
}

// turnBox maps a page box into the frame where text running in quadrant dir reads left to
// right (pdf.Page.TurnUpright's mapping).
func turnBox(dir uint8, W, H, x0, y0, x1, y1 float64) (float64, float64, float64, float64) {
	pt := func(x, y float64) (float64, float64) {
		switch dir {
		case 1:
			return y, W - x
		case 3:
			return H - y, x
		default:
			return W - x, H - y
		}
	}
	ax, ay := pt(x0, y0)
	bx, by := pt(x1, y1)
	return math.Min(ax, bx), math.Min(ay, by), math.Max(ax, bx), math.Max(ay, by)
}
