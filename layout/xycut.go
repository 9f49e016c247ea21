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
// page is first cut into bands above and below it, and the bands between two such crossings
// are joined again into one run of columns (columnRuns) before they are cut at their gutter.
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
			runs := columnRuns(rs, parts, gutter)
			if len(runs) == 1 {
				// Every band joins one run of columns, yet the whole set has no gutter:
				// cannot happen (the union of the bands is the set); read the bands.
				runs = parts
			}
			for _, p := range runs {
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

// columnRuns joins consecutive horizontal bands (top to bottom) into runs of columns: a band
// goes on the run above it while the union of the two still has a vertical gutter, so the
// columns between two full-width crossings (title, figure, table, a page number in the
// gutter) are read one after the other instead of band by band, wherever their paragraph
// gaps happen to line up. A band that leaves the run no gutter (it crosses it, or its columns
// sit elsewhere) starts a new run, and so does a band with something set inside a gutter of
// the run and touching none of its columns (a page number or a mark centred between the
// columns at the foot), which is read after the columns, not between them. The x-projection of a run is kept as merged intervals, so
// each band costs its own size plus the run's few columns.
func columnRuns(rs []region, bands [][]int, gutter float64) [][]int {
	var runs [][]int
	var cover [][2]float64
	for _, b := range bands {
		bc := projection(rs, b, gutter)
		if len(runs) > 0 && !inGutter(bc, cover) {
			if u := mergeSpans(append(slices.Clone(cover), bc...), gutter); len(u) > 1 {
				runs[len(runs)-1] = append(runs[len(runs)-1], b...)
				cover = u
				continue
			}
		}
		// A copy: the bands share one backing array, which appending to a run would overwrite.
		runs = append(runs, slices.Clone(b))
		cover = bc
	}
	return runs
}

// inGutter reports whether one of the intervals iv lies between two columns of cover (sorted,
// disjoint) without overlapping any of them.
func inGutter(iv, cover [][2]float64) bool {
	for _, v := range iv {
		for k := 1; k < len(cover); k++ {
			if v[0] > cover[k-1][1] && v[1] < cover[k][0] {
				return true
			}
		}
	}
	return false
}

// projection is the x-projection of regions ids, intervals closer than gutter merged.
func projection(rs []region, ids []int, gutter float64) [][2]float64 {
	iv := make([][2]float64, 0, len(ids))
	for _, i := range ids {
		iv = append(iv, [2]float64{rs[i].b.x0, rs[i].b.x1})
	}
	return mergeSpans(iv, gutter)
}

// mergeSpans sorts intervals and merges those less than gap apart.
func mergeSpans(iv [][2]float64, gap float64) [][2]float64 {
	slices.SortFunc(iv, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
	out := iv[:0]
	for _, v := range iv {
		if n := len(out); n > 0 && v[0]-out[n-1][1] < gap {
			out[n-1][1] = max(out[n-1][1], v[1])
			continue
		}
		out = append(out, v)
	}
	return out
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
