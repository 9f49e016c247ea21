package layout

import (
	"cmp"
	"slices"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/pdf"
)

// xyCut orders regions by recursive XY-cut: a region set is cut at a vertical gutter (a gap at
// least gutter wide that no region crosses: columns, read left to right) when one exists, else
// at horizontal gaps (bands, read top to bottom); a set that cannot be cut is read top to
// bottom, left to right. Preferring gutters keeps two columns whose paragraph gaps happen to
// line up from being interleaved; a full-width heading or figure crosses the gutter, so the
// page is first cut into bands above and below it, and the bands between two such crossings
// are joined again into one run of columns (columnRuns) before they are cut at their gutter.
// body is the page's body type size.
func xyCut(rs []region, gutter, body float64, rules []hrule) []int {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	out := make([]int, 0, len(rs))
	idx, under, over := overlays(rs, idx, body)
	out = append(out, under...)
	var rec func(ids []int, depth int)
	rec = func(ids []int, depth int) {
		if len(ids) <= 1 || depth > 200 {
			out = append(out, leafOrder(rs, ids)...)
			return
		}
		// A banner heads everything under it, whatever the columns (columnRuns).
		if bands := split(rs, ids, false, 0.5); len(bands) > 1 && banner(rs, bands[0], bandTop(rs, bands[1]), gutter, body) {
			rec(bands[0], depth+1)
			rec(slices.Concat(bands[1:]...), depth+1)
			return
		}
		if parts := split(rs, ids, true, gutter); len(parts) > 1 {
			for _, p := range parts {
				rec(p, depth+1)
			}
			return
		}
		if parts := split(rs, ids, false, 0.5); len(parts) > 1 {
			runs := columnRuns(rs, parts, gutter, body, rules)
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
		out = append(out, leafOrder(rs, ids)...)
	}
	if len(idx) > 0 {
		rec(idx, 0)
	}
	return append(out, over...)
}

// overlays takes out of ids the regions drawn over the page's text rather than beside it,
// each holding the centres of two or more other regions: a picture under running text (a
// background, a tinted panel), read before the page, and text set large or turned across
// it (a DRAFT or CONFIDENTIAL watermark, a stamp), read after it. Left in, either crosses
// every gutter it spans, so the page could only be cut into bands and its columns would be
// read across. Pictures holding text are found among text only by their size (more than
// 100 points each way); text must be set at twice the body size or turned.
func overlays(rs []region, ids []int, body float64) (flow, under, over []int) {
	for _, i := range ids {
		r := &rs[i]
		cand := r.typ == element.Image && r.b.w() > 100 && r.b.h() > 100
		if r.typ == "" && len(r.lines) > 0 {
			size, turned := 0.0, 0
			for _, l := range r.lines {
				size = max(size, l.size)
				if l.turned {
					turned++
				}
			}
			cand = size >= 2*body || 2*turned > len(r.lines)
		}
		n := 0
		for _, j := range ids {
			if cand && j != i && r.b.contains((rs[j].b.x0+rs[j].b.x1)/2, (rs[j].b.y0+rs[j].b.y1)/2) {
				if n++; n >= 2 {
					break
				}
			}
		}
		switch {
		case n < 2:
			flow = append(flow, i)
		case r.typ == element.Image:
			under = append(under, i)
		default:
			over = append(over, i)
		}
	}
	return flow, under, over
}

// leafOrder orders regions the cut cannot separate: rows top to bottom, a row's regions left
// to right, where a row is a region with those after it (by top) whose first lines are level
// with its own (tops within 0.3 of the smaller first line's height) and which lie beside the
// row's regions, overlapping none of them horizontally. A label in the margin
// set a point below the text it labels is read before that text, not after it, as sorting
// by top alone would; pieces of a display formula at staggered heights keep their order.
func leafOrder(rs []region, ids []int) []int {
	slices.SortStableFunc(ids, func(a, b int) int { return cmpTopLeft(rs[a].b, rs[b].b) })
	firstLine := func(r *region) float64 {
		if len(r.lines) == 0 {
			return r.b.h()
		}
		return r.lines[0].b.h()
	}
	for i := 0; i < len(ids); {
		first := &rs[ids[i]]
		j := i + 1
		for j < len(ids) && rs[ids[j]].b.y0-first.b.y0 <= 0.3*min(firstLine(first), firstLine(&rs[ids[j]])) && !slices.ContainsFunc(ids[i:j], func(k int) bool {
			return rs[k].b.x0 < rs[ids[j]].b.x1 && rs[ids[j]].b.x0 < rs[k].b.x1
		}) {
			j++
		}
		row := ids[i:j]
		slices.SortStableFunc(row, func(a, b int) int { return cmp.Compare(rs[a].b.x0, rs[b].b.x0) })
		i = j
	}
	return ids
}

// bandTop is the top of the regions ids.
func bandTop(rs []region, ids []int) float64 {
	top := rs[ids[0]].b.y0
	for _, k := range ids {
		top = min(top, rs[k].b.y0)
	}
	return top
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
// sit elsewhere) starts a new run, and so do:
//   - a band with something set inside a gutter of the run and touching none of its columns
//     (a page number or a mark centred between the columns at the foot), read after them;
//   - a band with a column of single lines only beside another column, or a band after a
//     run of such bands: rows of a form, a table of contents, a list of exhibits, a signature block, a running foot,
//     where a band is a row read across (a label, an item number or a page number beside its
//     text), whereas columns of running text hold paragraphs of several lines on every side;
//   - a band below a horizontal rule drawn across a gutter of the run: rows of a ruled grid
//     the table finder did not take (cells of prose), read row by row;
//   - a single-column band after a single-column run (a running head at the top right, then
//     a title at the left): two pieces side by side in no columns are read top to bottom;
//   - a single-column band nearer to a band below it that crosses the run's gutter than to
//     the run (a heading over a full-width list or table): it leads what follows, not the
//     column it happens to sit over;
//   - a band after a banner: a run's first band holding no running text, only pictures and
//     headings (bold, or set larger than the body) side by side across a gutter, each
//     heading set apart from the band below by more than a line and a half of body type (a
//     report's goal statement beside a photograph, above the page's two columns). It heads
//     the page, not the column it sits over; a heading that leads its column's text sits
//     closer to it than that. (xyCut reads such a band first also where the page has a
//     gutter from top to bottom.)
//
// The x-projection of a run is kept as merged intervals, so each band costs its own size
// plus the run's few columns.
func columnRuns(rs []region, bands [][]int, gutter, body float64, rules []hrule) [][]int {
	covers := make([][][2]float64, len(bands))
	tops, bottoms := make([]float64, len(bands)), make([]float64, len(bands))
	rowLike := make([]bool, len(bands))
	for i, b := range bands {
		covers[i] = projection(rs, b, gutter)
		// A column of the band holding a paragraph, a table or a picture.
		full := make([]bool, len(covers[i]))
		for _, k := range b {
			if len(rs[k].lines) == 1 {
				continue
			}
			for c, iv := range covers[i] {
				if rs[k].b.x0 >= iv[0] && rs[k].b.x0 <= iv[1] {
					full[c] = true
				}
			}
		}
		// A band of one column is no row, however few lines it holds: a heading over its
		// paragraph in a column the other column has already ended beside.
		rowLike[i] = len(full) > 1 && slices.Contains(full, false) && !runningBeside(rs, b)
		tops[i], bottoms[i] = rs[b[0]].b.y0, rs[b[0]].b.y1
		for _, k := range b {
			tops[i], bottoms[i] = min(tops[i], rs[k].b.y0), max(bottoms[i], rs[k].b.y1)
		}
	}
	// Rows come in series (entries of a contents list, fields of a form): a band that looks
	// like a row between two bands that do not, its columns lying in the columns of the run
	// above or of the band below, stays in the run: a heading of one column level with the
	// first lines of the other by chance, a listing's closing brace level with a line of the
	// other column's listing. A lone row that adds columns is a row: column labels over a
	// statement's figures, a table's last row under a paragraph.
	alone := make([]bool, len(bands))
	for i := range bands {
		alone[i] = rowLike[i] && !(i > 0 && rowLike[i-1] || i+1 < len(bands) && rowLike[i+1])
	}
	union := func(a, b [][2]float64) [][2]float64 {
		return mergeSpans(append(slices.Clone(a), b...), gutter)
	}
	var runs [][]int
	var cover [][2]float64
	runBottom, runRows, runBands := 0.0, false, 0
	for i, b := range bands {
		bc := covers[i]
		fits := func(c [][2]float64) bool { return len(c) > 1 && len(union(c, bc)) == len(c) }
		row := rowLike[i] && !(alone[i] && (fits(cover) || i+1 < len(bands) && fits(covers[i+1])))
		if len(runs) > 0 && !row && !runRows && !inGutter(bc, cover) && (len(cover) > 1 || len(bc) > 1) &&
			!(runBands == 1 && banner(rs, bands[i-1], tops[i], gutter, body)) {
			u := union(cover, bc)
			leads := len(bc) == 1 && i+1 < len(bands) && len(union(u, covers[i+1])) == 1 &&
				tops[i+1]-bottoms[i] < tops[i]-runBottom
			if len(u) > 1 && !leads && !ruledAcross(rules, bottoms[i-1], tops[i], u) {
				runs[len(runs)-1] = append(runs[len(runs)-1], b...)
				cover, runBottom = u, max(runBottom, bottoms[i])
				runBands++
				continue
			}
		}
		// A copy: the bands share one backing array, which appending to a run would overwrite.
		runs = append(runs, slices.Clone(b))
		cover, runBottom, runRows, runBands = bc, bottoms[i], row, 1
	}
	return runs
}

// runningBeside reports whether band holds a paragraph of running text beside a stack of
// single lines rather than as one of their rows: a block of several lines beside two single
// lines of the band, one below the other (a column of text beside a table of contents,
// whose entries and page numbers are rows of their own). The cells of a table's row, a
// label or an item number beside the text it opens, lie side by side, none below another.
func runningBeside(rs []region, band []int) bool {
	for _, m := range band {
		pm := &rs[m]
		if len(pm.lines) < 2 {
			continue
		}
		seen, top, bottom := false, 0.0, 0.0
		for _, k := range band {
			s := &rs[k]
			if len(s.lines) != 1 || s.b.x1 > pm.b.x0 && s.b.x0 < pm.b.x1 || s.b.y0 >= pm.b.y1 || s.b.y1 <= pm.b.y0 {
				continue
			}
			switch {
			case !seen:
				seen, top, bottom = true, s.b.y0, s.b.y1
			case s.b.y0 >= bottom || s.b.y1 <= top:
				return true
			default:
				top, bottom = min(top, s.b.y0), max(bottom, s.b.y1)
			}
		}
	}
	return false
}

// banner reports whether band holds no running text, only pictures and at least one heading
// (most lines bold, or set at least 15 % larger than the body) in two or more columns, every
// heading ending more than 1.5 body sizes above next, the top of the band below.
func banner(rs []region, band []int, next, gutter, body float64) bool {
	if len(projection(rs, band, gutter)) < 2 {
		return false
	}
	headings := 0
	for _, k := range band {
		r := &rs[k]
		switch {
		case r.typ == element.Image:
			continue
		case r.typ != "" && r.typ != element.Title || len(r.lines) == 0:
			return false
		}
		bold, size := 0, 0.0
		for _, l := range r.lines {
			size = max(size, l.size)
			if l.bold {
				bold++
			}
		}
		if !(2*bold > len(r.lines) || size >= 1.15*body) || next-r.b.y1 <= 1.5*body {
			return false
		}
		headings++
	}
	return headings > 0
}

// hrule is a horizontal rule drawn on the page (top-left space): y, from x0 to x1.
type hrule struct{ y, x0, x1 float64 }

// pageRules collects the page's horizontal rules in top-left space (stroked and thin filled
// lines, edges of stroked rectangles; pieces drawn cell by cell joined), sorted by y, those
// shorter than minLen left out.
func pageRules(p *pdf.Page, minLen float64) []hrule {
	H := p.Height
	var rs []hrule
	add := func(y, x0, x1 float64) {
		if x1-x0 >= 0.5 {
			rs = append(rs, hrule{H - y, x0, x1})
		}
	}
	geo := &p.Geometry
	for i := range geo.Segments {
		s := &geo.Segments[i]
		if s.Kind == pdf.SegCurve || s.Gray >= 0.95 || !s.Horizontal(0.5) {
			continue
		}
		add((s.Y0+s.Y1)/2, min(s.X0, s.X1), max(s.X0, s.X1))
	}
	for i := range geo.Rects {
		r := &geo.Rects[i]
		if r.Stroke && r.StrokeGray < 0.95 {
			add(r.Y0, r.X0, r.X1)
			add(r.Y1, r.X0, r.X1)
		}
	}
	slices.SortFunc(rs, func(a, b hrule) int {
		if c := cmp.Compare(a.y, b.y); c != 0 {
			return c
		}
		return cmp.Compare(a.x0, b.x0)
	})
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.y-out[n-1].y <= 1 && r.x0 <= out[n-1].x1+1 {
			out[n-1].x1 = max(out[n-1].x1, r.x1)
			continue
		}
		out = append(out, r)
	}
	keep := out[:0]
	for _, r := range out {
		if r.x1-r.x0 >= minLen {
			keep = append(keep, r)
		}
	}
	return keep
}

// ruledAcross reports whether a rule (rules sorted by y) lies between y0 and y1 (with a point
// to spare) and reaches from one column of cover into the next.
func ruledAcross(rules []hrule, y0, y1 float64, cover [][2]float64) bool {
	k, _ := slices.BinarySearchFunc(rules, y0-1, func(r hrule, y float64) int { return cmp.Compare(r.y, y) })
	for ; k < len(rules) && rules[k].y <= y1+1; k++ {
		for c := 1; c < len(cover); c++ {
			if rules[k].x0 < cover[c-1][1] && rules[k].x1 > cover[c][0] {
				return true
			}
		}
	}
	return false
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
