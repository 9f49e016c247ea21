package layout

import (
	"math"
	"sort"
)

// joinJustified joins the pieces of a justified line that pdfminer cut at wide word spaces:
// a narrow column set justified stretches a line of few long words until a space is wider
// than pdfminer's char margin ("Column   paragraph   1." and "Several"), and the piece beside
// the line, overlapping no line above or below it in its column, started a block of its own,
// read out of place. The pieces of one row, in one type size, each less than 6 em from the
// next, with nothing else on the row between them (a formula's smaller pieces), join when
// together they run from edge to edge of a line of that size just above or below (closer than
// half a line): a justified line of the same column. Across a gutter no line runs edge to
// edge, save a full-width line set tight against a run of columns, which a heading or
// paragraph spacing keeps apart.
func joinJustified(ls []tline) []tline {
	idx := make([]int, len(ls))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return ls[idx[a]].b.y0 < ls[idx[b]].b.y0 })
	gone := make([]bool, len(ls))
	for p := 0; p < len(idx); {
		// The row of lines whose tops lie within half a line of the first one's.
		h0 := ls[idx[p]].b.h()
		q := p + 1
		for q < len(idx) && ls[idx[q]].b.y0-ls[idx[p]].b.y0 < 0.5*h0 {
			q++
		}
		if q-p >= 2 {
			row := append([]int(nil), idx[p:q]...)
			sort.Slice(row, func(a, b int) bool { return ls[row[a]].b.x0 < ls[row[b]].b.x0 })
			for s := 0; s < len(row); {
				e := s + 1
				a := &ls[row[s]]
				for e < len(row) {
					l, prev := &ls[row[e]], &ls[row[e-1]]
					if l.turned || a.turned || math.Abs(l.size-a.size) > 0.05*a.size || l.b.x0-prev.b.x1 < 0 || l.b.x0-prev.b.x1 >= 6*math.Max(a.size, 1) {
						break
					}
					e++
				}
				// The shortest run of pieces from s that fills a line (the row may go on
				// into the next column).
				end := -1
				for f := s + 2; f <= e && end < 0; f++ {
					if fillsLine(ls, idx, p, q, row[s:f]) && clearBetween(ls, idx, p, q, row[s:f]) {
						end = f
					}
				}
				if end < 0 {
					s++
					continue
				}
				for _, k := range row[s+1 : end] {
					a.text += " " + ls[k].text
					a.b = a.b.union(ls[k].b)
					a.glyphs, a.math, a.letters = a.glyphs+ls[k].glyphs, a.math+ls[k].math, a.letters+ls[k].letters
					gone[k] = true
				}
				s = end
			}
		}
		p = q
	}
	out := ls[:0]
	for i := range ls {
		if !gone[i] {
			out = append(out, ls[i])
		}
	}
	return out
}

// fillsLine reports whether the pieces (indexes into ls, left to right) of the row idx[p:q]
// together run from edge to edge of a line of their size just above or below the row.
func fillsLine(ls []tline, idx []int, p, q int, pieces []int) bool {
	a, z := &ls[pieces[0]], &ls[pieces[len(pieces)-1]]
	em := math.Max(a.size, 1)
	h := a.b.h()
	x0, x1 := a.b.x0, z.b.x1
	check := func(k int) (bool, bool) {
		m := &ls[idx[k]]
		if math.Abs(m.b.y0-a.b.y0) > 2.5*h {
			return false, true
		}
		if m.turned || math.Abs(m.size-a.size) > 0.05*a.size {
			return false, false
		}
		gap := math.Max(m.b.y0-a.b.y1, a.b.y0-m.b.y1)
		return gap >= -0.1*h && gap < 0.5*h && math.Abs(m.b.x0-x0) < 0.5*em && math.Abs(m.b.x1-x1) < 0.5*em, false
	}
	for k := p - 1; k >= 0; k-- {
		ok, stop := check(k)
		if ok {
			return true
		}
		if stop {
			break
		}
	}
	for k := q; k < len(idx); k++ {
		ok, stop := check(k)
		if ok {
			return true
		}
		if stop {
			break
		}
	}
	return false
}

// clearBetween reports whether no other line (a formula's sub- or superscript, of any size)
// lies in the gaps between the pieces (indexes into ls, left to right) of the row idx[p:q],
// overlapping the row's height: such a line belongs between them, which joining them would
// not keep.
func clearBetween(ls []tline, idx []int, p, q int, pieces []int) bool {
	a := &ls[pieces[0]]
	h := a.b.h()
	in := map[int]bool{}
	for _, k := range pieces {
		in[k] = true
	}
	lo := p
	for lo > 0 && a.b.y0-ls[idx[lo-1]].b.y0 < 2.5*h {
		lo--
	}
	for k := lo; k < len(idx) && ls[idx[k]].b.y0-a.b.y0 < 2.5*h; k++ {
		m := &ls[idx[k]]
		if in[idx[k]] || m.b.y1 <= a.b.y0 || m.b.y0 >= a.b.y1 {
			continue
		}
		for j := 1; j < len(pieces); j++ {
			if m.b.x1 > ls[pieces[j-1]].b.x1 && m.b.x0 < ls[pieces[j]].b.x0 {
				return false
			}
		}
	}
	return true
}
