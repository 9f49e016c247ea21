package pdf

import (
	"math"
	"sort"
	"strings"
)

// LAParams are pdfminer's layout-analysis knobs with its meanings (partition-api.md §7.7).
type LAParams struct {
	LineOverlap float64
	CharMargin  float64
	LineMargin  float64
	WordMargin  float64
	// BoxesFlow weights horizontal (-1) against vertical (+1) position when ordering boxes;
	// NoBoxesFlow disables the hierarchical grouping and orders boxes top to bottom.
	BoxesFlow   float64
	NoBoxesFlow bool
	// LinesOnly skips pdfminer's box grouping (quadratic on long runs of aligned lines): each
	// line comes back as a box of its own, in drawing order, for callers that group lines
	// themselves (package layout). Not a pdfminer knob.
	LinesOnly bool
	// NoGeometry skips the page geometry (vector paths, image placements, clip): Page.Geometry
	// stays empty and no glyph is marked Clipped. The fast strategy, which does not use it,
	// saves the work. Not a pdfminer knob.
	NoGeometry bool
	// SubstituteWidths gives a code its font declares no advance width for (no /Widths; in a
	// font not embedded, /Widths all zero or too short for it, no /MissingWidth, or a CID
	// font's /DW 0 and no /W) a
	// substitute advance: /MissingWidth, /AvgWidth, the standard-14 metrics of its family, half
	// an em. pdfminer gives such glyphs no width, and its lines of zero-width glyphs are empty
	// (no text at all); the layout asks for it, fast does not. Not a pdfminer knob.
	SubstituteWidths bool
}

// DefaultLAParams are the values the reference's partition_pdf passes to pdfminer.
func DefaultLAParams() LAParams {
	return LAParams{LineOverlap: 0.5, CharMargin: 2.0, LineMargin: 0.5, WordMargin: 0.185, BoxesFlow: 0.5}
}

type bbox struct{ x0, y0, x1, y1 float64 }

func (b bbox) w() float64 { return b.x1 - b.x0 }
func (b bbox) h() float64 { return b.y1 - b.y0 }

func (b bbox) union(o bbox) bbox {
	return bbox{math.Min(b.x0, o.x0), math.Min(b.y0, o.y0), math.Max(b.x1, o.x1), math.Max(b.y1, o.y1)}
}

func isOverlap(a0, a1, b0, b1 float64) bool { return b0 <= a1 && a0 <= b1 }

// overlapOrDistance is pdfminer's hoverlap/hdistance quantity: the smaller of the two
// cross-edge distances.
func crossEdge(a0, a1, b0, b1 float64) float64 {
	return math.Min(math.Abs(a0-b1), math.Abs(a1-b0))
}

// LineItem is one character of a line: a glyph (index into Page.Glyphs) or, with Glyph -1, a
// space pdfminer inserts between words.
type LineItem struct {
	Text  string
	Glyph int
}

// Line is a horizontal text line (pdfminer's LTTextLineHorizontal).
type Line struct {
	X0, Y0, X1, Y1 float64
	Items          []LineItem
}

// Text is the line's text without the trailing newline.
func (l *Line) Text() string {
	var b strings.Builder
	for _, it := range l.Items {
		b.WriteString(it.Text)
	}
	return b.String()
}

func (l *Line) box() bbox { return bbox{l.X0, l.Y0, l.X1, l.Y1} }

// TextBox is a group of lines (pdfminer's LTTextBoxHorizontal), lines ordered top to bottom.
type TextBox struct {
	X0, Y0, X1, Y1 float64
	Lines          []*Line
	// index is the reading order assigned by the box grouping.
	index int
}

// Text is pdfminer's get_text(): each line followed by a newline.
func (b *TextBox) Text() string {
	var s strings.Builder
	for _, l := range b.Lines {
		for _, it := range l.Items {
			s.WriteString(it.Text)
		}
		s.WriteByte('\n')
	}
	return s.String()
}

func (b *TextBox) box() bbox { return bbox{b.X0, b.Y0, b.X1, b.Y1} }

// grid is a uniform spatial index over a page (pdfminer's Plane, 50-point cells), so neighbour
// queries touch only nearby objects and grouping stays near linear in the number of glyphs.
type grid struct {
	page  bbox
	size  float64
	nx    int
	ny    int
	cells [][]int32
	boxes []bbox
	alive []bool
	mark  []uint32
	epoch uint32
	// largeCells, when set, keeps objects covering more cells than that in large instead of in
	// every cell: box grouping adds ever larger groups, which would otherwise be listed in most
	// of the page's cells.
	largeCells int
	large      []int32
}

func newGrid(page bbox, size float64) *grid {
	nx := int(math.Ceil(page.w()/size)) + 1
	ny := int(math.Ceil(page.h()/size)) + 1
	nx, ny = max(1, min(nx, 2000)), max(1, min(ny, 2000))
	return &grid{page: page, size: size, nx: nx, ny: ny, cells: make([][]int32, nx*ny)}
}

func (g *grid) cellRange(b bbox) (cx0, cy0, cx1, cy1 int, ok bool) {
	p := g.page
	if b.x1 <= p.x0 || p.x1 <= b.x0 || b.y1 <= p.y0 || p.y1 <= b.y0 {
		return 0, 0, 0, 0, false
	}
	x0, y0 := math.Max(p.x0, b.x0), math.Max(p.y0, b.y0)
	x1, y1 := math.Min(p.x1, b.x1), math.Min(p.y1, b.y1)
	cx0 = clampInt(int((x0-p.x0)/g.size), 0, g.nx-1)
	cx1 = clampInt(int((x1-p.x0)/g.size), 0, g.nx-1)
	cy0 = clampInt(int((y0-p.y0)/g.size), 0, g.ny-1)
	cy1 = clampInt(int((y1-p.y0)/g.size), 0, g.ny-1)
	return cx0, cy0, cx1, cy1, true
}

func clampInt(v, lo, hi int) int { return max(lo, min(v, hi)) }

// add places an object and returns its id.
func (g *grid) add(b bbox) int {
	id := len(g.boxes)
	g.boxes = append(g.boxes, b)
	g.alive = append(g.alive, true)
	g.mark = append(g.mark, 0)
	if cx0, cy0, cx1, cy1, ok := g.cellRange(b); ok {
		if g.largeCells > 0 && (cx1-cx0+1)*(cy1-cy0+1) > g.largeCells {
			g.large = append(g.large, int32(id))
			return id
		}
		for cy := cy0; cy <= cy1; cy++ {
			for cx := cx0; cx <= cx1; cx++ {
				c := &g.cells[cy*g.nx+cx]
				*c = append(*c, int32(id))
			}
		}
	}
	return id
}

func (g *grid) remove(id int) { g.alive[id] = false }

// find calls fn for each live object strictly overlapping b, once each, in grid order.
func (g *grid) find(b bbox, fn func(id int)) {
	cx0, cy0, cx1, cy1, ok := g.cellRange(b)
	if !ok {
		return
	}
	g.epoch++
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			for _, id32 := range g.cells[cy*g.nx+cx] {
				id := int(id32)
				if !g.alive[id] || g.mark[id] == g.epoch {
					continue
				}
				g.mark[id] = g.epoch
				o := g.boxes[id]
				if o.x1 <= b.x0 || b.x1 <= o.x0 || o.y1 <= b.y0 || b.y1 <= o.y0 {
					continue
				}
				fn(id)
			}
		}
	}
}

// anyOther reports whether a live object other than a and b strictly overlaps box, stopping at
// the first.
func (g *grid) anyOther(box bbox, a, b int) bool {
	hit := func(id int) bool {
		if id == a || id == b || !g.alive[id] {
			return false
		}
		o := g.boxes[id]
		return !(o.x1 <= box.x0 || box.x1 <= o.x0 || o.y1 <= box.y0 || box.y1 <= o.y0)
	}
	cx0, cy0, cx1, cy1, ok := g.cellRange(box)
	if !ok {
		return false // as pdfminer's plane, which indexes only what lies on the page
	}
	for _, id := range g.large {
		if hit(int(id)) {
			return true
		}
	}
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			for _, id := range g.cells[cy*g.nx+cx] {
				if hit(int(id)) {
					return true
				}
			}
		}
	}
	return false
}

// groupLines turns glyphs (in drawing order) into horizontal lines, pdfminer's group_objects
// with detect_vertical off.
func groupLines(glyphs []Glyph, p LAParams) []*Line {
	var lines []*Line
	var line *Line
	// Every line's items are carved out of one slice: lines are built one at a time, so the
	// current line's items are always its tail.
	items := make([]LineItem, 0, len(glyphs)+len(glyphs)/4)
	start := 0
	lastX1 := math.Inf(1)
	addTo := func(l *Line, gi int) {
		g := &glyphs[gi]
		if p.WordMargin != 0 {
			margin := p.WordMargin * math.Max(g.width(), g.height())
			if lastX1 < g.X0-margin {
				items = append(items, LineItem{Text: " ", Glyph: -1})
			}
		}
		lastX1 = g.X1
		if len(items) == start {
			l.X0, l.Y0, l.X1, l.Y1 = g.X0, g.Y0, g.X1, g.Y1
		} else {
			l.X0, l.Y0 = math.Min(l.X0, g.X0), math.Min(l.Y0, g.Y0)
			l.X1, l.Y1 = math.Max(l.X1, g.X1), math.Max(l.Y1, g.Y1)
		}
		items = append(items, LineItem{Text: g.Text, Glyph: gi})
	}
	newLine := func() *Line {
		lastX1 = math.Inf(1)
		start = len(items)
		return &Line{}
	}
	closeLine := func(l *Line) {
		l.Items = items[start:len(items):len(items)]
		lines = append(lines, l)
	}
	for i := 1; i < len(glyphs); i++ {
		g0, g1 := &glyphs[i-1], &glyphs[i]
		halign := isOverlap(g0.Y0, g0.Y1, g1.Y0, g1.Y1) &&
			math.Min(g0.height(), g1.height())*p.LineOverlap < crossEdge(g0.Y0, g0.Y1, g1.Y0, g1.Y1) &&
			hdistance(g0, g1) < math.Max(g0.width(), g1.width())*p.CharMargin
		switch {
		case halign && line != nil:
			addTo(line, i)
		case line != nil:
			closeLine(line)
			line = nil
		case halign:
			line = newLine()
			addTo(line, i-1)
			addTo(line, i)
		default:
			l := newLine()
			addTo(l, i-1)
			closeLine(l)
		}
	}
	if len(glyphs) > 0 {
		if line == nil {
			line = newLine()
			addTo(line, len(glyphs)-1)
		}
		closeLine(line)
	}
	return lines
}

func hdistance(a, b *Glyph) float64 {
	if isOverlap(a.X0, a.X1, b.X0, b.X1) {
		return 0
	}
	return crossEdge(a.X0, a.X1, b.X0, b.X1)
}

func lineEmpty(l *Line) bool {
	if l.X1-l.X0 <= 0 || l.Y1-l.Y0 <= 0 {
		return true
	}
	for _, it := range l.Items {
		if strings.TrimSpace(it.Text) != "" {
			return false
		}
	}
	// Python's str.isspace() is false for the empty string, so a line of empty glyph texts is
	// not empty for pdfminer.
	for _, it := range l.Items {
		if it.Text != "" {
			return true
		}
	}
	return false
}

// groupBoxes merges neighbouring lines into boxes (pdfminer's group_textlines).
func groupBoxes(lines []*Line, page bbox, p LAParams) []*TextBox {
	g := newGrid(page, 50)
	for _, l := range lines {
		g.add(l.box())
	}
	boxOf := make([]int, len(lines)) // line → box id+1
	var boxes [][]int
	for i, l := range lines {
		d := p.LineMargin * (l.Y1 - l.Y0)
		members := []int{i}
		q := bbox{l.X0, l.Y0 - d, l.X1, l.Y1 + d}
		g.find(q, func(j int) {
			o := lines[j]
			if math.Abs(o.Y1-o.Y0-(l.Y1-l.Y0)) > d {
				return
			}
			if !(math.Abs(o.X0-l.X0) <= d || math.Abs(o.X1-l.X1) <= d ||
				math.Abs((o.X0+o.X1)/2-(l.X0+l.X1)/2) <= d) {
				return
			}
			members = append(members, j)
			if b := boxOf[j]; b > 0 && boxes[b-1] != nil {
				members = append(members, boxes[b-1]...)
				boxes[b-1] = nil
			}
		})
		// uniq, keeping first occurrence.
		seen := map[int]bool{}
		uniq := members[:0:0]
		for _, m := range members {
			if !seen[m] {
				seen[m] = true
				uniq = append(uniq, m)
			}
		}
		for _, m := range uniq {
			if b := boxOf[m]; b > 0 && boxes[b-1] != nil {
				// A member still listed in another live box leaves it (pdfminer overwrites
				// the mapping, leaving the old box object alive only for its other lines).
				old := boxes[b-1]
				for k, x := range old {
					if x == m {
						boxes[b-1] = append(old[:k:k], old[k+1:]...)
						break
					}
				}
			}
		}
		boxes = append(boxes, uniq)
		for _, m := range uniq {
			boxOf[m] = len(boxes)
		}
	}
	var out []*TextBox
	done := map[int]bool{}
	for i := range lines {
		b := boxOf[i]
		if b == 0 || done[b] {
			continue
		}
		done[b] = true
		tb := &TextBox{X0: math.Inf(1), Y0: math.Inf(1), X1: math.Inf(-1), Y1: math.Inf(-1)}
		for _, m := range boxes[b-1] {
			l := lines[m]
			tb.Lines = append(tb.Lines, l)
			tb.X0, tb.Y0 = math.Min(tb.X0, l.X0), math.Min(tb.Y0, l.Y0)
			tb.X1, tb.Y1 = math.Max(tb.X1, l.X1), math.Max(tb.Y1, l.Y1)
		}
		if len(tb.Lines) == 0 || tb.X1-tb.X0 <= 0 || tb.Y1-tb.Y0 <= 0 {
			continue
		}
		if strings.TrimSpace(tb.Text()) == "" {
			continue
		}
		sort.SliceStable(tb.Lines, func(a, c int) bool { return -tb.Lines[a].Y1 < -tb.Lines[c].Y1 })
		out = append(out, tb)
	}
	return out
}

// node is a box or a group in the hierarchical grouping of boxes.
type node struct {
	b        bbox
	box      *TextBox
	children []*node
}

type pair struct {
	d    float64
	i, j int32 // node ids; ties break on them, as pdfminer's break on object ids
	skip bool
}

func pairLess(x, y pair) bool {
	if x.skip != y.skip {
		return !x.skip
	}
	if x.d != y.d {
		return x.d < y.d
	}
	if x.i != y.i {
		return x.i < y.i
	}
	return x.j < y.j
}

// pairHeap is a binary min-heap of pairs, typed so that pushing and popping neither box the
// pairs into interfaces nor call through them: on pages with hundreds of boxes this loop is
// most of the layout analysis.
type pairHeap []pair

func (h *pairHeap) push(p pair) {
	q := append(*h, p)
	i := len(q) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !pairLess(q[i], q[parent]) {
			break
		}
		q[i], q[parent] = q[parent], q[i]
		i = parent
	}
	*h = q
}

func (h *pairHeap) pop() pair {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	*h = q[:n]
	h.down(0)
	return top
}

func (h pairHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && pairLess(h[r], h[l]) {
			m = r
		}
		if !pairLess(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// heapify orders h as a heap in linear time.
func (h pairHeap) heapify() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// pairQueue yields pairs in pairLess order. Every node's pairs with the nodes that existed when
// it was made form one run, itself a heap; the queue is a heap of runs by their smallest pair.
// A node that gets grouped drops its whole run at once, and a run is only ordered as far as it
// is consumed, which is rarely more than a few pairs. Pairs re-queued with skip set wait in a
// heap of their own.
type pairQueue struct {
	runs    []pairHeap // a min-heap by each run's smallest pair; every pair of a run shares i
	skipped pairHeap
}

func (q *pairQueue) runLess(a, b int) bool { return pairLess(q.runs[a][0], q.runs[b][0]) }

func (q *pairQueue) addRun(ps []pair) {
	if len(ps) == 0 {
		return
	}
	pairHeap(ps).heapify()
	q.runs = append(q.runs, ps)
	for i := len(q.runs) - 1; i > 0; {
		parent := (i - 1) / 2
		if !q.runLess(i, parent) {
			break
		}
		q.runs[i], q.runs[parent] = q.runs[parent], q.runs[i]
		i = parent
	}
}

func (q *pairQueue) down(i int) {
	n := len(q.runs)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q.runLess(r, l) {
			m = r
		}
		if !q.runLess(m, i) {
			return
		}
		q.runs[i], q.runs[m] = q.runs[m], q.runs[i]
		i = m
	}
}

// advanceTop removes the top run's smallest pair and restores the heap of runs.
func (q *pairQueue) advanceTop() {
	q.runs[0].pop()
	if len(q.runs[0]) == 0 {
		n := len(q.runs) - 1
		q.runs[0] = q.runs[n]
		q.runs = q.runs[:n]
	}
	q.down(0)
}

// next returns the smallest pair whose nodes are both still ungrouped.
func (q *pairQueue) next(done []bool) (pair, bool) {
	for len(q.runs) > 0 {
		head := q.runs[0][0]
		if done[head.i] {
			n := len(q.runs) - 1
			q.runs[0] = q.runs[n]
			q.runs = q.runs[:n]
			q.down(0)
			continue
		}
		if done[head.j] {
			q.advanceTop()
			continue
		}
		break
	}
	for len(q.skipped) > 0 && (done[q.skipped[0].i] || done[q.skipped[0].j]) {
		q.skipped.pop()
	}
	if len(q.runs) > 0 && (len(q.skipped) == 0 || pairLess(q.runs[0][0], q.skipped[0])) {
		pr := q.runs[0][0]
		q.advanceTop()
		return pr, true
	}
	if len(q.skipped) > 0 {
		return q.skipped.pop(), true
	}
	return pair{}, false
}

// maxGroupBoxes bounds the quadratic box grouping; beyond it boxes are ordered top to bottom,
// which the fast strategy re-sorts anyway.
const maxGroupBoxes = 1000

// orderBoxes assigns reading order like pdfminer's group_textboxes + IndexAssigner.
func orderBoxes(boxes []*TextBox, page bbox, p LAParams) {
	if p.NoBoxesFlow || len(boxes) > maxGroupBoxes {
		sort.SliceStable(boxes, func(a, b int) bool {
			if boxes[a].Y0 != boxes[b].Y0 {
				return boxes[a].Y0 > boxes[b].Y0
			}
			return boxes[a].X0 < boxes[b].X0
		})
		return
	}
	dist := func(a, b bbox) float64 {
		u := a.union(b)
		return u.w()*u.h() - a.w()*a.h() - b.w()*b.h()
	}
	g := newGrid(page, 50)
	g.largeCells = 16
	var nodes []*node
	for _, b := range boxes {
		nodes = append(nodes, &node{b: b.box(), box: b})
		g.add(b.box())
	}
	// Every node's pairs with the nodes that existed when it was made form one sorted run; the
	// queue pops the smallest run head, which is exactly pdfminer's heap order, but a merged
	// node's whole run is dropped at once instead of being popped pair by pair.
	var q pairQueue
	done := make([]bool, len(nodes), len(nodes)*2)
	alive := len(nodes) // nodes not yet grouped
	for i := range boxes {
		ps := make([]pair, 0, len(boxes)-i-1)
		for j := i + 1; j < len(boxes); j++ {
			ps = append(ps, pair{d: dist(nodes[i].b, nodes[j].b), i: int32(i), j: int32(j)})
		}
		q.addRun(ps)
	}
	for {
		pr, ok := q.next(done)
		if !ok {
			break
		}
		a, b := nodes[pr.i], nodes[pr.j]
		if !pr.skip {
			if g.anyOther(a.b.union(b.b), int(pr.i), int(pr.j)) {
				pr.skip = true
				q.skipped.push(pr)
				continue
			}
		}
		grp := &node{b: a.b.union(b.b), children: []*node{a, b}}
		g.remove(int(pr.i))
		g.remove(int(pr.j))
		done[pr.i], done[pr.j] = true, true
		id := len(nodes)
		alive -= 2
		ps := make([]pair, 0, alive)
		for k := range nodes {
			if !done[k] && g.alive[k] {
				ps = append(ps, pair{d: dist(grp.b, nodes[k].b), i: int32(id), j: int32(k)})
			}
		}
		nodes = append(nodes, grp)
		done = append(done, false)
		g.add(grp.b)
		q.addRun(ps)
		alive++
	}
	idx := 0
	var assign func(n *node)
	assign = func(n *node) {
		if n.box != nil {
			n.box.index = idx
			idx++
			return
		}
		for _, c := range n.children {
			assign(c)
		}
	}
	var sortNode func(n *node)
	sortNode = func(n *node) {
		for _, c := range n.children {
			sortNode(c)
		}
		bf := p.BoxesFlow
		sort.SliceStable(n.children, func(a, b int) bool {
			ka := (1-bf)*n.children[a].b.x0 - (1+bf)*(n.children[a].b.y0+n.children[a].b.y1)
			kb := (1-bf)*n.children[b].b.x0 - (1+bf)*(n.children[b].b.y0+n.children[b].b.y1)
			return ka < kb
		})
	}
	for k, n := range nodes {
		if k < len(g.alive) && g.alive[k] && !done[k] {
			sortNode(n)
			assign(n)
		}
	}
	sort.SliceStable(boxes, func(a, b int) bool { return boxes[a].index < boxes[b].index })
}

// Analyze runs pdfminer's layout analysis on page-level glyphs: lines, boxes, reading order.
func Analyze(glyphs []Glyph, width, height float64, p LAParams) []*TextBox {
	if len(glyphs) == 0 {
		return nil
	}
	lines := groupLines(glyphs, p)
	kept := lines[:0]
	for _, l := range lines {
		if hasRTL(l) {
			logicalOrder(l, glyphs, p)
		}
		if !lineEmpty(l) {
			kept = append(kept, l)
		}
	}
	page := bbox{0, 0, width, height}
	if p.LinesOnly {
		boxes := make([]*TextBox, len(kept))
		for i, l := range kept {
			boxes[i] = &TextBox{X0: l.X0, Y0: l.Y0, X1: l.X1, Y1: l.Y1, Lines: []*Line{l}, index: i}
		}
		return boxes
	}
	boxes := groupBoxes(kept, page, p)
	orderBoxes(boxes, page, p)
	return boxes
}
