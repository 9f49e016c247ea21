package layout

import (
	"cmp"
	"slices"
)

// xyCut orders regions by recursive XY-cut: a region set is cut at a vertical gutter (a gap at
// least gutter wide that no region crosses: columns, read left to right) when one exists, else
// at horizontal gaps (bands, read top to bottom); a set that cannot be cut is read top to
// bottom, left to right. Preferring gutters keeps two columns whose paragraph gaps happen to
// line up from being interleaved; a full-width heading or figure crosses the gutter, so the
// page is first cut into bands above and below it.
func xyCut(rs []region, gutter float64) []int {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	out := make([]int, 0, len(rs))
	var rec func(ids []int, depth int)
	rec = func(ids []int, depth int) {
		if len(ids) <= 1 || depth > 200 {
			slices.SortStableFunc(ids, func(a, b int) int { return cmpTopLeft(rs[a].b, rs[b].b) })
			out = append(out, ids...)
			return
		}
		if parts := split(rs, ids, true, gutter); len(parts) > 1 {
			for _, p := range parts {
				rec(p, depth+1)
			}
			return
		}
		if parts := split(rs, ids, false, 0.5); len(parts) > 1 {
			for _, p := range parts {
				rec(p, depth+1)
			}
			return
		}
		slices.SortStableFunc(ids, func(a, b int) int { return cmpTopLeft(rs[a].b, rs[b].b) })
		out = append(out, ids...)
	}
	rec(idx, 0)
	return out
}

func cmpTopLeft(a, b box) int {
	if c := cmp.Compare(a.y0, b.y0); c != 0 {
		return c
	}
	return cmp.Compare(a.x0, b.x0)
}

// split cuts ids along x (vertical gaps) or y at every gap of at least minGap in the
// projection, in increasing coordinate order.
func split(rs []region, ids []int, alongX bool, minGap float64) [][]int {
	lo := func(i int) float64 {
		if alongX {
			return rs[i].b.x0
		}
		return rs[i].b.y0
	}
	hi := func(i int) float64 {
		if alongX {
			return rs[i].b.x1
		}
		return rs[i].b.y1
	}
	sorted := slices.Clone(ids)
	slices.SortStableFunc(sorted, func(a, b int) int { return cmp.Compare(lo(a), lo(b)) })
	var parts [][]int
	start := 0
	end := hi(sorted[0])
	for k := 1; k < len(sorted); k++ {
		if lo(sorted[k])-end >= minGap {
			parts = append(parts, sorted[start:k])
			start = k
		}
		end = max(end, hi(sorted[k]))
	}
	return append(parts, sorted[start:])
}
