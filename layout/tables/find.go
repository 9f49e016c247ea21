package tables

import (
	"context"
	"math"
	"sort"
)

// defaultMaxSegments bounds the stroked segments and filled rectangles read per page.
const defaultMaxSegments = 200000

// Find returns the tables of one page, top to bottom (then left to right). It fails only when
// ctx is done; a page without tables yields none.
func Find(ctx context.Context, p *Page, opt Options) ([]Table, error) {
	if p == nil {
		return nil, nil
	}
	if opt.MaxSegments <= 0 {
		opt.MaxSegments = defaultMaxSegments
	}
	// Words by direction: each direction is read in a frame where its text is upright.
	byDir := map[int][]int{}
	for i, w := range p.Words {
		if w.Text == "" || badRect(w.Box) {
			continue
		}
		d := norm(w.Dir)
		byDir[d] = append(byDir[d], i)
	}
	var out []Table
	dirs := make([]int, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Ints(dirs)
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		idx := byDir[d]
		if d != 0 && len(idx) < 6 {
			continue // a turned label, not a turned table
		}
		f := frame{dir: d, w: p.Width, h: p.Height}
		sub := Page{Width: p.Width, Height: p.Height, Words: make([]Word, len(idx))}
		if d == 90 || d == 270 {
			sub.Width, sub.Height = p.Height, p.Width
		}
		for k, i := range idx {
			w := p.Words[i]
			w.Box = f.to(w.Box)
			w.Dir = 0
			sub.Words[k] = w
		}
		if d == 0 {
			sub.Segments, sub.Rects = p.Segments, p.Rects
		} else {
			sub.Segments = make([]Segment, len(p.Segments))
			for k, s := range p.Segments {
				x0, y0 := f.pt(s.X0, s.Y0)
				x1, y1 := f.pt(s.X1, s.Y1)
				sub.Segments[k] = Segment{x0, y0, x1, y1, s.Width}
			}
			sub.Rects = make([]Rect, len(p.Rects))
			for k, r := range p.Rects {
				sub.Rects[k] = f.to(r)
			}
		}
		for _, r := range p.Regions {
			sub.Regions = append(sub.Regions, f.to(r))
		}
		for _, r := range p.Drawing {
			sub.Drawing = append(sub.Drawing, f.to(r))
		}
		ts, err := detect(ctx, &sub, opt)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			t.Dir = d
			t.Box = f.from(t.Box)
			for k := range t.Cells {
				if t.Cells[k].Box != (Rect{}) {
					t.Cells[k].Box = f.from(t.Cells[k].Box)
				}
			}
			for k, w := range t.Words {
				t.Words[k] = idx[w]
			}
			sort.Ints(t.Words)
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Box, out[j].Box
		if a.Y1 != b.Y1 && (a.Y0 >= b.Y1 || b.Y0 >= a.Y1) {
			return a.Y1 > b.Y1
		}
		return a.X0 < b.X0
	})
	return out, nil
}

// detect runs both passes on a page whose words are all upright.
func detect(ctx context.Context, p *Page, opt Options) ([]Table, error) {
	ws := p.Words
	body := bodySize(ws)
	used := make([]bool, len(ws))
	if len(p.Regions) > 0 {
		// Outside the hinted regions nothing is a table.
		for i, w := range ws {
			in := false
			for _, r := range p.Regions {
				if r.Contains((w.Box.X0+w.Box.X1)/2, (w.Box.Y0+w.Box.Y1)/2) {
					in = true
					break
				}
			}
			used[i] = !in
		}
	}
	// Text set at under a third of the body size, and under three points, is nobody's to
	// read (anchors and tags written at 1 pt); it would give tables cells and columns.
	for i, w := range ws {
		if w.Size < minf(3, body/3) {
			used[i] = true
		}
	}
	hs, vs := collectRules(p, opt.MaxSegments, p.Width*p.Height)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bridgeShortVerticals(hs, vs, maxf(ruleTol, body/2))
	groups := connect(hs, vs)
	out := ruledTables(stackGroups(groups, body), ws, used, body)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	boxes := frames(groups, body)
	for _, t := range textTables(ws, used, hs, vs, body, opt) {
		if !diagram(t, boxes) {
			out = append(out, t)
		}
	}
	return dropFigures(out, p.Drawing), nil
}

// frames returns the closed boxes drawn on the page: rule groups that enclose a single area.
// Shading is left out: tables shade their cells and bands one by one.
func frames(groups []ruleGroup, body float64) []Rect {
	var out []Rect
	gap := maxf(ruleTol, body/3)
	for _, g := range groups {
		var xv, yv []float64
		for _, v := range g.vs {
			xv = append(xv, v.x)
		}
		for _, h := range g.hs {
			yv = append(yv, h.y)
		}
		if len(positions(xv, gap)) == 2 && len(positions(yv, gap)) == 2 {
			out = append(out, g.box)
		}
	}
	return out
}

// diagram reports whether a table found from text alignment is text set in separate boxes (an
// organisation chart, a flow of framed steps): its filled cells lie in three or more
// different frames, most of them in some frame, and some row has cells in two frames side by
// side. A table inside one frame is not, nor one with shaded bands (stripes hold whole rows).
func diagram(t Table, boxes []Rect) bool {
	if len(boxes) < 3 {
		return false
	}
	in := map[int]bool{}
	perRow := map[int]map[int]bool{}
	framed, filled := 0, 0
	for _, c := range t.Cells {
		if c.Text == "" {
			continue
		}
		filled++
		x, y := (c.Box.X0+c.Box.X1)/2, (c.Box.Y0+c.Box.Y1)/2
		best, area := -1, math.Inf(1)
		for k, b := range boxes {
			if b.Contains(x, y) && b.W()*b.H() < area {
				best, area = k, b.W()*b.H()
			}
		}
		if best >= 0 && !t.Box.Inside(boxes[best]) {
			framed++
			in[best] = true
			if perRow[c.Row] == nil {
				perRow[c.Row] = map[int]bool{}
			}
			perRow[c.Row][best] = true
		}
	}
	// Boxes side by side on a row: the shaded bands of a striped table hold whole rows.
	side := false
	for _, fs := range perRow {
		side = side || len(fs) >= 2
	}
	return side && len(in) >= 3 && 2*framed > filled
}

// maxDrawingItems is how many drawing items (Page.Drawing) a table may enclose: an icon or a
// mark in a few cells is fine, a chart's strokes and polygons are not.
const maxDrawingItems = 12

// dropFigures removes tables that enclose more than maxDrawingItems drawing items.
func dropFigures(ts []Table, drawing []Rect) []Table {
	if len(drawing) <= maxDrawingItems {
		return ts
	}
	out := ts[:0]
	for _, t := range ts {
		n := 0
		for _, d := range drawing {
			if t.Box.Contains((d.X0+d.X1)/2, (d.Y0+d.Y1)/2) {
				n++
			}
		}
		if n <= maxDrawingItems {
			out = append(out, t)
		}
	}
	return out
}

// bodySize is the most common font size among the words, weighted by characters: the size
// of the page's running text, against which gaps are judged.
func bodySize(ws []Word) float64 {
	count := map[int]int{}
	for _, w := range ws {
		if w.Size > 0 {
			count[int(w.Size*2+0.5)] += len(w.Text)
		}
	}
	best, bn := 0, -1
	for k, n := range count {
		if n > bn || (n == bn && k < best) {
			best, bn = k, n
		}
	}
	if best == 0 {
		return 10
	}
	return float64(best) / 2
}

// frame maps page space to a space where text of direction dir is upright, and back.
type frame struct {
	dir  int
	w, h float64
}

func (f frame) pt(x, y float64) (float64, float64) {
	switch f.dir {
	case 90: // text advances up the page: turn the page clockwise
		return y, f.w - x
	case 270:
		return f.h - y, x
	case 180:
		return f.w - x, f.h - y
	}
	return x, y
}

func (f frame) inv(x, y float64) (float64, float64) {
	switch f.dir {
	case 90:
		return f.w - y, x
	case 270:
		return y, f.h - x
	case 180:
		return f.w - x, f.h - y
	}
	return x, y
}

func (f frame) to(r Rect) Rect   { return f.apply(r, f.pt) }
func (f frame) from(r Rect) Rect { return f.apply(r, f.inv) }

func (f frame) apply(r Rect, m func(x, y float64) (float64, float64)) Rect {
	x0, y0 := m(r.X0, r.Y0)
	x1, y1 := m(r.X1, r.Y1)
	return Rect{minf(x0, x1), minf(y0, y1), maxf(x0, x1), maxf(y0, y1)}
}
