package pdf

import "math"

// quadrant names the direction of the baseline vector (dx, dy) as Glyph.Dir does.
func quadrant(dx, dy float64) uint8 {
	if math.Abs(dx) >= math.Abs(dy) {
		if dx >= 0 {
			return 0
		}
		return 2
	}
	if dy > 0 {
		return 1
	}
	return 3
}

// slant is the angle of the baseline vector (dx, dy) off the axis of its quadrant.
func slant(dx, dy float64) float64 {
	a := math.Atan2(dy, dx) - float64(quadrant(dx, dy))*math.Pi/2
	for a > math.Pi {
		a -= 2 * math.Pi
	}
	for a <= -math.Pi {
		a += 2 * math.Pi
	}
	return a
}

// TurnUpright turns a page whose text mostly runs in one direction other than left to right
// — a landscape table or a booklet sheet drawn turned by the content stream rather than by
// /Rotate — so that its text reads left to right, as a reader turns the sheet: glyphs,
// figures, geometry, links and fields are mapped into the turned frame, Width and Height
// swapped for a quarter turn, and the boxes analysed again with params. It returns the
// quadrant turned (0: the page was left as it was). pdfminer does not do this (its lines of
// turned text fall apart into single characters), so the fast strategy does not call it;
// a layout does. Coordinates of a turned page are in the turned frame.
func (p *Page) TurnUpright(params LAParams) uint8 {
	var count [4]int
	tally := func(g *Glyph) {
		if !g.Invisible && g.Text != " " && g.Text != "" {
			count[g.Dir&3]++
		}
	}
	for i := range p.Glyphs {
		tally(&p.Glyphs[i])
	}
	for _, f := range p.Figures {
		for _, it := range f.Items {
			if it.Glyph != nil {
				tally(it.Glyph)
			}
		}
	}
	total := count[0] + count[1] + count[2] + count[3]
	q := uint8(0)
	for d := uint8(1); d < 4; d++ {
		if count[d] > count[q] {
			q = d
		}
	}
	// Most of the text, and enough of it to be more than a turned label or a margin note.
	if q == 0 || total < 20 || 10*count[q] < 6*total {
		return 0
	}
	W, H := p.Width, p.Height
	pt := func(x, y float64) (float64, float64) {
		switch q {
		case 1: // upwards: the sheet is turned clockwise
			return y, W - x
		case 3: // downwards: turned counter-clockwise
			return H - y, x
		default: // upside down
			return W - x, H - y
		}
	}
	box := func(x0, y0, x1, y1 float64) (float64, float64, float64, float64) {
		ax, ay := pt(x0, y0)
		bx, by := pt(x1, y1)
		return math.Min(ax, bx), math.Min(ay, by), math.Max(ax, bx), math.Max(ay, by)
	}
	turn := func(g *Glyph) {
		g.X0, g.Y0, g.X1, g.Y1 = box(g.X0, g.Y0, g.X1, g.Y1)
		g.Dir = (g.Dir - q) & 3
		g.Upright = g.Dir == 0
		if g.Upright {
			g.Size = g.Y1 - g.Y0
		}
	}
	for i := range p.Glyphs {
		turn(&p.Glyphs[i])
	}
	for fi := range p.Figures {
		f := &p.Figures[fi]
		f.X0, f.Y0, f.X1, f.Y1 = box(f.X0, f.Y0, f.X1, f.Y1)
		for _, it := range f.Items {
			if it.Glyph != nil {
				turn(it.Glyph)
			}
		}
	}
	g := &p.Geometry
	for i := range g.Segments {
		s := &g.Segments[i]
		s.X0, s.Y0 = pt(s.X0, s.Y0)
		s.X1, s.Y1 = pt(s.X1, s.Y1)
	}
	for i := range g.Rects {
		r := &g.Rects[i]
		r.X0, r.Y0, r.X1, r.Y1 = box(r.X0, r.Y0, r.X1, r.Y1)
	}
	for i := range g.Images {
		im := &g.Images[i]
		im.X0, im.Y0, im.X1, im.Y1 = box(im.X0, im.Y0, im.X1, im.Y1)
	}
	if g.Dropped > 0 {
		g.DroppedX0, g.DroppedY0, g.DroppedX1, g.DroppedY1 = box(g.DroppedX0, g.DroppedY0, g.DroppedX1, g.DroppedY1)
	}
	for i := range p.Links {
		l := &p.Links[i]
		l.X0, l.Y0, l.X1, l.Y1 = box(l.X0, l.Y0, l.X1, l.Y1)
	}
	for i := range p.Fields {
		f := &p.Fields[i]
		f.X0, f.Y0, f.X1, f.Y1 = box(f.X0, f.Y0, f.X1, f.Y1)
	}
	if q != 2 {
		p.Width, p.Height = H, W
	}
	p.Boxes = Analyze(p.Glyphs, p.Width, p.Height, params)
	return q
}
