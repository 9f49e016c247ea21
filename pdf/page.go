package pdf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Link is a URI link annotation; its rectangle is in the same page space as glyphs.
type Link struct {
	X0, Y0, X1, Y1 float64
	URI            string
}

// Field is a filled AcroForm field whose widget sits on the page, or a FreeText annotation
// (Name empty): text shown on the page by an annotation's appearance, not the content stream.
type Field struct {
	Name           string
	Value          string
	X0, Y0, X1, Y1 float64
}

// Page is the text layer of one page.
type Page struct {
	Number        int
	Width, Height float64
	Rotate        int
	// Glyphs are the page-level glyphs in drawing order; Boxes index into them.
	Glyphs []Glyph
	// Boxes are pdfminer's text boxes in its reading order.
	Boxes []*TextBox
	// Figures are Form XObjects drawn at page level (pdfminer's LTFigure), in drawing order.
	Figures     []Figure
	ActualTexts []ActualText
	Links       []Link
	Fields      []Field
	// Geometry is the page's vector graphics and image placements (geometry.go).
	Geometry Geometry
	// Invisible counts glyphs drawn with rendering mode 3.
	Invisible int
	// OffPage counts glyphs dropped for lying outside the page or being larger than it
	// (bounds.go).
	OffPage int
	// Warnings are non-fatal problems met while reading the page.
	Warnings []error
}

// HasText reports whether the page has any visible, decodable text that can be laid out: a
// glyph of zero width or height (a font without widths, as pdfminer reads it, or text squeezed
// by 0 Tz) makes only an empty line, which pdfminer sets aside, so it does not count — such a
// page is routed as one without a text layer (to OCR), never laid out empty.
func (p *Page) HasText() bool {
	for i := range p.Glyphs {
		if textGlyph(&p.Glyphs[i], false) {
			return true
		}
	}
	for _, f := range p.Figures {
		for _, it := range f.Items {
			if it.Glyph != nil && textGlyph(it.Glyph, true) {
				return true
			}
		}
	}
	return false
}

// textGlyph is a glyph HasText counts: visible, with text — mapped, at page level — and a box.
func textGlyph(g *Glyph, inFigure bool) bool {
	return !g.Invisible && g.X1 > g.X0 && g.Y1 > g.Y0 && strings.TrimSpace(g.Text) != "" &&
		(inFigure || !strings.HasPrefix(g.Text, "(cid:"))
}

// DrawsText reports whether the page draws any visible glyph with text, laid out or not.
func (p *Page) DrawsText() bool {
	for i := range p.Glyphs {
		if g := &p.Glyphs[i]; !g.Invisible && strings.TrimSpace(g.Text) != "" {
			return true
		}
	}
	for _, f := range p.Figures {
		for _, it := range f.Items {
			if g := it.Glyph; g != nil && !g.Invisible && strings.TrimSpace(g.Text) != "" {
				return true
			}
		}
	}
	return false
}

// Recycle hands a page the caller has finished with back to the document, which reuses its
// memory for the next page read; the page must not be used afterwards.
func (d *Document) Recycle(p *Page) {
	if p != nil && cap(p.Glyphs) > cap(d.spare) {
		d.spare = p.Glyphs[:0]
	}
	if p != nil {
		*p = Page{}
	}
}

// Page reads page n (1-based) and runs layout analysis on it. A panic inside pdfcpu or a
// broken stream becomes an error for this page only.
func (d *Document) Page(ctx context.Context, n int, params LAParams) (page *Page, err error) {
	if n < 1 || n > len(d.pages) {
		return nil, fmt.Errorf("pdf: page %d out of range 1..%d", n, len(d.pages))
	}
	defer func() {
		if r := recover(); r != nil {
			page, err = nil, fmt.Errorf("pdf: page %d: internal error: %v", n, r)
		}
	}()
	pr := d.pages[n-1]
	ctm := pr.ctm()
	w, h := d.PageSize(n)
	page = &Page{Number: n, Width: w, Height: h, Rotate: pr.rotate}
	data, err := d.pageContent(pr.dict)
	if err != nil {
		page.Warnings = append(page.Warnings, err)
		if len(data) == 0 {
			return page, fmt.Errorf("pdf: page %d: %w", n, err)
		}
	}
	// Pages of one document tend to carry similar amounts of text: sizing the glyph slice from
	// the previous page saves most of the regrowth copies, and a recycled page's slice saves
	// the allocation.
	glyphs := d.spare[:0]
	d.spare = nil
	if cap(glyphs) < d.glyphHint {
		glyphs = make([]Glyph, 0, d.glyphHint+d.glyphHint/8)
	}
	in := &interp{ctx: ctx, doc: d, glyphs: glyphs, noGeom: params.NoGeometry, substWidths: params.SubstituteWidths}
	in.path.reset()
	in.run(data, pr.resources, ctm, graphics{paint: paint{lineWidth: 1}}, 0, nil)
	d.glyphHint = len(in.glyphs)
	for _, e := range in.errs {
		if errors.Is(e, context.Canceled) || errors.Is(e, context.DeadlineExceeded) {
			return nil, e
		}
		page.Warnings = append(page.Warnings, e)
	}
	page.Glyphs = in.glyphs
	page.Figures = in.figs
	page.ActualTexts = in.actual
	page.Geometry = in.geom.g
	page.OffPage = boundGlyphs(page)
	for i := range page.Glyphs {
		if page.Glyphs[i].Invisible {
			page.Invisible++
		}
	}
	page.Boxes = Analyze(page.Glyphs, w, h, params)
	page.Links, page.Fields = d.annotations(ctx, pr.dict, ctm)
	return page, nil
}

// ctm maps the page's MediaBox, turned by /Rotate, to page space with its origin at 0,0.
func (pr pageRef) ctm() matrix {
	mb := pr.mediaBox
	switch pr.rotate {
	case 90:
		return matrix{0, -1, 1, 0, -mb[1], mb[2]}
	case 180:
		return matrix{-1, 0, 0, -1, mb[2], mb[3]}
	case 270:
		return matrix{0, 1, -1, 0, mb[3], -mb[0]}
	}
	return matrix{1, 0, 0, 1, -mb[0], -mb[1]}
}

// maxProbeBytes bounds the content PageHasText reads of one page: it runs in the server, before
// any strategy's process, for every page of auto's documents. A page drawing 64 MB of content
// before its first glyph (no real page does) is taken for one without text.
const maxProbeBytes = 64 << 20

// PageHasText reports what Page(ctx, n, …).HasText() reports — whether page n shows a visible,
// mapped glyph with a box — without keeping glyphs, geometry or boxes: the run stops at the first such
// glyph and counts none, and reads at most maxProbeBytes of the page's content. It is the
// text-layer probe a router makes before choosing a strategy, in whatever process it runs: a
// page of millions of glyphs costs it nothing.
func (d *Document) PageHasText(ctx context.Context, n int) (has bool, err error) {
	if n < 1 || n > len(d.pages) {
		return false, fmt.Errorf("pdf: page %d out of range 1..%d", n, len(d.pages))
	}
	defer func() {
		if r := recover(); r != nil {
			has, err = false, fmt.Errorf("pdf: page %d: internal error: %v", n, r)
		}
	}()
	pr := d.pages[n-1]
	data, err := d.pageContentUpTo(pr.dict, maxProbeBytes)
	if err != nil && len(data) == 0 {
		return false, fmt.Errorf("pdf: page %d: %w", n, err)
	}
	in := &interp{ctx: ctx, doc: d, noGeom: true}
	in.probe = func(g Glyph, inFigure bool) bool { return textGlyph(&g, inFigure) }
	in.path.reset()
	in.run(data, pr.resources, pr.ctm(), graphics{paint: paint{lineWidth: 1}}, 0, nil)
	if in.stopped {
		return true, nil
	}
	for _, e := range in.errs {
		if errors.Is(e, context.Canceled) || errors.Is(e, context.DeadlineExceeded) {
			return false, e
		}
	}
	return false, nil
}

// pageContent concatenates the page's content streams; a stream that fails to decode is
// skipped and reported, the others are kept.
func (d *Document) pageContent(pd types.Dict) ([]byte, error) {
	return d.pageContentUpTo(pd, maxStreamBytes)
}

// pageContentUpTo is pageContent keeping at most limit bytes: each stream is bounded on its
// own (maxStreamBytes), but a /Contents array may list a thousand streams, or one
// decompression bomb a thousand times, and the page's content is read in the host process
// too (PageHasText). What passes the bound is dropped and reported.
func (d *Document) pageContentUpTo(pd types.Dict, limit int) ([]byte, error) {
	o, ok := pd.Find("Contents")
	if !ok {
		return nil, nil
	}
	var errs []error
	var out []byte
	full := false
	add := func(s types.Object) {
		if full {
			return
		}
		b, _, err := d.streamData(s)
		if err != nil {
			errs = append(errs, err)
		}
		if len(out)+len(b)+1 > limit {
			errs = append(errs, fmt.Errorf("pdf: page content beyond %d bytes; the rest is not read", limit))
			b, full = b[:max(0, limit-len(out)-1)], true
		}
		if len(b) > 0 {
			out = append(out, b...)
			out = append(out, '\n')
		}
	}
	switch v := d.resolve(o).(type) {
	case types.Array:
		for _, s := range v {
			add(s)
		}
	case types.StreamDict:
		add(o)
	}
	return out, errors.Join(errs...)
}

func (d *Document) annotations(ctx context.Context, pd types.Dict, ctm matrix) ([]Link, []Field) {
	var links []Link
	var fields []Field
	for _, ao := range d.array(pd["Annots"]) {
		a := d.dict(ao)
		if a == nil {
			continue
		}
		r, ok := d.rect(a["Rect"])
		if !ok {
			continue
		}
		x0, y0, x1, y1 := boundRect(ctm, r)
		// Hidden (2) and NoView (32) annotations are not shown: their text is not the page's.
		if f, _ := d.number(a["F"]); int(f)&(2|32) != 0 {
			continue
		}
		switch d.name(a["Subtype"]) {
		case "Link":
			act := d.dict(a["A"])
			if act == nil || d.name(act["S"]) != "URI" {
				continue
			}
			uri := d.textString(act["URI"])
			if uri == "" {
				continue
			}
			links = append(links, Link{X0: x0, Y0: y0, X1: x1, Y1: y1, URI: uri})
		case "Widget":
			name, value := d.fieldValue(a)
			if strings.TrimSpace(value) == "" && d.showsAppearance(a) {
				// A signature's or push button's words are only in its appearance.
				value = d.appearanceText(ctx, a)
			}
			if strings.TrimSpace(value) == "" {
				continue
			}
			fields = append(fields, Field{Name: name, Value: value, X0: x0, Y0: y0, X1: x1, Y1: y1})
		case "FreeText", "Stamp":
			// A text box drawn on the page (a typewriter note) or a rubber stamp: what its
			// appearance shows, else its Contents (a FreeText's Contents is its text; a
			// stamp's is a note about it, so only its appearance counts).
			v := d.appearanceText(ctx, a)
			if strings.TrimSpace(v) == "" && d.name(a["Subtype"]) == "FreeText" {
				v = d.textString(a["Contents"])
			}
			if strings.TrimSpace(v) != "" {
				fields = append(fields, Field{Value: v, X0: x0, Y0: y0, X1: x1, Y1: y1})
			}
		}
	}
	return links, fields
}

// showsAppearance reports a widget whose text is in its appearance stream only: a signature
// field or a push button (check boxes and radio buttons draw a mark, not words).
func (d *Document) showsAppearance(w types.Dict) bool {
	node := w
	for depth := 0; node != nil && depth < 32; depth++ {
		switch d.name(node["FT"]) {
		case "Sig":
			return true
		case "Btn":
			ff, _ := d.number(node["Ff"])
			return int64(ff)&(1<<16) != 0 // Pushbutton
		case "":
		default:
			return false
		}
		node = d.dict(node["Parent"])
	}
	return false
}

// appearanceText is the text an annotation's normal appearance stream draws (the state /AS
// names when there are several), its lines joined in pdfminer's box order; "" when it draws
// none. The stream runs in an interpreter of its own, bounded like a page's forms.
func (d *Document) appearanceText(ctx context.Context, a types.Dict) string {
	ap := d.dict(a["AP"])
	if ap == nil {
		return ""
	}
	n, ok := ap.Find("N")
	if !ok {
		return ""
	}
	if states, isDict := d.resolve(n).(types.Dict); isDict {
		if n, ok = states.Find(d.name(a["AS"])); !ok {
			return ""
		}
	}
	sd, ok := d.resolve(n).(types.StreamDict)
	if !ok {
		return ""
	}
	data, _, err := d.streamData(n)
	if len(data) == 0 || (err != nil && len(data) == 0) {
		return ""
	}
	in := &interp{ctx: ctx, doc: d, noGeom: true}
	in.path.reset()
	in.run(data, d.dict(sd.Dict["Resources"]), identity, graphics{paint: paint{lineWidth: 1}}, 1, nil)
	// Appearances are usually forms inside the stream (a signature's /FRM, /n0, /n2): the
	// glyphs of those count as its own.
	glyphs := in.glyphs
	for _, f := range in.figs {
		for _, it := range f.Items {
			if it.Glyph != nil {
				glyphs = append(glyphs, *it.Glyph)
			}
		}
	}
	var parts []string
	for _, tb := range Analyze(glyphs, 1e4, 1e4, DefaultLAParams()) {
		if t := strings.Join(strings.Fields(tb.Text()), " "); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}

// fieldValue reads a widget's field name and value, following /Parent for inherited entries.
func (d *Document) fieldValue(w types.Dict) (name, value string) {
	node := w
	var ft string
	var v types.Object
	var parts []string
	for depth := 0; node != nil && depth < 32; depth++ {
		if t := d.textString(node["T"]); t != "" {
			parts = append([]string{t}, parts...)
		}
		if ft == "" {
			ft = d.name(node["FT"])
		}
		if v == nil {
			if o, ok := node.Find("V"); ok {
				v = o
			}
		}
		node = d.dict(node["Parent"])
	}
	name = strings.Join(parts, ".")
	if v == nil {
		return name, ""
	}
	switch ft {
	case "Tx", "Ch":
		switch x := d.resolve(v).(type) {
		case types.Array:
			var vals []string
			for _, e := range x {
				vals = append(vals, d.textString(e))
			}
			return name, strings.Join(vals, ", ")
		default:
			return name, d.textString(v)
		}
	}
	return name, ""
}

// CenterY is a helper for callers mapping page space (origin bottom-left) to top-left space.
func (p *Page) TopLeft(x0, y0, x1, y1 float64) (left, top, right, bottom float64) {
	return x0, p.Height - y1, x1, p.Height - y0
}

var _ = math.Inf
