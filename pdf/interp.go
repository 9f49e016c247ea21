package pdf

import (
	"context"
	"errors"
	"math"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// matrix is an affine transform (a b c d e f) in PDF order: x' = a·x + c·y + e, y' = b·x + d·y + f.
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m applied first, then n (pdfminer's mult_matrix(m, n)).
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]
}

// Glyph is one shown character in page space (PDF points, origin at the bottom-left of the
// MediaBox after /Rotate), with the box pdfminer's LTChar would have.
type Glyph struct {
	Text           string
	X0, Y0, X1, Y1 float64
	// Size is the glyph box height for horizontal text (pdfminer's LTChar.size).
	Size float64
	// Adv is the advance in text space times the font size and horizontal scaling.
	Adv     float64
	Font    string
	Upright bool
	// Dir is the quadrant the text runs in: 0 left to right, 1 upwards (turned 90°
	// counter-clockwise), 2 right to left (upside down), 3 downwards (see TurnUpright).
	Dir uint8
	// Slant is the baseline's angle off the axis of its quadrant Dir, in radians (−π/4 to
	// π/4, counter-clockwise positive): zero for text set square to the page, 0.52 for a
	// watermark turned 30° (or 120°, quadrant 1). Turning the page by quarters keeps it.
	Slant float64
	// Invisible is set for text rendering mode 3 (typically an OCR layer under a scan).
	Invisible bool
	// Clipped is set when the clip in force hides the glyph entirely (pdfminer keeps such
	// glyphs, so the fast strategy does too; a layout drops them).
	Clipped bool
}

func (g *Glyph) width() float64  { return g.X1 - g.X0 }
func (g *Glyph) height() float64 { return g.Y1 - g.Y0 }

// Figure is the content of one Form XObject drawn at page level: pdfminer's LTFigure. Its
// glyphs are not grouped into lines (LAParams.all_texts is false); Items keeps the drawing
// order, with Break entries where a path or image sits between glyphs.
type Figure struct {
	X0, Y0, X1, Y1 float64
	Items          []FigureItem
}

// FigureItem is a glyph of a figure or, when Glyph is nil, a non-text object (path, image).
type FigureItem struct {
	Glyph *Glyph
}

// ActualText is a marked-content span with /ActualText: the replacement text of glyphs
// [Start, End) of the page-level glyph list.
type ActualText struct {
	Text       string
	Start, End int
}

type textState struct {
	font     *font
	fontName string
	size     float64
	charSp   float64
	wordSp   float64
	scaling  float64 // percent
	leading  float64 // pdfminer keeps -TL
	render   int
	rise     float64
	tm       matrix
	line     [2]float64
}

type gstate struct {
	ctm matrix
	ts  textState
	gfx graphics
}

// graphics is the part of the graphics state the page geometry needs; a Form XObject inherits
// it from where it is drawn.
type graphics struct {
	clip  clipBox
	paint paint
}

// interp runs content streams for one page.
type interp struct {
	ctx    context.Context
	doc    *Document
	glyphs []Glyph
	figs   []Figure
	actual []ActualText
	// cur is the figure being filled (nil at page level).
	cur     *Figure
	codes   []decodedCode
	opCount int
	// nofont stands in for an undefined font (one per page, so its glyph cache is shared).
	nofont *font
	// marked content stack: index into actual for spans with ActualText, else -1.
	marked []int
	errs   []error
	// forms counts Form XObject invocations; formStack holds those being drawn.
	forms     int
	formStack []int
	// geom collects the page's vector graphics and image placements; path is the path under
	// construction; clip is the clip in force for the glyphs being shown.
	geom geomBuilder
	path path
	clip clipBox
	// noGeom skips the geometry (LAParams.NoGeometry).
	noGeom bool
	// substWidths gives codes their font declares no width for a substitute advance
	// (LAParams.SubstituteWidths, font.substituteWidth).
	substWidths bool
	// probe, when set, is shown every glyph instead of storing it (PageHasText); the run stops
	// once it returns true.
	probe   func(g Glyph, inFigure bool) bool
	stopped bool
}

// maxFormsPerPage bounds Form XObject invocations per page.
const maxFormsPerPage = 10000

// maxFormDepth bounds Form XObject recursion (and cycles through shared resources).
const maxFormDepth = 12

// maxOps bounds the operators run per page so a pathological stream cannot spin for minutes.
const maxOps = 20_000_000

var errTooManyOps = errors.New("pdf: content stream exceeds the operator limit")

func (in *interp) run(data []byte, res types.Dict, ctm matrix, gfx graphics, formDepth int, stack []types.Dict) {
	l := &lexer{b: data}
	st := gstate{ctm: ctm, ts: textState{scaling: 100, tm: identity}, gfx: gfx}
	clipNext := false
	var gstack []gstate
	var ops []any
	hasPath := false
	for {
		tok, ok := l.next()
		if !ok {
			break
		}
		op, isOp := tok.(pop)
		if !isOp {
			if len(ops) < 64 {
				ops = append(ops, tok)
			}
			continue
		}
		in.opCount++
		if in.stopped {
			return
		}
		if in.opCount > maxOps {
			in.errs = append(in.errs, errTooManyOps)
			return
		}
		if in.opCount&0xFFFF == 0 && in.ctx.Err() != nil {
			in.errs = append(in.errs, in.ctx.Err())
			return
		}
		ts := &st.ts
		switch op {
		case "q":
			if len(gstack) < 256 {
				gstack = append(gstack, st)
			}
		case "Q":
			if n := len(gstack); n > 0 {
				st = gstack[n-1]
				gstack = gstack[:n-1]
			}
		case "cm":
			if m, ok := matrixOperand(ops); ok {
				st.ctm = m.mul(st.ctm)
			}
		case "BT":
			ts.tm = identity
			ts.line = [2]float64{}
		case "ET":
		case "Tf":
			if len(ops) >= 2 {
				if n, ok := ops[len(ops)-2].(pname); ok {
					ts.fontName = string(n)
					ts.font = in.fontResource(res, string(n))
				}
				ts.size = num(ops[len(ops)-1])
			}
		case "Tc":
			ts.charSp = lastNum(ops)
		case "Tw":
			ts.wordSp = lastNum(ops)
		case "Tz":
			ts.scaling = lastNum(ops)
		case "TL":
			ts.leading = -lastNum(ops)
		case "Tr":
			ts.render = int(lastNum(ops))
		case "Ts":
			ts.rise = lastNum(ops)
		case "Td", "TD":
			if len(ops) >= 2 {
				tx, ty := num(ops[len(ops)-2]), num(ops[len(ops)-1])
				m := ts.tm
				ts.tm = matrix{m[0], m[1], m[2], m[3], tx*m[0] + ty*m[2] + m[4], tx*m[1] + ty*m[3] + m[5]}
				ts.line = [2]float64{}
				if op == "TD" {
					ts.leading = ty
				}
			}
		case "Tm":
			if m, ok := matrixOperand(ops); ok {
				ts.tm = m
				ts.line = [2]float64{}
			}
		case "T*":
			in.nextLine(ts)
		case "Tj":
			if len(ops) >= 1 {
				if s, ok := ops[len(ops)-1].(pstr); ok {
					in.show(&st, parray{s})
				}
			}
		case "TJ":
			if len(ops) >= 1 {
				if a, ok := ops[len(ops)-1].(parray); ok {
					in.show(&st, a)
				}
			}
		case "'":
			in.nextLine(ts)
			if len(ops) >= 1 {
				if s, ok := ops[len(ops)-1].(pstr); ok {
					in.show(&st, parray{s})
				}
			}
		case "\"":
			if len(ops) >= 3 {
				ts.wordSp = num(ops[len(ops)-3])
				ts.charSp = num(ops[len(ops)-2])
				in.nextLine(ts)
				if s, ok := ops[len(ops)-1].(pstr); ok {
					in.show(&st, parray{s})
				}
			}
		case "gs":
			if len(ops) >= 1 {
				if n, ok := ops[len(ops)-1].(pname); ok {
					in.extGState(res, string(n), ts)
				}
			}
		case "Do":
			if len(ops) >= 1 {
				if n, ok := ops[len(ops)-1].(pname); ok {
					in.doXObject(res, string(n), &st, formDepth, stack)
				}
			}
		case "BI":
			// Skip the inline image dictionary and data; it is an image object for layout.
			var head []any
			for {
				t, ok := l.next()
				if !ok {
					break
				}
				if o, isOp := t.(pop); isOp && o == "ID" {
					l.skipInlineImage()
					break
				}
				if len(head) < 64 {
					head = append(head, t)
				}
			}
			if !in.noGeom {
				in.inlineImage(head, &st)
			}
			in.addBreak()
		case "BMC":
			in.marked = append(in.marked, -1)
		case "BDC":
			idx := -1
			if len(ops) >= 2 {
				props := in.properties(res, ops[len(ops)-1])
				if v, ok := props["ActualText"]; ok {
					if s, ok := v.(pstr); ok && in.cur == nil {
						in.actual = append(in.actual, ActualText{Text: decodeTextString(s), Start: len(in.glyphs)})
						idx = len(in.actual) - 1
					}
				}
			}
			in.marked = append(in.marked, idx)
		case "EMC":
			if n := len(in.marked); n > 0 {
				if idx := in.marked[n-1]; idx >= 0 && idx < len(in.actual) {
					in.actual[idx].End = len(in.glyphs)
				}
				in.marked = in.marked[:n-1]
			}
		case "m", "l", "c", "v", "y", "h", "re":
			hasPath = true
			if !in.noGeom {
				in.path.op(op, ops, st.ctm)
			}
		case "S", "s", "f", "F", "f*", "B", "B*", "b", "b*":
			if hasPath {
				in.addBreak()
			}
			hasPath = false
			if in.noGeom {
				break
			}
			if op == "s" || op == "b" || op == "b*" {
				in.path.op("h", nil, st.ctm)
			}
			stroke := op == "S" || op == "s" || op[0] == 'B' || op[0] == 'b'
			fill := op != "S" && op != "s"
			in.geom.paintPath(&in.path, stroke, fill, &st.gfx.paint, st.ctm, st.gfx.clip)
			in.endPath(&st, &clipNext)
		case "n":
			hasPath = false
			if !in.noGeom {
				in.endPath(&st, &clipNext)
			}
		case "W", "W*":
			clipNext = true
		case "w":
			st.gfx.paint.lineWidth = math.Abs(lastNum(ops))
		case "g", "rg", "k":
			if v, ok := colorGray(ops, 0); ok {
				st.gfx.paint.fillGray = v
			}
			st.gfx.paint.fillComps = deviceComps(op)
		case "G", "RG", "K":
			if v, ok := colorGray(ops, 0); ok {
				st.gfx.paint.strokeGray = v
			}
			st.gfx.paint.strokeComps = deviceComps(op)
		case "sc", "scn":
			if v, ok := colorGray(ops, st.gfx.paint.fillComps); ok {
				st.gfx.paint.fillGray = v
			}
		case "SC", "SCN":
			if v, ok := colorGray(ops, st.gfx.paint.strokeComps); ok {
				st.gfx.paint.strokeGray = v
			}
		case "cs", "CS":
			// A new colour space starts at its initial colour, black for the device spaces.
			comps := colorSpaceComps(lastName(ops))
			if op == "cs" {
				st.gfx.paint.fillComps, st.gfx.paint.fillGray = comps, 0
			} else {
				st.gfx.paint.strokeComps, st.gfx.paint.strokeGray = comps, 0
			}
		}
		ops = ops[:0]
	}
}

func (in *interp) nextLine(ts *textState) {
	m := ts.tm
	ts.tm = matrix{m[0], m[1], m[2], m[3], ts.leading*m[2] + m[4], ts.leading*m[3] + m[5]}
	ts.line = [2]float64{}
}

// addBreak records a non-text object: inside a figure it separates text (pdfminer's
// _extract_text yields "\n" for it); at page level it does not take part in text layout.
func (in *interp) addBreak() {
	if in.cur != nil {
		in.cur.Items = append(in.cur.Items, FigureItem{})
	}
}

func (in *interp) fontResource(res types.Dict, name string) *font {
	fonts := in.doc.dict(res["Font"])
	if fonts == nil {
		return nil
	}
	o, ok := fonts[name]
	if !ok {
		return nil
	}
	f, err := in.doc.loadFont(o)
	if err != nil {
		return nil
	}
	return f
}

func (in *interp) extGState(res types.Dict, name string, ts *textState) {
	gs := in.doc.dict(in.doc.dict(res["ExtGState"])[name])
	if gs == nil {
		return
	}
	if fa := in.doc.array(gs["Font"]); len(fa) == 2 {
		if f, err := in.doc.loadFont(fa[0]); err == nil {
			ts.font = f
			ts.size, _ = in.doc.number(fa[1])
		}
	}
}

func (in *interp) properties(res types.Dict, o any) pdict {
	switch v := o.(type) {
	case pdict:
		return v
	case pname:
		pd := in.doc.dict(in.doc.dict(res["Properties"])[string(v)])
		if pd == nil {
			return nil
		}
		out := pdict{}
		if b, ok := in.doc.stringBytes(pd["ActualText"]); ok {
			out["ActualText"] = pstr(b)
		}
		return out
	}
	return nil
}

func (in *interp) doXObject(res types.Dict, name string, st *gstate, formDepth int, stack []types.Dict) {
	ctm := st.ctm
	xobjs := in.doc.dict(res["XObject"])
	if xobjs == nil {
		return
	}
	ref, ok := xobjs[name]
	if !ok {
		return
	}
	sd, ok := in.doc.resolve(ref).(types.StreamDict)
	if !ok {
		return
	}
	switch in.doc.name(sd.Dict["Subtype"]) {
	case "Image":
		if !in.noGeom {
			in.imageXObject(ref, sd.Dict, name, st)
		}
		in.addBreak()
		return
	case "Form":
	default:
		return
	}
	if formDepth >= maxFormDepth || in.forms >= maxFormsPerPage {
		return
	}
	// A form drawing itself (directly or through others) is a cycle, not nesting: skip it, or a
	// stream with k self-invocations would cost k^depth.
	if ir, ok := ref.(types.IndirectRef); ok {
		for _, n := range in.formStack {
			if n == ir.ObjectNumber.Value() {
				return
			}
		}
		in.formStack = append(in.formStack, ir.ObjectNumber.Value())
		defer func() { in.formStack = in.formStack[:len(in.formStack)-1] }()
	}
	in.forms++
	data, _, err := in.doc.streamData(ref)
	if err != nil {
		in.errs = append(in.errs, err)
		if len(data) == 0 {
			return
		}
	}
	m := identity
	if a := in.doc.array(sd.Dict["Matrix"]); len(a) == 6 {
		for i := range a {
			m[i], _ = in.doc.number(a[i])
		}
	}
	fctm := m.mul(ctm)
	fres := in.doc.dict(sd.Dict["Resources"])
	if fres == nil {
		fres = res
	}
	gfx := st.gfx
	outer := in.cur
	bb, hasBBox := in.doc.rect(sd.Dict["BBox"])
	if hasBBox {
		// The form's BBox clips what it draws.
		x0, y0, x1, y1 := boundRect(fctm, bb)
		gfx.clip = gfx.clip.intersect(x0, y0, x1, y1)
	}
	if outer == nil {
		fig := Figure{}
		if hasBBox {
			fig.X0, fig.Y0, fig.X1, fig.Y1 = boundRect(fctm, bb)
		}
		in.figs = append(in.figs, fig)
		in.cur = &in.figs[len(in.figs)-1]
	}
	in.run(data, fres, fctm, gfx, formDepth+1, stack)
	if outer == nil {
		in.cur = nil
	} else {
		in.cur = outer
	}
}

func boundRect(m matrix, r [4]float64) (x0, y0, x1, y1 float64) {
	x0, y0 = math.Inf(1), math.Inf(1)
	x1, y1 = math.Inf(-1), math.Inf(-1)
	for _, p := range [4][2]float64{{r[0], r[1]}, {r[2], r[1]}, {r[0], r[3]}, {r[2], r[3]}} {
		x, y := m.apply(p[0], p[1])
		x0, y0, x1, y1 = math.Min(x0, x), math.Min(y0, y), math.Max(x1, x), math.Max(y1, y)
	}
	return
}

// show renders a TJ-style sequence exactly as pdfminer's render_string does for horizontal
// text: numbers move the pen, Tc applies between glyphs, Tw after code 32.
func (in *interp) show(st *gstate, seq parray) {
	ts := &st.ts
	f := ts.font
	if f == nil {
		// Undefined (or unreadable) font: pdfminer substitutes a default Type1 font, whose codes
		// read through StandardEncoding; we keep positions moving with a nominal width so the
		// layout stays sane.
		if in.nofont == nil {
			in.nofont = &font{hscale: 0.001, vscale: 0.001, dw: 500, missing: 500, encoding: standardEncoding}
		}
		f = in.nofont
	}
	m := ts.tm.mul(st.ctm)
	in.clip = st.gfx.clip
	scaling := ts.scaling * 0.01
	dxscale := 0.001 * ts.size * scaling
	x, y := ts.line[0], ts.line[1]
	needCharSp := false
	if f.vertical {
		in.showVertical(m, f, ts, seq, dxscale, scaling)
		return
	}
	for _, item := range seq {
		switch v := item.(type) {
		case float64:
			x -= v * dxscale
			needCharSp = true
		case pstr:
			in.codes = f.codes(v, in.codes)
			for _, dc := range in.codes {
				if needCharSp {
					x += ts.charSp
				}
				text, w := f.glyph(dc)
				if w == 0 && in.substWidths {
					w = f.substituteWidth(dc, text)
				}
				adv := w * ts.size * scaling
				in.addGlyph(m, x, y, f, ts, text, adv, scaling)
				x += adv
				if dc.cid == 32 && ts.wordSp != 0 && dc.n == 1 {
					x += ts.wordSp
				}
				needCharSp = true
			}
		}
	}
	ts.line = [2]float64{x, y}
}

func (in *interp) addGlyph(m matrix, x, y float64, f *font, ts *textState, text string, adv, scaling float64) {
	gm := matrix{m[0], m[1], m[2], m[3], x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]}
	descent := f.descent * f.vscale * ts.size
	x0, y0 := gm.apply(0, descent+ts.rise)
	x1, y1 := gm.apply(adv, descent+ts.rise+ts.size)
	if x1 < x0 {
		x0, x1 = x1, x0
	}
	if y1 < y0 {
		y0, y1 = y1, y0
	}
	if math.IsNaN(x0+y0+x1+y1) || math.IsInf(x0+y0+x1+y1, 0) {
		return
	}
	g := Glyph{
		Text: text, X0: x0, Y0: y0, X1: x1, Y1: y1, Size: y1 - y0, Adv: adv, Font: f.name,
		Upright:   0 < gm[0]*gm[3]*scaling && gm[1]*gm[2] <= 0,
		Invisible: ts.render == 3 || ts.render == 7,
		Dir:       quadrant(gm[0]*scaling, gm[1]*scaling),
		Slant:     slant(gm[0]*scaling, gm[1]*scaling),
	}
	in.appendGlyph(g)
}

// appendGlyph adds a glyph to the page, or to the figure being drawn, marking it clipped when
// the clip in force hides it.
func (in *interp) appendGlyph(g Glyph) {
	if in.clip.hides(g.X0, g.Y0, g.X1, g.Y1) {
		g.Clipped = true
		in.geom.g.Hidden++
	}
	if in.probe != nil {
		in.stopped = in.stopped || in.probe(g, in.cur != nil)
		return
	}
	if in.cur != nil {
		gp := g
		in.cur.Items = append(in.cur.Items, FigureItem{Glyph: &gp})
		return
	}
	in.glyphs = append(in.glyphs, g)
}

// showVertical renders a TJ-style sequence of a vertical (WMode 1) font as pdfminer's
// render_string_vertical does: each glyph moves the pen down by its vertical advance (DW2's
// default, one em), numbers move it along the column, Tc and Tw apply along it. Each glyph's
// box is one em wide, centred on the pen's x, from 0.12 em above the pen to 0.88 em below
// (DW2's default position vector 880), and its Dir says the text runs downwards (see
// TurnUpright).
func (in *interp) showVertical(m matrix, f *font, ts *textState, seq parray, dxscale, scaling float64) {
	x, y := ts.line[0], ts.line[1]
	needCharSp := false
	for _, item := range seq {
		switch v := item.(type) {
		case float64:
			y -= v * dxscale
			needCharSp = true
		case pstr:
			in.codes = f.codes(v, in.codes)
			for _, dc := range in.codes {
				if needCharSp {
					y += ts.charSp
				}
				text, _ := f.glyph(dc)
				adv := -ts.size * scaling
				gm := matrix{m[0], m[1], m[2], m[3], x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]}
				vx, vy := 0.5*ts.size, 0.12*ts.size
				ax, ay := gm.apply(-vx, vy+ts.rise+adv)
				bx, by := gm.apply(-vx+ts.size, vy+ts.rise)
				x0, y0, x1, y1 := math.Min(ax, bx), math.Min(ay, by), math.Max(ax, bx), math.Max(ay, by)
				if !math.IsNaN(x0+y0+x1+y1) && !math.IsInf(x0+y0+x1+y1, 0) {
					g := Glyph{
						Text: text, X0: x0, Y0: y0, X1: x1, Y1: y1, Size: x1 - x0, Adv: -adv, Font: f.name,
						Upright:   0 < gm[0]*gm[3]*scaling && gm[1]*gm[2] <= 0,
						Invisible: ts.render == 3 || ts.render == 7,
						Dir:       quadrant(-gm[2], -gm[3]),
						Slant:     slant(-gm[2], -gm[3]),
					}
					in.appendGlyph(g)
				}
				y += adv
				if dc.cid == 32 && ts.wordSp != 0 && dc.n == 1 {
					y += ts.wordSp
				}
				needCharSp = true
			}
		}
	}
	ts.line = [2]float64{x, y}
}

func num(o any) float64 {
	if v, ok := o.(float64); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v
	}
	return 0
}

func lastNum(ops []any) float64 {
	if len(ops) == 0 {
		return 0
	}
	return num(ops[len(ops)-1])
}

func matrixOperand(ops []any) (matrix, bool) {
	if len(ops) < 6 {
		return matrix{}, false
	}
	var m matrix
	for i := 0; i < 6; i++ {
		v, ok := ops[len(ops)-6+i].(float64)
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return matrix{}, false
		}
		m[i] = v
	}
	return m, true
}
