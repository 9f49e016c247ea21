package tables

import (
	"math"
	"slices"
	"sort"
)

// hrule is a horizontal rule at height y from x0 to x1; vrule a vertical one at x from y0 to y1.
type hrule struct{ y, x0, x1 float64 }
type vrule struct{ x, y0, y1 float64 }

// ruleTol is how far (points) two rule ends may be apart and still meet, and how far a rule may
// lean and still count as horizontal or vertical: producers place rules to a fraction of a
// point, so a point is generous without joining rules a text line apart.
const ruleTol = 1.0

// maxRuleThickness is the thickness under which a filled rectangle is a rule, not shading.
const maxRuleThickness = 2.5

// collectRules turns segments and filled rectangles into merged horizontal and vertical rules.
// Slanted and degenerate (shorter than ruleTol) segments are ignored. Beyond maxSeg inputs only
// the longest are kept, so a page of a million path segments costs bounded work.
func collectRules(p *Page, maxSeg int, pageArea float64) ([]hrule, []vrule) {
	var hs []hrule
	var vs []vrule
	addH := func(y, x0, x1 float64) {
		if x1-x0 >= ruleTol {
			hs = append(hs, hrule{y, x0, x1})
		}
	}
	addV := func(x, y0, y1 float64) {
		if y1-y0 >= ruleTol {
			vs = append(vs, vrule{x, y0, y1})
		}
	}
	segs := p.Segments
	if len(segs) > maxSeg {
		segs = slices.Clone(segs)
		sort.Slice(segs, func(i, j int) bool { return segLen(segs[i]) > segLen(segs[j]) })
		segs = segs[:maxSeg]
	}
	for _, s := range segs {
		if v := s.X0 + s.X1 + s.Y0 + s.Y1; math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		dx, dy := math.Abs(s.X1-s.X0), math.Abs(s.Y1-s.Y0)
		switch {
		case dy <= ruleTol && dx > dy:
			addH((s.Y0+s.Y1)/2, math.Min(s.X0, s.X1), math.Max(s.X0, s.X1))
		case dx <= ruleTol && dy > dx:
			addV((s.X0+s.X1)/2, math.Min(s.Y0, s.Y1), math.Max(s.Y0, s.Y1))
		}
	}
	rects := p.Rects
	if len(rects) > maxSeg {
		rects = rects[:maxSeg]
	}
	nested := nestedShading(rects, pageArea)
	for k, r := range rects {
		if badRect(r) || nested[k] {
			continue
		}
		w, h := r.W(), r.H()
		switch {
		case h <= maxRuleThickness && w > 2*h:
			addH((r.Y0+r.Y1)/2, r.X0, r.X1)
		case w <= maxRuleThickness && h > 2*w:
			addV((r.X0+r.X1)/2, r.Y0, r.Y1)
		case w > maxRuleThickness && h > maxRuleThickness && w*h < pageArea/2:
			// Shading: its edges separate what it shades from its surroundings (a header
			// band, alternate rows). A page-sized background separates nothing.
			addH(r.Y0, r.X0, r.X1)
			addH(r.Y1, r.X0, r.X1)
			addV(r.X0, r.Y0, r.Y1)
			addV(r.X1, r.Y0, r.Y1)
		}
	}
	return mergeH(hs), mergeV(vs)
}

func segLen(s Segment) float64 { return math.Hypot(s.X1-s.X0, s.Y1-s.Y0) }

// mergeH joins horizontal rules at the same height (within ruleTol) that overlap or touch,
// so a rule drawn in pieces (one per cell) becomes one.
func mergeH(hs []hrule) []hrule {
	if len(hs) == 0 {
		return nil
	}
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].y != hs[j].y {
			return hs[i].y < hs[j].y
		}
		return hs[i].x0 < hs[j].x0
	})
	var out []hrule
	for i := 0; i < len(hs); {
		j := i + 1
		for j < len(hs) && hs[j].y-hs[j-1].y <= ruleTol/2 {
			j++
		}
		band := hs[i:j]
		sort.Slice(band, func(a, b int) bool { return band[a].x0 < band[b].x0 })
		cur := band[0]
		sumY, n := cur.y, 1.0
		for _, r := range band[1:] {
			if r.x0 <= cur.x1+ruleTol {
				cur.x1 = math.Max(cur.x1, r.x1)
				sumY += r.y
				n++
				continue
			}
			cur.y = sumY / n
			out = append(out, cur)
			cur, sumY, n = r, r.y, 1
		}
		cur.y = sumY / n
		out = append(out, cur)
		i = j
	}
	return out
}

func mergeV(vs []vrule) []vrule {
	hs := make([]hrule, len(vs))
	for i, v := range vs {
		hs[i] = hrule{v.x, v.y0, v.y1}
	}
	m := mergeH(hs)
	out := make([]vrule, len(m))
	for i, h := range m {
		out[i] = vrule{h.y, h.x0, h.x1}
	}
	return out
}

// bridgeShortVerticals extends the vertical rules that stop just short of a horizontal rule at
// both ends to meet them. LaTeX's booktabs pads its rules (\toprule, \midrule) with a few
// points of space that a column rule (a | in the column spec) does not cross, so the column
// rules of such a table float between the horizontal ones and never join them into one grid.
// Both ends must have a horizontal rule spanning the vertical's position within maxGap
// (touching counts; no other horizontal rule between), so a rule beside a paragraph, or one
// ending near a single line, is left alone.
func bridgeShortVerticals(hs []hrule, vs []vrule, maxGap float64) {
	if len(hs) == 0 {
		return
	}
	// hs is sorted by height (mergeH); only the rules within maxGap of an end are looked at,
	// at most maxLook of them, so a page of a million segments costs linear work.
	const maxLook = 64
	spans := func(h hrule, x float64) bool { return x >= h.x0-ruleTol && x <= h.x1+ruleTol }
	for i := range vs {
		v := &vs[i]
		above, below := math.Inf(1), math.Inf(-1)
		k := sort.Search(len(hs), func(k int) bool { return hs[k].y >= v.y1-ruleTol })
		for n := 0; k < len(hs) && hs[k].y <= v.y1+maxGap && n < maxLook; k, n = k+1, n+1 {
			if spans(hs[k], v.x) {
				above = hs[k].y
				break
			}
		}
		k = sort.Search(len(hs), func(k int) bool { return hs[k].y > v.y0+ruleTol }) - 1
		for n := 0; k >= 0 && hs[k].y >= v.y0-maxGap && n < maxLook; k, n = k-1, n+1 {
			if spans(hs[k], v.x) {
				below = hs[k].y
				break
			}
		}
		if above-v.y1 <= maxGap && v.y0-below <= maxGap {
			v.y0, v.y1 = math.Min(v.y0, below), math.Max(v.y1, above)
		}
	}
}

// ruleGroup is a set of rules connected by crossings or touching ends.
type ruleGroup struct {
	hs  []hrule
	vs  []vrule
	box Rect
}

// connect groups rules that cross or touch (within ruleTol). Vertical rules are sorted by x so
// each horizontal rule meets only the vertical ones within its extent.
func connect(hs []hrule, vs []vrule) []ruleGroup {
	n := len(hs) + len(vs)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return vs[order[a]].x < vs[order[b]].x })
	xs := make([]float64, len(order))
	for i, k := range order {
		xs[i] = vs[k].x
	}
	for i, h := range hs {
		lo := sort.SearchFloat64s(xs, h.x0-ruleTol)
		for k := lo; k < len(xs) && xs[k] <= h.x1+ruleTol; k++ {
			v := vs[order[k]]
			if h.y >= v.y0-ruleTol && h.y <= v.y1+ruleTol {
				a, b := find(i), find(len(hs)+order[k])
				if a != b {
					parent[a] = b
				}
			}
		}
	}
	idx := map[int]int{}
	var groups []ruleGroup
	get := func(root int) *ruleGroup {
		g, ok := idx[root]
		if !ok {
			g = len(groups)
			idx[root] = g
			groups = append(groups, ruleGroup{})
		}
		return &groups[g]
	}
	for i, h := range hs {
		g := get(find(i))
		g.hs = append(g.hs, h)
		g.box = g.box.Union(Rect{h.x0, h.y, h.x1, h.y})
	}
	for i, v := range vs {
		g := get(find(len(hs) + i))
		g.vs = append(g.vs, v)
		g.box = g.box.Union(Rect{v.x, v.y0, v.x, v.y1})
	}
	return groups
}

// positions clusters coordinates closer than gap into one (their mean), ascending.
func positions(vals []float64, gap float64) []float64 {
	if len(vals) == 0 {
		return nil
	}
	slices.Sort(vals)
	var out []float64
	sum, n, last := vals[0], 1.0, vals[0]
	for _, v := range vals[1:] {
		if v-last <= gap {
			sum += v
			n++
			last = v
			continue
		}
		out = append(out, sum/n)
		sum, n, last = v, 1, v
	}
	return append(out, sum/n)
}

// covered is the length of [a, b] covered by the union of the given intervals.
func covered(a, b float64, spans [][2]float64) float64 {
	total := 0.0
	end := a
	for _, s := range spans { // sorted by start
		lo, hi := math.Max(s[0], end), math.Min(s[1], b)
		if hi > lo {
			total += hi - lo
			end = hi
		}
	}
	return total
}

// maxShadingCheck bounds the rectangles compared pairwise for nesting; a page with more
// filled rectangles (a chart, a map) gets no shading edges at all.
const maxShadingCheck = 2000

// nestedShading marks filled rectangles lying inside another one: word processors paint a
// shaded cell as its full box plus inner boxes inset by the cell padding, whose edges are no
// boundaries. With more than maxShadingCheck rectangles every shading rectangle is marked.
func nestedShading(rects []Rect, pageArea float64) []bool {
	out := make([]bool, len(rects))
	shade := func(r Rect) bool {
		return r.W() > maxRuleThickness && r.H() > maxRuleThickness && r.W()*r.H() < pageArea/2
	}
	n := 0
	for _, r := range rects {
		if shade(r) {
			n++
		}
	}
	for i, r := range rects {
		if !shade(r) {
			continue
		}
		if n > maxShadingCheck {
			out[i] = true
			continue
		}
		for j, o := range rects {
			if j == i || !shade(o) {
				continue
			}
			if o.X0 <= r.X0+ruleTol/2 && o.Y0 <= r.Y0+ruleTol/2 && o.X1 >= r.X1-ruleTol/2 && o.Y1 >= r.Y1-ruleTol/2 && (o != r || j < i) {
				out[i] = true
				break
			}
		}
	}
	return out
}
