package pdf

import (
	"image"
	"image/jpeg"
	"io"
	"math"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Page geometry: the vector graphics and image placements of a page, read in the same pass as
// its text (interp.go) for layout analysis and table detection. Everything is in page space
// (PDF points, origin at the bottom-left after /Rotate, the CTM applied), like glyphs. The
// fast strategy ignores it: pdfminer's text boxes do not depend on it.

// SegmentKind says where a segment came from.
type SegmentKind uint8

const (
	// SegStroke is a stroked straight line (a path's m/l, a closed subpath's closing edge, or
	// an edge of a stroked rectangle that is not axis-aligned in page space).
	SegStroke SegmentKind = iota
	// SegRule is a very thin filled rectangle (thinner than MaxRuleThickness), which a
	// viewer draws as a line: many producers draw table rules this way. The segment runs
	// along the rectangle's centre line; Width is its thickness.
	SegRule
	// SegFillEdge is an edge of a filled non-rectangular shape (a polygon of a chart or a
	// logo); not a rule.
	SegFillEdge
	// SegCurve is the chord of a Bézier curve (stroked or filled), start to end point; curves
	// are figure content, never rules.
	SegCurve
)

// MaxRuleThickness is the thickness (points) under which a filled rectangle is a rule.
const MaxRuleThickness = 2.0

// Segment is a straight painted line in page space.
type Segment struct {
	X0, Y0, X1, Y1 float64
	// Width is the stroke width in page space (at least a hairline's 0), or the thickness of
	// a SegRule.
	Width float64
	// Gray is the luminance of the paint, 0 black to 1 white.
	Gray float32
	Kind SegmentKind
}

// Horizontal reports whether the segment is horizontal within tol points.
func (s *Segment) Horizontal(tol float64) bool { return math.Abs(s.Y1-s.Y0) <= tol }

// Vertical reports whether the segment is vertical within tol points.
func (s *Segment) Vertical(tol float64) bool { return math.Abs(s.X1-s.X0) <= tol }

// Rect is a painted axis-aligned rectangle in page space (from the re operator or a closed
// four-corner subpath), X0 ≤ X1, Y0 ≤ Y1. Thin filled rectangles are Segments of kind SegRule
// instead.
type Rect struct {
	X0, Y0, X1, Y1 float64
	Fill, Stroke   bool
	// FillGray and StrokeGray are the luminance of the paints, 0 black to 1 white (a white
	// filled rectangle usually erases a background, it draws nothing visible).
	FillGray, StrokeGray float32
	// LineWidth is the stroke width in page space when Stroke is set.
	LineWidth float64
}

// Image is the placement of a raster image on the page: an Image XObject (also one drawn
// inside a Form XObject) or an inline image (BI … ID … EI).
type Image struct {
	// X0..Y1 bound the unit square mapped by the CTM, cut to the clip in force.
	X0, Y0, X1, Y1 float64
	// PixW and PixH are the image's size in samples (its /Width and /Height).
	PixW, PixH int
	// Name is the XObject's resource name ("" for an inline image).
	Name string
	// Ref is the object number of the image XObject (0 for an inline image or a direct
	// object).
	Ref int
	// Filter is the image's last filter name (DCTDecode: the stream is a JPEG file).
	Filter string
	Inline bool
	// ImageMask is set for a stencil mask (a shape painted in the fill colour, not a picture).
	ImageMask bool
}

// MaxPathItems bounds the segments and rectangles kept per page (after merging touching
// collinear pieces): a map or a chart with a million path segments keeps the first ones and
// counts the rest in Geometry.Dropped, with their extent in Geometry.DroppedBox, so a page
// costs bounded memory and a layout still sees where the drawing is.
const MaxPathItems = 20000

// maxPathPoints bounds the points of one path under construction; beyond it only the path's
// extent grows.
const maxPathPoints = 50000

// Geometry is a page's vector graphics and image placements.
type Geometry struct {
	Segments []Segment
	Rects    []Rect
	Images   []Image
	// Dropped counts painted path items beyond MaxPathItems (and points of one path beyond
	// its own bound); DroppedBox bounds them (zero when none).
	Dropped                                    int
	DroppedX0, DroppedY0, DroppedX1, DroppedY1 float64
	// Hidden counts paths, images and glyphs dropped or marked because the clip in force
	// hides them entirely.
	Hidden int
}

// clipBox is the clip region's bounding box in page space; the zero value is "no clip".
type clipBox struct {
	set bool
	// none is set when the clip has no area: it hides everything.
	none           bool
	x0, y0, x1, y1 float64
}

func (c clipBox) hides(x0, y0, x1, y1 float64) bool {
	return c.none || (c.set && (x1 < c.x0 || x0 > c.x1 || y1 < c.y0 || y0 > c.y1))
}

func (c clipBox) intersect(x0, y0, x1, y1 float64) clipBox {
	n := clipBox{set: true, none: c.none, x0: x0, y0: y0, x1: x1, y1: y1}
	if c.set {
		n.x0, n.y0, n.x1, n.y1 = math.Max(c.x0, x0), math.Max(c.y0, y0), math.Min(c.x1, x1), math.Min(c.y1, y1)
	}
	if n.x1 <= n.x0 || n.y1 <= n.y0 {
		n.none = true
	}
	return n
}

// paint is the colour part of the graphics state the geometry needs.
type paint struct {
	lineWidth  float64
	fillGray   float32
	strokeGray float32
	// fillComps / strokeComps is the number of colour components of the current colour space
	// (1 gray, 3 RGB, 4 CMYK), for sc/scn.
	fillComps, strokeComps int
}

// pathPoint is a point of the path under construction, in page space.
type pathPoint struct {
	x, y float64
	// move starts a subpath; curve marks the point reached by a Bézier curve; close marks a
	// closepath back to the subpath's start.
	move, curve, close bool
}

// path is the path under construction.
type path struct {
	pts []pathPoint
	// rects are the re operators' rectangles as four corners in page space.
	rects [][4][2]float64
	// extent bounds everything added, also what did not fit in pts.
	ext   bbox
	empty bool
	over  int // points beyond maxPathPoints
}

func (p *path) reset() {
	p.pts, p.rects, p.over, p.empty = p.pts[:0], p.rects[:0], 0, true
}

func (p *path) grow(x, y float64) {
	if p.empty {
		p.ext, p.empty = bbox{x, y, x, y}, false
		return
	}
	p.ext = bbox{math.Min(p.ext.x0, x), math.Min(p.ext.y0, y), math.Max(p.ext.x1, x), math.Max(p.ext.y1, y)}
}

func (p *path) add(pt pathPoint) {
	if math.IsNaN(pt.x+pt.y) || math.IsInf(pt.x+pt.y, 0) {
		return
	}
	p.grow(pt.x, pt.y)
	if len(p.pts) >= maxPathPoints {
		p.over++
		return
	}
	p.pts = append(p.pts, pt)
}

// pathOp applies one path-construction operator with operands ops under ctm.
func (p *path) op(op pop, ops []any, ctm matrix) {
	nums := func(n int) ([]float64, bool) {
		if len(ops) < n {
			return nil, false
		}
		var buf [6]float64
		for i := 0; i < n; i++ {
			v, ok := ops[len(ops)-n+i].(float64)
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, false
			}
			buf[i] = v
		}
		return buf[:n], true
	}
	last := func() (float64, float64, bool) {
		if len(p.pts) == 0 {
			return 0, 0, false
		}
		q := p.pts[len(p.pts)-1]
		return q.x, q.y, true
	}
	switch op {
	case "m":
		if v, ok := nums(2); ok {
			x, y := ctm.apply(v[0], v[1])
			p.add(pathPoint{x: x, y: y, move: true})
		}
	case "l":
		if v, ok := nums(2); ok {
			x, y := ctm.apply(v[0], v[1])
			p.add(pathPoint{x: x, y: y})
		}
	case "c":
		if v, ok := nums(6); ok {
			for i := 0; i < 4; i += 2 { // control points extend the extent only
				x, y := ctm.apply(v[i], v[i+1])
				p.grow(x, y)
			}
			x, y := ctm.apply(v[4], v[5])
			p.add(pathPoint{x: x, y: y, curve: true})
		}
	case "v", "y":
		if v, ok := nums(4); ok {
			x, y := ctm.apply(v[0], v[1])
			p.grow(x, y)
			x, y = ctm.apply(v[2], v[3])
			p.add(pathPoint{x: x, y: y, curve: true})
		}
	case "h":
		if x, y, ok := last(); ok {
			p.add(pathPoint{x: x, y: y, close: true})
		}
	case "re":
		if v, ok := nums(4); ok {
			x, y, w, h := v[0], v[1], v[2], v[3]
			var r [4][2]float64
			for i, c := range [4][2]float64{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}} {
				r[i][0], r[i][1] = ctm.apply(c[0], c[1])
				p.grow(r[i][0], r[i][1])
			}
			if len(p.rects) < maxPathPoints/4 {
				p.rects = append(p.rects, r)
			} else {
				p.over++
			}
			// re leaves the current point at (x, y), starting a new subpath there.
			p.add(pathPoint{x: r[0][0], y: r[0][1], move: true})
		}
	}
}

// geomBuilder collects a page's geometry under the bounds.
type geomBuilder struct {
	g Geometry
}

func (b *geomBuilder) full() bool { return len(b.g.Segments)+len(b.g.Rects) >= MaxPathItems }

func (b *geomBuilder) drop(x0, y0, x1, y1 float64) {
	if b.g.Dropped == 0 {
		b.g.DroppedX0, b.g.DroppedY0, b.g.DroppedX1, b.g.DroppedY1 = x0, y0, x1, y1
	} else {
		b.g.DroppedX0, b.g.DroppedY0 = math.Min(b.g.DroppedX0, x0), math.Min(b.g.DroppedY0, y0)
		b.g.DroppedX1, b.g.DroppedY1 = math.Max(b.g.DroppedX1, x1), math.Max(b.g.DroppedY1, y1)
	}
	b.g.Dropped++
}

// addSegment keeps s, cut to the clip, merging it into the previous segment when both lie on
// one horizontal or vertical line and touch (tables drawn cell edge by cell edge).
func (b *geomBuilder) addSegment(s Segment, clip clipBox) {
	x0, y0, x1, y1 := math.Min(s.X0, s.X1), math.Min(s.Y0, s.Y1), math.Max(s.X0, s.X1), math.Max(s.Y0, s.Y1)
	if clip.hides(x0, y0, x1, y1) {
		b.g.Hidden++
		return
	}
	if clip.set {
		if s.Horizontal(0.01) {
			s.X0, s.X1 = math.Max(x0, clip.x0), math.Min(x1, clip.x1)
		} else if s.Vertical(0.01) {
			s.Y0, s.Y1 = math.Max(y0, clip.y0), math.Min(y1, clip.y1)
		}
	}
	// Axis-aligned segments are stored left to right, bottom to top.
	if s.Horizontal(0.01) && s.X1 < s.X0 {
		s.X0, s.X1 = s.X1, s.X0
	}
	if s.Vertical(0.01) && s.Y1 < s.Y0 {
		s.Y0, s.Y1 = s.Y1, s.Y0
	}
	if n := len(b.g.Segments); n > 0 {
		p := &b.g.Segments[n-1]
		const tol = 0.5
		if p.Kind == s.Kind && p.Gray == s.Gray && math.Abs(p.Width-s.Width) < 0.1 {
			switch {
			case p.Horizontal(0.01) && s.Horizontal(0.01) && math.Abs(p.Y0-s.Y0) < 0.1 && s.X0 <= p.X1+tol && s.X1 >= p.X0-tol:
				p.X0, p.X1 = math.Min(p.X0, s.X0), math.Max(p.X1, s.X1)
				return
			case p.Vertical(0.01) && s.Vertical(0.01) && math.Abs(p.X0-s.X0) < 0.1 && s.Y0 <= p.Y1+tol && s.Y1 >= p.Y0-tol:
				p.Y0, p.Y1 = math.Min(p.Y0, s.Y0), math.Max(p.Y1, s.Y1)
				return
			}
		}
	}
	if b.full() {
		b.drop(x0, y0, x1, y1)
		return
	}
	b.g.Segments = append(b.g.Segments, s)
}

// addRect keeps an axis-aligned rectangle: a thin filled one as a rule, else as a Rect.
func (b *geomBuilder) addRect(x0, y0, x1, y1 float64, fill, stroke bool, pt *paint, lw float64, clip clipBox) {
	if clip.hides(x0, y0, x1, y1) {
		b.g.Hidden++
		return
	}
	if clip.set {
		x0, y0, x1, y1 = math.Max(x0, clip.x0), math.Max(y0, clip.y0), math.Min(x1, clip.x1), math.Min(y1, clip.y1)
	}
	w, h := x1-x0, y1-y0
	if fill && !stroke && (w < MaxRuleThickness || h < MaxRuleThickness) {
		if w <= 0 && h <= 0 {
			return // a point: nothing visible
		}
		s := Segment{Gray: pt.fillGray, Kind: SegRule}
		if w >= h {
			s.X0, s.X1, s.Y0, s.Y1, s.Width = x0, x1, (y0+y1)/2, (y0+y1)/2, h
		} else {
			s.X0, s.X1, s.Y0, s.Y1, s.Width = (x0+x1)/2, (x0+x1)/2, y0, y1, w
		}
		b.addSegment(s, clipBox{})
		return
	}
	if b.full() {
		b.drop(x0, y0, x1, y1)
		return
	}
	r := Rect{X0: x0, Y0: y0, X1: x1, Y1: y1, Fill: fill, Stroke: stroke, FillGray: pt.fillGray, StrokeGray: pt.strokeGray}
	if stroke {
		r.LineWidth = lw
	}
	b.g.Rects = append(b.g.Rects, r)
}

// axisRect returns the bounds of four corners forming an axis-aligned rectangle.
func axisRect(c [4][2]float64) (x0, y0, x1, y1 float64, ok bool) {
	const eps = 0.01
	x0, y0 = math.Min(math.Min(c[0][0], c[1][0]), math.Min(c[2][0], c[3][0])), math.Min(math.Min(c[0][1], c[1][1]), math.Min(c[2][1], c[3][1]))
	x1, y1 = math.Max(math.Max(c[0][0], c[1][0]), math.Max(c[2][0], c[3][0])), math.Max(math.Max(c[0][1], c[1][1]), math.Max(c[2][1], c[3][1]))
	for _, p := range c {
		if (math.Abs(p[0]-x0) > eps && math.Abs(p[0]-x1) > eps) || (math.Abs(p[1]-y0) > eps && math.Abs(p[1]-y1) > eps) {
			return 0, 0, 0, 0, false
		}
	}
	// Consecutive corners share an x or a y (not a bow tie).
	for i := 0; i < 4; i++ {
		a, b := c[i], c[(i+1)%4]
		if math.Abs(a[0]-b[0]) > eps && math.Abs(a[1]-b[1]) > eps {
			return 0, 0, 0, 0, false
		}
	}
	return x0, y0, x1, y1, true
}

// paintPath records the path under construction as painted with stroke and/or fill.
func (b *geomBuilder) paintPath(p *path, stroke, fill bool, pt *paint, ctm matrix, clip clipBox) {
	if p.empty {
		return
	}
	if clip.hides(p.ext.x0, p.ext.y0, p.ext.x1, p.ext.y1) {
		b.g.Hidden++
		return
	}
	if p.over > 0 {
		b.drop(p.ext.x0, p.ext.y0, p.ext.x1, p.ext.y1)
		b.g.Dropped += p.over - 1
	}
	lw := pt.lineWidth * math.Sqrt(math.Abs(ctm[0]*ctm[3]-ctm[1]*ctm[2]))
	for _, r := range p.rects {
		if x0, y0, x1, y1, ok := axisRect(r); ok {
			b.addRect(x0, y0, x1, y1, fill, stroke, pt, lw, clip)
			continue
		}
		for i := 0; i < 4; i++ {
			a, c := r[i], r[(i+1)%4]
			b.edge(a[0], a[1], c[0], c[1], false, stroke, pt, lw, clip)
		}
	}
	// Subpaths: a closed four-corner one is a rectangle; the others are edges.
	pts := p.pts
	for i := 0; i < len(pts); {
		j := i + 1
		for j < len(pts) && !pts[j].move {
			j++
		}
		b.subpath(pts[i:j], stroke, fill, pt, lw, clip)
		i = j
	}
}

func (b *geomBuilder) subpath(sp []pathPoint, stroke, fill bool, pt *paint, lw float64, clip clipBox) {
	if len(sp) < 2 {
		return
	}
	closed := fill
	corners := sp
	for len(corners) > 0 && corners[len(corners)-1].close {
		closed = true
		corners = corners[:len(corners)-1]
	}
	// Corners of a rectangle drawn as m l l l (h), the last point possibly repeating the first.
	if n := len(corners); n == 5 && math.Abs(corners[4].x-corners[0].x) < 0.01 && math.Abs(corners[4].y-corners[0].y) < 0.01 {
		corners = corners[:4]
	}
	if closed && len(corners) == 4 && !corners[1].curve && !corners[2].curve && !corners[3].curve {
		c := [4][2]float64{{corners[0].x, corners[0].y}, {corners[1].x, corners[1].y}, {corners[2].x, corners[2].y}, {corners[3].x, corners[3].y}}
		if x0, y0, x1, y1, ok := axisRect(c); ok {
			b.addRect(x0, y0, x1, y1, fill, stroke, pt, lw, clip)
			return
		}
	}
	for k := 1; k < len(corners); k++ {
		a, c := corners[k-1], corners[k]
		b.edge(a.x, a.y, c.x, c.y, c.curve, stroke, pt, lw, clip)
	}
	if closed && len(corners) > 1 {
		a, c := corners[len(corners)-1], corners[0]
		if a.x != c.x || a.y != c.y {
			b.edge(a.x, a.y, c.x, c.y, false, stroke, pt, lw, clip)
		}
	}
}

func (b *geomBuilder) edge(x0, y0, x1, y1 float64, curve, stroke bool, pt *paint, lw float64, clip clipBox) {
	if x0 == x1 && y0 == y1 {
		return // zero length: draws nothing (or a dot)
	}
	s := Segment{X0: x0, Y0: y0, X1: x1, Y1: y1, Gray: pt.fillGray, Kind: SegFillEdge}
	switch {
	case curve:
		s.Kind = SegCurve
		if stroke {
			s.Gray, s.Width = pt.strokeGray, lw
		}
	case stroke:
		s.Kind, s.Gray, s.Width = SegStroke, pt.strokeGray, lw
	}
	b.addSegment(s, clip)
}

// setColor reads a colour operator's operands into a luminance (gray, RGB or CMYK by count).
func colorGray(ops []any, comps int) (float32, bool) {
	var v []float64
	for _, o := range ops {
		if f, ok := o.(float64); ok {
			v = append(v, f)
		}
	}
	if comps > 0 && len(v) >= comps {
		v = v[len(v)-comps:]
	}
	clamp := func(f float64) float64 { return math.Max(0, math.Min(1, f)) }
	switch len(v) {
	case 1:
		return float32(clamp(v[0])), true
	case 3:
		return float32(0.299*clamp(v[0]) + 0.587*clamp(v[1]) + 0.114*clamp(v[2])), true
	case 4:
		k := clamp(v[3])
		r, g, bl := (1-clamp(v[0]))*(1-k), (1-clamp(v[1]))*(1-k), (1-clamp(v[2]))*(1-k)
		return float32(0.299*r + 0.587*g + 0.114*bl), true
	}
	return 0, false
}

// deviceComps is the component count of a device colour operator (g/G, rg/RG, k/K).
func deviceComps(op pop) int {
	switch op {
	case "g", "G":
		return 1
	case "rg", "RG":
		return 3
	}
	return 4
}

// colorSpaceComps is the component count of a colour space set by cs/CS; 0 (count the
// operands) for spaces that are not device spaces by name.
func colorSpaceComps(name string) int {
	switch name {
	case "DeviceGray", "G", "CalGray":
		return 1
	case "DeviceRGB", "RGB", "CalRGB":
		return 3
	case "DeviceCMYK", "CMYK":
		return 4
	}
	return 0
}

func lastName(ops []any) string {
	if len(ops) == 0 {
		return ""
	}
	n, _ := ops[len(ops)-1].(pname)
	return string(n)
}

// endPath ends the path under construction; after W or W* its extent narrows the clip.
func (in *interp) endPath(st *gstate, clipNext *bool) {
	if *clipNext {
		p := &in.path
		if p.empty {
			// Clipping to an empty path hides everything that follows.
			st.gfx.clip.set, st.gfx.clip.none = true, true
		} else {
			st.gfx.clip = st.gfx.clip.intersect(p.ext.x0, p.ext.y0, p.ext.x1, p.ext.y1)
		}
		*clipNext = false
	}
	in.path.reset()
}

// addImage records an image placed by the CTM (the unit square), cut to the clip.
func (in *interp) addImage(im Image, st *gstate) {
	x0, y0, x1, y1 := boundRect(st.ctm, [4]float64{0, 0, 1, 1})
	if math.IsNaN(x0+y0+x1+y1) || math.IsInf(x0+y0+x1+y1, 0) {
		return
	}
	c := st.gfx.clip
	if c.hides(x0, y0, x1, y1) {
		in.geom.g.Hidden++
		return
	}
	if c.set {
		x0, y0, x1, y1 = math.Max(x0, c.x0), math.Max(y0, c.y0), math.Min(x1, c.x1), math.Min(y1, c.y1)
	}
	if len(in.geom.g.Images) >= MaxPathItems {
		in.geom.drop(x0, y0, x1, y1)
		return
	}
	im.X0, im.Y0, im.X1, im.Y1 = x0, y0, x1, y1
	in.geom.g.Images = append(in.geom.g.Images, im)
}

func (in *interp) imageXObject(ref types.Object, d types.Dict, name string, st *gstate) {
	im := Image{Name: name}
	if ir, ok := ref.(types.IndirectRef); ok {
		im.Ref = ir.ObjectNumber.Value()
	}
	if v, ok := in.doc.number(d["Width"]); ok {
		im.PixW = int(v)
	}
	if v, ok := in.doc.number(d["Height"]); ok {
		im.PixH = int(v)
	}
	switch f := in.doc.resolve(d["Filter"]).(type) {
	case types.Name:
		im.Filter = string(f)
	case types.Array:
		if len(f) > 0 {
			im.Filter = in.doc.name(f[len(f)-1])
		}
	}
	if b, ok := in.doc.resolve(d["ImageMask"]).(types.Boolean); ok {
		im.ImageMask = bool(b)
	}
	in.addImage(im, st)
}

// inlineImage records an inline image from its dictionary tokens (abbreviated keys allowed).
func (in *interp) inlineImage(head []any, st *gstate) {
	im := Image{Inline: true}
	for i := 0; i+1 < len(head); i += 2 {
		k, ok := head[i].(pname)
		if !ok {
			continue
		}
		v := head[i+1]
		switch k {
		case "W", "Width":
			im.PixW = int(num(v))
		case "H", "Height":
			im.PixH = int(num(v))
		case "F", "Filter":
			switch f := v.(type) {
			case pname:
				im.Filter = string(f)
			case parray:
				if len(f) > 0 {
					if n, ok := f[len(f)-1].(pname); ok {
						im.Filter = string(n)
					}
				}
			}
		case "IM", "ImageMask":
			if b, ok := v.(bool); ok {
				im.ImageMask = b
			}
		}
	}
	switch im.Filter {
	case "DCT":
		im.Filter = "DCTDecode"
	case "Fl":
		im.Filter = "FlateDecode"
	}
	in.addImage(im, st)
}

// ImageJPEG returns image XObject ref (Image.Ref) as a JPEG file: the stream as it is when its
// only filter is DCTDecode, else the image decoded as ImageFile decodes it (Flate with
// predictors, 1 to 16 bits, gray, RGB, CMYK, ICCBased, Indexed) and encoded as JPEG, so a
// picture can be handed on without rendering; ok is false for any other image
// (ImageAsJPEG says why).
func (d *Document) ImageJPEG(ref int) (data []byte, ok bool) {
	data, err := d.ImageAsJPEG(ref)
	return data, err == nil
}

// ImageAsJPEG is ImageJPEG with the reason an image is not handed on (JPEG 2000, JBIG2, a
// stencil mask, a damaged stream, over maxImageSamples pixels…), for the warning a caller
// that falls back to rendering the placement, or gives up, owes its user.
func (d *Document) ImageAsJPEG(ref int) ([]byte, error) {
	_, data, err := d.encodedImage(ref, "image/jpeg", func(w io.Writer, img image.Image) error {
		return jpeg.Encode(w, img, &jpeg.Options{Quality: 90})
	})
	return data, err
}

// maxImageSamples bounds the images ImageJPEG and ImageFile decode (a 25-megapixel picture).
const maxImageSamples = 25 << 20
