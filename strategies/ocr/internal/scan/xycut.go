package scan

import (
	"image"
	"sort"
)

// xyCut orders boxes for reading: recursively split at vertical gutters (columns, left to
// right) where there are any, else at horizontal gaps (bands, top to bottom) — the reference
// sorts hi_res regions by XY-cut too. It returns indices into boxes.
func xyCut(boxes []image.Rectangle, minGutter int) []int {
	idx := make([]int, len(boxes))
	for i := range idx {
		idx[i] = i
	}
	var out []int
	var rec func(set []int, depth int)
	rec = func(set []int, depth int) {
		if len(set) <= 1 || depth > 64 {
			sort.SliceStable(set, func(a, b int) bool {
				ba, bb := boxes[set[a]], boxes[set[b]]
				if ba.Min.Y != bb.Min.Y {
					return ba.Min.Y < bb.Min.Y
				}
				return ba.Min.X < bb.Min.X
			})
			out = append(out, set...)
			return
		}
		if groups := splitColumns(set, boxes, minGutter); len(groups) > 1 {
			for _, g := range groups {
				rec(g, depth+1)
			}
			return
		}
		if groups := split(set, boxes, false, 1); len(groups) > 1 {
			for _, g := range groups {
				rec(g, depth+1)
			}
			return
		}
		sort.SliceStable(set, func(a, b int) bool { return boxes[set[a]].Min.Y < boxes[set[b]].Min.Y })
		out = append(out, set...)
	}
	rec(idx, 0)
	return out
}

// split groups a set at gaps of the projection on x (vertical=true) or y of at least minGap.
func split(set []int, boxes []image.Rectangle, vertical bool, minGap int) [][]int {
	lo := func(i int) int {
		if vertical {
			return boxes[i].Min.X
		}
		return boxes[i].Min.Y
	}
	hi := func(i int) int {
		if vertical {
			return boxes[i].Max.X
		}
		return boxes[i].Max.Y
	}
	s := append([]int(nil), set...)
	sort.SliceStable(s, func(a, b int) bool { return lo(s[a]) < lo(s[b]) })
	var groups [][]int
	cur := []int{s[0]}
	end := hi(s[0])
	for _, i := range s[1:] {
		if lo(i)-end >= minGap {
			groups = append(groups, cur)
			cur = nil
		}
		cur = append(cur, i)
		end = max(end, hi(i))
	}
	return append(groups, cur)
}

// splitColumns splits a set at vertical gutters. One stray box across a gutter (Tesseract
// sometimes stretches a word over it) does not hide a gutter that every other line respects:
// positions covered by at most one box in forty count as free, and a crossing box goes to the
// column holding its centre.
func splitColumns(set []int, boxes []image.Rectangle, minGutter int) [][]int {
	x0, x1 := boxes[set[0]].Min.X, boxes[set[0]].Max.X
	for _, i := range set {
		x0, x1 = min(x0, boxes[i].Min.X), max(x1, boxes[i].Max.X)
	}
	width := x1 - x0
	if width <= 0 {
		return nil
	}
	cover := make([]int, width+1)
	for _, i := range set {
		for x := boxes[i].Min.X - x0; x < boxes[i].Max.X-x0; x++ {
			cover[x]++
		}
	}
	tol := len(set) / 40
	var cuts []int // x of each gutter's middle
	run := -1
	for x := 0; x <= width; x++ {
		if cover[x] <= tol {
			if run < 0 {
				run = x
			}
			continue
		}
		if run > 0 && x-run >= minGutter {
			cuts = append(cuts, x0+(run+x)/2)
		}
		run = -1
	}
	if len(cuts) == 0 {
		return nil
	}
	groups := make([][]int, len(cuts)+1)
	for _, i := range set {
		c := (boxes[i].Min.X + boxes[i].Max.X) / 2
		g := sort.SearchInts(cuts, c)
		groups[g] = append(groups[g], i)
	}
	var out [][]int
	for _, g := range groups {
		if len(g) > 0 {
			out = append(out, g)
		}
	}
	return out
}
