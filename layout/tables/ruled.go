package tables

import (
	"sort"
)

// maxSlots bounds the slots of one ruled grid (rows × columns before cells are merged): a
// chart's dense gridlines must not cost quadratic memory.
const maxSlots = 4 << 20

// ruledTables builds a table from every group of connected rules that forms a grid of at least
// two rows and two columns with text in it. Words whose centre lies inside a table are claimed
// (used[i] set) so the text-alignment pass does not see them again.
func ruledTables(groups []ruleGroup, ws []Word, used []bool, body float64) []Table {
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
	if underSegmented(cells, ws) {
		// Rules that separate rows but not columns (shaded bands, rules under rows): the
		// text-alignment pass finds the columns and keeps these rules as row separators.
		return Table{}, false
	}
	t, ok := build(cells, rows, cols, ws, Ruled)
	if !ok || t.Rows < 2 || t.Cols < 2 || prose(t) {
		return Table{}, false
	}
	t.Box = Rect{xs[0], ys[len(ys)-1], xs[len(xs)-1], ys[0]}
	t.Words = inside
	for _, i := range inside {
		used[i] = true
	}
	return t, true
}

// nearest returns the index of the position within tol of v, or -1.
func nearest(pos []float64, v, tol float64) int {
	best, bd := -1, tol
	for i, p := range pos {
		if d := absf(p - v); d <= bd {
			best, bd = i, d
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

// splitRows divides a ruled row that holds several text lines into one row per line when the
// lines read as separate table rows: every line has words in at least two columns. A row
// whose rules were left out (rules only around the header, or none between body rows) then
// gets its rows from the baselines; a multi-line cell beside single-line ones stays whole.
// It returns the new row edges (top first) and which edges are such text boundaries.
func splitRows(xs, ys []float64, inside []int, ws []Word) ([]float64, []bool) {
	rows := len(ys) - 1
	byRow := make([][]int, rows)
	for _, i := range inside {
		y := (ws[i].Box.Y0 + ws[i].Box.Y1) / 2
		r := sort.Search(len(ys), func(k int) bool { return ys[k] < y }) - 1
		r = max(0, min(r, rows-1))
		byRow[r] = append(byRow[r], i)
	}
	// Rows are split only where the rules do not separate rows in general: when most bands
	// with text hold a single line, a band of several lines is one row of multi-line cells.
	perBand := make([][]line, rows)
	var counts []int
	for r := range rows {
		perBand[r] = groupLines(byRow[r], ws)
		if len(perBand[r]) > 0 {
			counts = append(counts, len(perBand[r]))
		}
	}
	sort.Ints(counts)
	ruledRows := len(counts) > 0 && counts[(len(counts)-1)/2] <= 1
	out := []float64{ys[0]}
	virtual := []bool{false}
	for r := 0; r < rows; r++ {
		lines := perBand[r]
		split := len(lines) >= 2 && !ruledRows
		for _, l := range lines {
			if !split {
				break
			}
			seen := map[int]bool{}
			for _, w := range l.words {
				x := (ws[w].Box.X0 + ws[w].Box.X1) / 2
				seen[sort.SearchFloat64s(xs, x)] = true
			}
			split = len(seen) >= 2
		}
		if split {
			for k := 1; k < len(lines); k++ {
				out = append(out, (lines[k-1].box.Y0+lines[k].box.Y1)/2)
				virtual = append(virtual, true)
			}
		}
		out = append(out, ys[r+1])
		virtual = append(virtual, false)
	}
	return out, virtual
}

// underSegmented reports whether many of a grid's cells hold a line with separate phrases
// (text set apart by column gaps): the rules do not draw the columns.
func underSegmented(cells []gcell, ws []Word) bool {
	filled, split := 0, 0
	for _, c := range cells {
		if len(c.words) == 0 {
			continue
		}
		filled++
		for _, l := range groupLines(c.words, ws) {
			if len(phrasesOf(l, ws)) >= 2 {
				split++
				break
			}
		}
	}
	return filled > 0 && 10*split >= 3*filled
}
