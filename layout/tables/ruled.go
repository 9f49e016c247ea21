package tables

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// maxSlots bounds the slots of one ruled grid (rows × columns before cells are merged): a
// chart's dense gridlines must not cost quadratic memory.
const maxSlots = 4 << 20

// ruledTables builds a table from every group of connected rules that forms a grid of at least
// two rows and two columns with text in it. Words whose centre lies inside a table are claimed
// (used[i] set) so the text-alignment pass does not see them again.
func ruledTables(groups []ruleGroup, ws []Word, used []bool, body float64) []Table {
	if len(groups) == 0 {
		return nil
	}
	var out []Table
	// Words sorted by centre x let each grid find its words without a scan of the page.
	order := make([]int, 0, len(ws))
	for i := range ws {
		if !used[i] {
			order = append(order, i)
		}
	}
	cx := func(i int) float64 { return (ws[i].Box.X0 + ws[i].Box.X1) / 2 }
	sort.Slice(order, func(a, b int) bool { return cx(order[a]) < cx(order[b]) })
	for _, g := range groups {
		if len(g.hs) < 2 && len(g.vs) < 2 {
			continue
		}
		t, ok := gridTable(g, ws, order, used, body)
		if ok {
			out = append(out, t)
		}
	}
	return out
}

// stackGroups joins groups of rules drawn as boxes stacked one on another, of the same width
// and closer than half a text line: a head ruled as a box of its own over the box of the
// rows (a gap between the two frames), which alone would be a grid of one row and be lost.
func stackGroups(groups []ruleGroup, body float64) []ruleGroup {
	if len(groups) < 2 {
		return groups
	}
	idx := make([]int, len(groups))
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) (float64, float64) {
		return math.Round(groups[i].box.X0), math.Round(groups[i].box.X1)
	}
	sort.Slice(idx, func(a, b int) bool {
		xa0, xa1 := key(idx[a])
		xb0, xb1 := key(idx[b])
		if xa0 != xb0 {
			return xa0 < xb0
		}
		if xa1 != xb1 {
			return xa1 < xb1
		}
		return groups[idx[a]].box.Y1 > groups[idx[b]].box.Y1
	})
	tol := maxf(ruleTol, body/6)
	var out []ruleGroup
	for k, i := range idx {
		g := groups[i]
		if k > 0 && len(out) > 0 {
			up := &out[len(out)-1]
			gap := up.box.Y0 - g.box.Y1
			if absf(up.box.X0-g.box.X0) <= tol && absf(up.box.X1-g.box.X1) <= tol && gap >= 0 && gap < body/2 &&
				len(up.hs) >= 2 && len(g.hs) >= 2 {
				up.hs = append(append([]hrule(nil), up.hs...), g.hs...)
				up.vs = append(append([]vrule(nil), up.vs...), g.vs...)
				up.box = up.box.Union(g.box)
				continue
			}
		}
		out = append(out, g)
	}
	return out
}

func gridTable(g ruleGroup, ws []Word, order []int, used []bool, body float64) (Table, bool) {
	// Rule positions closer than a third of a text line are one boundary (double rules, a
	// thick rule drawn as two strokes): no cell that thin holds text.
	gap := maxf(ruleTol, body/3)
	var xv, yv []float64
	for _, v := range g.vs {
		xv = append(xv, v.x)
	}
	for _, h := range g.hs {
		yv = append(yv, h.y)
	}
	// Open sides: a table ruled only between its columns still ends where its horizontal
	// rules end, and one ruled only between rows where its vertical rules end.
	xv = append(xv, g.box.X0, g.box.X1)
	yv = append(yv, g.box.Y0, g.box.Y1)
	xs := positions(xv, gap)
	ys := positions(yv, gap)
	if len(xs) < 2 || len(ys) < 2 {
		return Table{}, false
	}
	// Words inside the frame.
	var inside []int
	lo := sort.Search(len(order), func(i int) bool { return (ws[order[i]].Box.X0+ws[order[i]].Box.X1)/2 >= xs[0] })
	for k := lo; k < len(order); k++ {
		i := order[k]
		b := ws[i].Box
		x, y := (b.X0+b.X1)/2, (b.Y0+b.Y1)/2
		if x > xs[len(xs)-1] {
			break
		}
		if !used[i] && y >= ys[0] && y <= ys[len(ys)-1] {
			inside = append(inside, i)
		}
	}
	if len(inside) == 0 {
		return Table{}, false
	}
	// Rows top to bottom.
	for i, j := 0, len(ys)-1; i < j; i, j = i+1, j-1 {
		ys[i], ys[j] = ys[j], ys[i]
	}
	ys, virtual := splitRows(xs, ys, inside, ws)
	rows, cols := len(ys)-1, len(xs)-1
	if rows*cols > maxSlots || rows*cols < 2 {
		return Table{}, false
	}
	// Rule spans indexed by position, to test each slot edge.
	hAt := make([][][2]float64, len(ys))
	for _, h := range g.hs {
		if k := nearest(ys, h.y, gap); k >= 0 {
			hAt[k] = append(hAt[k], [2]float64{h.x0, h.x1})
		}
	}
	for k := range virtual {
		if virtual[k] {
			hAt[k] = append(hAt[k], [2]float64{xs[0], xs[len(xs)-1]})
		}
	}
	vAt := make([][][2]float64, len(xs))
	for _, v := range g.vs {
		if k := nearest(xs, v.x, gap); k >= 0 {
			vAt[k] = append(vAt[k], [2]float64{v.y0, v.y1})
		}
	}
	for _, s := range hAt {
		sort.Slice(s, func(a, b int) bool { return s[a][0] < s[b][0] })
	}
	for _, s := range vAt {
		sort.Slice(s, func(a, b int) bool { return s[a][0] < s[b][0] })
	}
	// wallRight: a rule separates slot (r,c) from (r,c+1); wallBelow: from (r+1,c). Half of
	// the edge must be drawn: rules stop short of crossings in many producers.
	wallRight := func(r, c int) bool {
		a, b := ys[r+1], ys[r]
		return covered(a, b, vAt[c+1]) >= 0.5*(b-a)
	}
	wallBelow := func(r, c int) bool {
		a, b := xs[c], xs[c+1]
		return covered(a, b, hAt[r+1]) >= 0.5*(b-a)
	}
	owner := make([]int32, rows*cols)
	for i := range owner {
		owner[i] = -1
	}
	var cells []gcell
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			if owner[r*cols+c] >= 0 {
				continue
			}
			c1 := c + 1
			for c1 < cols && !wallRight(r, c1-1) && owner[r*cols+c1] < 0 {
				c1++
			}
			r1 := r + 1
			for r1 < rows {
				open := true
				for k := c; k < c1; k++ {
					if wallBelow(r1-1, k) || owner[r1*cols+k] >= 0 {
						open = false
						break
					}
				}
				if !open {
					break
				}
				r1++
			}
			id := int32(len(cells))
			for rr := r; rr < r1; rr++ {
				for k := c; k < c1; k++ {
					owner[rr*cols+k] = id
				}
			}
			cells = append(cells, gcell{r0: r, c0: c, r1: r1, c1: c1})
		}
	}
	for _, i := range inside {
		b := ws[i].Box
		x, y := (b.X0+b.X1)/2, (b.Y0+b.Y1)/2
		c := sort.SearchFloat64s(xs, x) - 1
		r := sort.Search(len(ys), func(k int) bool { return ys[k] < y }) - 1
		c = max(0, min(c, cols-1))
		r = max(0, min(r, rows-1))
		id := owner[r*cols+c]
		cells[id].words = append(cells[id].words, i)
	}
	cells = splitSpanning(cells, xs, ws)
	if underSegmented(cells, ws) {
		// Rules that separate rows but not columns (shaded bands, rules under rows): the
		// text-alignment pass finds the columns and keeps these rules as row separators.
		return Table{}, false
	}
	t, ok := build(cells, rows, cols, ws, Ruled, xs, ys)
	if !ok || t.Rows < 2 || t.Cols < 2 || (prose(t) && !t.LabelRow()) || sparse(t) {
		// Too few cells, running text, or too sparse: a chart's frame around its labels.
		return Table{}, false
	}
	t.Box = Rect{xs[0], ys[len(ys)-1], xs[len(xs)-1], ys[0]}
	markHeader(&t)
	if equation(t) {
		// An array of mathematics with rules (TeX's array with | columns, a fraction's bar
		// under aligned pieces).
		return Table{}, false
	}
	t.Words = inside
	for _, i := range inside {
		used[i] = true
	}
	return t, true
}

// nearest returns the index of the position within tol of v, or -1. pos is sorted, ascending
// or descending.
func nearest(pos []float64, v, tol float64) int {
	n := len(pos)
	if n == 0 {
		return -1
	}
	desc := pos[0] > pos[n-1]
	k := sort.Search(n, func(i int) bool {
		if desc {
			return pos[i] <= v
		}
		return pos[i] >= v
	})
	best, bd := -1, tol
	for _, i := range []int{k - 1, k} {
		if i >= 0 && i < n {
			if d := absf(pos[i] - v); d <= bd {
				best, bd = i, d
			}
		}
	}
	return best
}

func absf(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// splitRows divides a ruled row that holds several text lines into one row per line group
// when the rules do not separate rows: when most text lines of the grid share their band with
// other lines. A line group is a line with words in two or more columns, with the lines below
// it that have words in one column only (a wrapped label); lines overlapping vertically are
// one line (a figure set between the two lines of its label). It returns the new row edges
// (top first) and which edges are such text boundaries.
func splitRows(xs, ys []float64, inside []int, ws []Word) ([]float64, []bool) {
	rows := len(ys) - 1
	byRow := make([][]int, rows)
	for _, i := range inside {
		y := (ws[i].Box.Y0 + ws[i].Box.Y1) / 2
		r := sort.Search(len(ys), func(k int) bool { return ys[k] < y }) - 1
		r = max(0, min(r, rows-1))
		byRow[r] = append(byRow[r], i)
	}
	perBand := make([][]line, rows)
	single, total := 0, 0
	for r := range rows {
		perBand[r] = mergeOverlapping(groupLines(byRow[r], ws), ws)
		total += len(perBand[r])
		if len(perBand[r]) == 1 {
			single++
		}
	}
	out := []float64{ys[0]}
	virtual := []bool{false}
	for r := 0; r < rows; r++ {
		if 2*single < total {
			var groups [][2]float64     // top and bottom of each line group
			reach := map[int]float64{}  // right end of the previous line's text per column
			groupCols := map[int]bool{} // columns with text in the current group
			prevLast0 := -1             // the previous line's last word in the first column
			for _, l := range perBand[r] {
				cols := map[int]float64{}
				for _, w := range l.words {
					c := sort.SearchFloat64s(xs, (ws[w].Box.X0+ws[w].Box.X1)/2) - 1
					cols[c] = maxf(cols[c], ws[w].Box.X1)
				}
				// The line continues the group when each of its columns continues text
				// that filled most of that column's width (it wrapped), or when it is a
				// single column's line starting in lower case or with a bracket.
				// A column empty so far in the group may start here (a figure set on the
				// last line of its wrapped label), as long as one column wraps.
				wraps, wrapped := len(groups) > 0, false
				for c := range cols {
					if c < 0 || c+1 >= len(xs) {
						wraps = false
						break
					}
					if x, ok := reach[c]; ok && x >= xs[c]+0.6*(xs[c+1]-xs[c]) {
						wrapped = true
					} else if groupCols[c] {
						wraps = false
					}
				}
				wraps = wraps && wrapped
				// A question or a sentence in the first column, wrapped, carries its row on:
				// the lines beside its first line (a title over a passage) and beside its
				// last are one row.
				last0 := -1
				for _, w := range l.words {
					if sort.SearchFloat64s(xs, (ws[w].Box.X0+ws[w].Box.X1)/2)-1 == 0 {
						last0 = w
					}
				}
				if len(groups) > 0 && prevLast0 >= 0 && last0 >= 0 && ws[l.words[0]].Box.X0 < xs[1] && sentenceWraps(ws[prevLast0].Text, ws[l.words[0]].Text, ws[last0].Text) &&
					reach[0] >= xs[0]+0.6*(xs[1]-xs[0]) {
					wraps = true
				}
				prevLast0 = last0
				first := []rune(ws[l.words[0]].Text)[0]
				if len(groups) > 0 && len(cols) == 1 && (unicode.IsLower(first) || first == '(' || first == '[') {
					wraps = true
				}
				// A line of one column, not the first, under text of that column in the
				// group: the cell goes on (a displayed formula, a list item, a new paragraph
				// in a description); a row has its key in the first column.
				if _, key := cols[0]; len(groups) > 0 && len(cols) == 1 && !key {
					for c := range cols {
						wraps = wraps || groupCols[c]
					}
				}
				if wraps {
					groups[len(groups)-1][1] = l.box.Y0
				} else {
					groups = append(groups, [2]float64{l.box.Y1, l.box.Y0})
					clear(groupCols)
				}
				for c := range cols {
					groupCols[c] = true
				}
				reach = cols
			}
			for k := 1; k < len(groups); k++ {
				out = append(out, (groups[k-1][1]+groups[k][0])/2)
				virtual = append(virtual, true)
			}
		}
		out = append(out, ys[r+1])
		virtual = append(virtual, false)
	}
	return out, virtual
}

// sentenceWraps reports whether a first column's line ending in prevLast goes on in the line
// that starts with first and ends with last: the line above does not end a sentence or a label
// (no closing or separating mark), and the line below starts in lower case or ends the
// sentence ("What is the body of water" / "between England and Ireland?").
func sentenceWraps(prevLast, first, last string) bool {
	p := []rune(prevLast)
	if len(p) == 0 || strings.ContainsRune(".?!:;", p[len(p)-1]) {
		return false
	}
	f, l := []rune(first), []rune(last)
	if len(f) == 0 || len(l) == 0 {
		return false
	}
	return unicode.IsLower(f[0]) || strings.ContainsRune(".?!", l[len(l)-1])
}

// mergeOverlapping joins consecutive lines (top to bottom) that overlap vertically by more
// than a fifth of the smaller height.
func mergeOverlapping(ls []line, ws []Word) []line {
	var out []line
	for _, l := range ls {
		if n := len(out); n > 0 && out[n-1].box.Y0-l.box.Y1 < -0.2*minf(l.box.H(), out[n-1].box.H()) {
			c := &out[n-1]
			c.words = append(append([]int(nil), c.words...), l.words...)
			sort.Slice(c.words, func(a, b int) bool { return ws[c.words[a]].Box.X0 < ws[c.words[b]].Box.X0 })
			c.box = c.box.Union(l.box)
			c.size = maxf(c.size, l.size)
			continue
		}
		out = append(out, l)
	}
	return out
}

// underSegmented reports whether the grid's cells hold lines with text set apart by column
// gaps (wider than one and a half em, more than justified word spaces) over at least 30% of
// the grid's area in slots: the rules do not draw the columns.
func underSegmented(cells []gcell, ws []Word) bool {
	filled, split := 0, 0
	for _, c := range cells {
		if len(c.words) == 0 {
			continue
		}
		area := (c.r1 - c.r0) * (c.c1 - c.c0)
		filled += area
		for _, l := range groupLines(c.words, ws) {
			if columnGap(l, ws) {
				split += area
				break
			}
		}
	}
	return filled > 0 && 10*split >= 3*filled
}

func columnGap(l line, ws []Word) bool {
	for k := 1; k < len(l.words); k++ {
		a, b := ws[l.words[k-1]], ws[l.words[k]]
		if b.Box.X0-a.Box.X1 > 1.5*maxf(a.Size, b.Size) {
			return true
		}
	}
	return false
}

// splitSpanning cuts a cell that spans several columns (its interior rules are missing, as in
// tables ruled only in the header) at the column edges its text leaves open: where no word
// crosses the edge, every line's text on the two sides is at least an em apart, and some line
// has text on both sides. A title
// spanning the columns keeps its span: its words cross edges or sit closer.
func splitSpanning(cells []gcell, xs []float64, ws []Word) []gcell {
	var out []gcell
	for _, c := range cells {
		if c.c1-c.c0 < 2 || len(c.words) == 0 {
			out = append(out, c)
			continue
		}
		lines := groupLines(c.words, ws)
		cuts := []int{c.c0}
		for k := c.c0 + 1; k < c.c1; k++ {
			x := xs[k]
			open, both := true, false
			for _, l := range lines {
				left, right := math.Inf(-1), math.Inf(1)
				size := 0.0
				for _, w := range l.words {
					b := ws[w].Box
					if b.X0 < x && b.X1 > x {
						open = false
						break
					}
					if b.X1 <= x {
						left = maxf(left, b.X1)
					} else {
						right = minf(right, b.X0)
					}
					size = maxf(size, ws[w].Size)
				}
				if !open || right-left < size {
					open = false
					break
				}
				both = both || (!math.IsInf(left, 0) && !math.IsInf(right, 0))
			}
			// Text on both sides in some line: a cell with text on one side only is a
			// spanning cell whose text is short.
			if open && both {
				cuts = append(cuts, k)
			}
		}
		if len(cuts) == 1 {
			out = append(out, c)
			continue
		}
		cuts = append(cuts, c.c1)
		for i := 1; i < len(cuts); i++ {
			sub := gcell{r0: c.r0, r1: c.r1, c0: cuts[i-1], c1: cuts[i]}
			for _, w := range c.words {
				x := (ws[w].Box.X0 + ws[w].Box.X1) / 2
				if x >= xs[sub.c0] && x < xs[sub.c1] {
					sub.words = append(sub.words, w)
				}
			}
			out = append(out, sub)
		}
	}
	return out
}
