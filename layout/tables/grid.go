package tables

import (
	"sort"
	"strings"
)

// gcell is a cell under construction: rows [r0, r1) and columns [c0, c1) of a grid, and the
// indices (into the detector's word slice) of the words inside it.
type gcell struct {
	r0, c0, r1, c1 int
	words          []int
}

// build turns a partition of an R×C grid into a Table (xs and ys, when given, are the grid's
// column edges left to right and row edges top to bottom, for drawn cells' boxes): rows and columns in which no non-empty
// cell starts are removed (spans shrink accordingly; empty cells left with no area vanish), and
// each cell gets its text and box from its words. It returns false when fewer than two rows or
// columns remain.
func build(cells []gcell, rows, cols int, ws []Word, kind Kind, xs, ys []float64) (Table, bool) {
	keepR := make([]bool, rows)
	keepC := make([]bool, cols)
	for _, c := range cells {
		if len(c.words) > 0 {
			keepR[c.r0] = true
			keepC[c.c0] = true
		}
	}
	mapR := remap(keepR)
	mapC := remap(keepC)
	nr, nc := mapR[rows], mapC[cols]
	if nr < 1 || nc < 1 {
		return Table{}, false
	}
	t := Table{Kind: kind, Rows: nr, Cols: nc}
	for _, c := range cells {
		r0, r1, c0, c1 := mapR[c.r0], mapR[c.r1], mapC[c.c0], mapC[c.c1]
		if r0 >= r1 || c0 >= c1 {
			continue
		}
		cell := Cell{Row: r0, Col: c0, RowSpan: r1 - r0, ColSpan: c1 - c0}
		cell.Text, cell.Box = cellText(c.words, ws)
		if xs != nil {
			// A drawn cell's box is its area between the rules.
			cell.Box = Rect{xs[c.c0], ys[c.r1], xs[c.c1], ys[c.r0]}
		}
		cell.bold = len(c.words) > 0
		for _, w := range c.words {
			cell.bold = cell.bold && ws[w].Bold
			cell.runes, cell.math = countMath(ws[w], cell.runes, cell.math)
		}
		for _, w := range c.words {
			t.Box = t.Box.Union(ws[w].Box)
		}
		t.Cells = append(t.Cells, cell)
	}
	sort.Slice(t.Cells, func(i, j int) bool {
		a, b := t.Cells[i], t.Cells[j]
		if a.Row != b.Row {
			return a.Row < b.Row
		}
		return a.Col < b.Col
	})
	return t, true
}

// remap gives each index its position among the kept ones; m[len] is the number kept, and a
// removed index maps to the next kept one.
func remap(keep []bool) []int {
	m := make([]int, len(keep)+1)
	n := 0
	for i, k := range keep {
		m[i] = n
		if k {
			n++
		}
	}
	m[len(keep)] = n
	return m
}

// cellText orders a cell's words into lines (top to bottom, left to right) and joins them:
// words with spaces, lines with "\n".
func cellText(idx []int, ws []Word) (string, Rect) {
	if len(idx) == 0 {
		return "", Rect{}
	}
	lines := groupLines(idx, ws)
	var b strings.Builder
	var box Rect
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		for j, w := range l.words {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(ws[w].Text)
			box = box.Union(ws[w].Box)
		}
	}
	return b.String(), box
}

// line is a text line: words sorted left to right and their union box.
type line struct {
	words []int
	box   Rect
	size  float64
}

// groupLines clusters words into lines: a word joins a line when their vertical extents
// overlap by half the smaller height (so superscripts and mixed sizes stay on their line).
// Lines are returned top to bottom.
func groupLines(idx []int, ws []Word) []line {
	order := append([]int(nil), idx...)
	sort.Slice(order, func(i, j int) bool {
		a, b := ws[order[i]].Box, ws[order[j]].Box
		ca, cb := a.Y0+a.Y1, b.Y0+b.Y1
		if ca != cb {
			return ca > cb
		}
		return a.X0 < b.X0
	})
	var lines []line
	for _, w := range order {
		b := ws[w].Box
		joined := false
		// Only the last few lines can overlap a word visited in descending centre order.
		for k := len(lines) - 1; k >= 0 && k >= len(lines)-3; k-- {
			l := &lines[k]
			ov := minf(l.box.Y1, b.Y1) - maxf(l.box.Y0, b.Y0)
			if ov >= 0.5*minf(l.box.H(), b.H()) && ov > 0 {
				l.words = append(l.words, w)
				l.box = l.box.Union(b)
				l.size = maxf(l.size, ws[w].Size)
				joined = true
				break
			}
		}
		if !joined {
			lines = append(lines, line{words: []int{w}, box: b, size: ws[w].Size})
		}
	}
	for i := range lines {
		l := lines[i].words
		sort.Slice(l, func(a, b int) bool { return ws[l[a]].Box.X0 < ws[l[b]].Box.X0 })
	}
	sort.SliceStable(lines, func(i, j int) bool {
		return lines[i].box.Y0+lines[i].box.Y1 > lines[j].box.Y0+lines[j].box.Y1
	})
	return lines
}

func minf(a, b float64) float64 {
	if a < b {
		return a
	}
	return b
}

func maxf(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// markHeader sets the header rows of a table whose structure came from rules: the leading rows
// without figures when rows below have figures, else the leading rows set in bold when rows
// below are not; a header cell spanning down takes the rows it spans. At most half the rows.
func markHeader(t *Table) {
	figs := make([]bool, t.Rows)
	bold := make([]bool, t.Rows)
	plain := make([]bool, t.Rows)
	for _, c := range t.Cells {
		if c.Text == "" {
			continue
		}
		if numericText(c.Text) {
			figs[c.Row] = true
		}
		if c.bold {
			bold[c.Row] = true
		} else {
			plain[c.Row] = true
		}
	}
	lead := func(in, below func(r int) bool) int {
		n := 0
		for n < t.Rows && in(n) {
			n++
		}
		for r := n; r < t.Rows; r++ {
			if below(r) {
				return n
			}
		}
		return 0
	}
	hdr := lead(func(r int) bool { return !figs[r] }, func(r int) bool { return figs[r] })
	if hdr == 0 {
		hdr = lead(func(r int) bool { return bold[r] && !plain[r] }, func(r int) bool { return plain[r] })
	}
	for _, c := range t.Cells {
		if c.Row < hdr {
			hdr = max(hdr, c.Row+c.RowSpan)
		}
	}
	if hdr == 0 || 2*hdr > t.Rows {
		return
	}
	t.HeaderRows = hdr
	for i := range t.Cells {
		t.Cells[i].Header = t.Cells[i].Row < hdr
	}
}

// numericText reports whether every word of s is a figure.
func numericText(s string) bool {
	f := strings.Fields(s)
	for _, w := range f {
		if !numeric(w) {
			return false
		}
	}
	return len(f) > 0
}
