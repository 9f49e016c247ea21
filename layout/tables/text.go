package tables

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thresholds of the text-alignment pass, in units of the font size (em) so that they hold at
// any scale.
const (
	// phraseGapEm: a horizontal gap wider than this ends a phrase (a run of words read
	// together). Word spaces are a quarter to a third of an em, justified ones rarely reach
	// two thirds; table columns are set further apart.
	phraseGapEm = 1.0
	// gutterEm: the narrowest empty vertical band, across the rows that define the columns,
	// that separates two columns.
	gutterEm = 0.6
	// rowGapEm: the widest vertical gap between two lines of one table block.
	rowGapEm = 2.5
	// wrapGapEm: two lines closer than this may be one row (a wrapped cell).
	wrapGapEm = 0.8
)

// tline is a text line of the alignment pass with its phrases (index ranges into words).
type tline struct {
	line
	phrases [][2]int
	// core, when set, is the box of the lines of cells a composite line was built from,
	// without a row label set between two rows that overlaps both (composite).
	core Rect
}

// rowBox is the box of the line's cells: its core when it is a composite that has one.
func (l tline) rowBox() Rect {
	if l.core != (Rect{}) {
		return l.core
	}
	return l.box
}

func phrasesOf(l line, ws []Word) [][2]int {
	var out [][2]int
	start := 0
	for k := 1; k < len(l.words); k++ {
		a, b := ws[l.words[k-1]], ws[l.words[k]]
		if b.Box.X0-a.Box.X1 > phraseGapEm*maxf(a.Size, b.Size) {
			out = append(out, [2]int{start, k})
			start = k
		}
	}
	return append(out, [2]int{start, len(l.words)})
}

// textTables finds tables from text alignment among the words not yet used: blocks of
// consecutive lines most of which have several phrases, columns from the vertical gutters
// those lines share, rows from baselines. Horizontal rules (hs) separate rows and mark the
// table as partly ruled.
func textTables(ws []Word, used []bool, hs []hrule, vs []vrule, body float64, opt Options) []Table {
	var idx []int
	for i := range ws {
		if !used[i] && ws[i].Dir == 0 {
			idx = append(idx, i)
		}
	}
	return textTablesIn(idx, ws, used, hs, vs, body, opt, 0)
}

// maxProseDrops bounds how often a block is searched again without a column of running text.
const maxProseDrops = 3

// textTablesIn runs the alignment pass on the words idx. A block whose first or last column is
// running text (a column of prose beside a table, or two columns of prose) is searched again
// without that column's words.
func textTablesIn(idx []int, ws []Word, used []bool, hs []hrule, vs []vrule, body float64, opt Options, depth int) []Table {
	ls := groupLines(idx, ws)
	lines := make([]tline, len(ls))
	for i, l := range ls {
		lines[i] = tline{line: l, phrases: phrasesOf(l, ws)}
	}
	// The page's text width: what a line of running text spans.
	var textWidth float64
	if len(lines) > 0 {
		ext := lines[0].box
		for _, l := range lines {
			ext = ext.Union(l.box)
		}
		textWidth = ext.W()
	}
	var out []Table
	for i := 0; i < len(lines); {
		if !tabular(lines[i], ws) || numberedHeading(lines[i], ws, body) {
			i++
			continue
		}
		// Grow the block while lines stay close and are tabular, or are short single
		// phrases inside it (a label row, a wrapped cell). The box and the font sizes of the
		// block so far are kept as it grows, so a long table costs linear time.
		j := i + 1
		last := i
		box := lines[i].box
		sizes := map[float64]int{}
		nsize := 0
		addSize := func(v float64) {
			sizes[math.Round(10*v)/10]++
			nsize++
		}
		addSize(lines[i].size)
		for j < len(lines) {
			gap := lines[j-1].box.Y0 - lines[j].box.Y1
			med := medianOf(sizes, nsize)
			if gap > rowGapEm*maxf(body, med) || lines[j].size > 1.2*med {
				break // a blank space or a heading ends the block
			}
			if (tabular(lines[j], ws) && !numberedHeading(lines[j], ws, body)) || fitsGutters(lines[j], lines[last], ws) {
				last = j
				box = box.Union(lines[j].box)
				addSize(lines[j].size)
			} else if !shortLine(lines[j], box, med, textWidth) && !wrapsIntoRow(lines, j, ws, med) {
				break
			}
			j++
		}
		// Header lines just above: single phrases set over the columns.
		top := i
		for top > 0 {
			up := lines[top-1]
			if lines[top-1].box.Y0-lines[top].box.Y1 > wrapGapEm*1.5*up.size || !headerLine(up, box, lines[i].size) {
				break
			}
			top--
		}
		top = ruledHead(lines, top, box, hs)
		t, ok, prose := alignedTable(lines[top:last+1], ws, hs, vs, body, opt)
		switch {
		case ok:
			for _, w := range t.Words {
				used[w] = true
			}
			out = append(out, t)
		case len(prose) > 0 && depth < maxProseDrops:
			drop := map[int]bool{}
			for _, w := range prose {
				drop[w] = true
			}
			var rest []int
			for _, l := range lines[top : last+1] {
				for _, w := range l.words {
					if !drop[w] {
						rest = append(rest, w)
					}
				}
			}
			out = append(out, textTablesIn(rest, ws, used, hs, vs, body, opt, depth+1)...)
		}
		i = last + 1
	}
	return out
}

func blockBox(ls []tline) Rect {
	var r Rect
	for _, l := range ls {
		r = r.Union(l.box)
	}
	return r
}

// shortLine reports whether a single-phrase line can sit inside a table block whose box and
// median font size are given: narrower than half the block or half the page's text width
// (a label row, outdented or not, a wrapped cell; a paragraph's line is wider), and not set
// larger than the block (a heading between two tables is).
func shortLine(l tline, b Rect, size, textWidth float64) bool {
	if l.size > 1.2*size {
		return false // a heading between two tables
	}
	return l.box.W() < 0.5*maxf(b.W(), textWidth)
}

// tabular reports whether a line can start or extend a table block: it has several phrases,
// and is not a list item, whose marker is set apart from its text by a tab (a word processor's
// numbered or bulleted list, "1.<tab>The heating system…"): a list of such items just above a
// table read as its first rows, the heading and caption between them included.
func tabular(l tline, ws []Word) bool {
	if len(l.phrases) < 2 {
		return false
	}
	if len(l.phrases) > 2 {
		return true
	}
	mk, text := l.phrases[0], l.phrases[1]
	if mk[1]-mk[0] != 1 || text[1]-text[0] < 2 || !marker(ws[l.words[mk[0]]].Text) {
		return true
	}
	first, _ := utf8.DecodeRuneInString(ws[l.words[text[0]]].Text)
	return !unicode.IsLetter(first)
}

// numberedHeading reports whether a line is a numbered heading: a section number ("2",
// "1.2.2", "A.6") set apart from a title of a few words, the whole line bold or set larger
// than the body text. Its number and title are two phrases, not two cells: a heading over a
// paragraph, or between a listing's lines, started tables of two columns in manuals.
func numberedHeading(l tline, ws []Word, body float64) bool {
	if len(l.phrases) != 2 || l.phrases[0][1]-l.phrases[0][0] != 1 || l.phrases[1][1]-l.phrases[1][0] > 8 {
		return false
	}
	if !sectionNumber(ws[l.words[0]].Text) {
		return false
	}
	bold := true
	for _, w := range l.words {
		bold = bold && ws[w].Bold
	}
	return bold || l.size >= 1.15*body
}

// sectionNumber reports whether s reads as a section number: numbers (or a capital letter
// first, for appendices) joined by dots, with an optional dot at the end.
func sectionNumber(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return false
	}
	for i, part := range strings.Split(s, ".") {
		if part == "" {
			return false
		}
		if i == 0 && len(part) == 1 && part[0] >= 'A' && part[0] <= 'Z' {
			continue
		}
		if len(part) > 3 || strings.TrimFunc(part, unicode.IsDigit) != "" {
			return false
		}
	}
	return true
}

// wrapsIntoRow reports whether the long single-phrase line j is the first line of a label
// that wraps onto a table row: the next line is close, starts in lower case and has several
// phrases (the label's end and the row's figures).
func wrapsIntoRow(lines []tline, j int, ws []Word, size float64) bool {
	if j+1 >= len(lines) {
		return false
	}
	next := lines[j+1]
	first := []rune(ws[next.words[0]].Text)[0]
	return len(next.phrases) >= 2 && unicode.IsLower(first) && lines[j].box.Y0-next.box.Y1 < wrapGapEm*size
}

// medianOf is the median of a histogram of n values.
func medianOf(h map[float64]int, n int) float64 {
	keys := make([]float64, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	seen := 0
	for _, k := range keys {
		seen += h[k]
		if 2*seen > n {
			return k
		}
	}
	return 0
}

// maxRuledHead bounds the lines of a head between two rules (ruledHead).
const maxRuledHead = 4

// ruledHead returns the index of the first line of the block that starts at line top, taking in
// the head of a table ruled in the booktabs way: a rule spans the block just above its first
// line (the rule under the head), another of the same extent lies above it (the rule over the
// table), and the few lines between them lie within the rules' ends. Those lines are the
// table's head whatever their shape: column labels set closer than a gutter ("Top-1 Top-5
// Top-20") read as one phrase, and a line over the columns without a label over the first
// column starts at neither edge. Without the two rules, only headerLine's lines join.
func ruledHead(lines []tline, top int, box Rect, hs []hrule) int {
	if top == 0 {
		return top
	}
	first, up := lines[top], lines[top-1]
	em := first.size
	spans := func(r hrule) bool {
		return r.x0 <= box.X0+em && r.x1 >= box.X1-em && r.x1-r.x0 <= box.W()+8*em
	}
	// hs is sorted by height (mergeH): only the rules between the two lines are looked at,
	// so a page of many blocks and many rules stays linear.
	under := -1
	lo := first.box.Y1 - 0.2*em
	for k := sort.Search(len(hs), func(i int) bool { return hs[i].y > lo }); k < len(hs) && hs[k].y < up.box.Y0+0.2*em; k++ {
		if spans(hs[k]) {
			under = k
		}
	}
	if under < 0 {
		return top
	}
	b := hs[under]
	over := -1
	for k := under + 1; k < len(hs); k++ {
		r := hs[k]
		if r.y <= b.y+0.5*em {
			continue
		}
		if absf(r.x0-b.x0) <= em && absf(r.x1-b.x1) <= em {
			over = k
		}
		break
	}
	if over < 0 {
		return top
	}
	a := hs[over]
	k := top
	for k > 0 && top-k < maxRuledHead {
		l := lines[k-1]
		if l.box.Y1 > a.y+0.2*em || l.box.Y0 < b.y-0.2*em {
			break
		}
		if k == top && l.box.Y0-b.y > wrapGapEm*l.size {
			return top // set apart from the rule: a caption over the next table, not its head
		}
		if l.box.X0 < a.x0-em || l.box.X1 > a.x1+em {
			return top // text beside the rules: not a table's head
		}
		k--
	}
	if k == top || (k > 0 && lines[k-1].box.Y1 <= a.y+0.2*em && lines[k-1].box.Y0 >= b.y-0.2*em) {
		return top // nothing between the rules, or more than a head
	}
	if hd := lines[k]; a.y-hd.box.Y1 > wrapGapEm*hd.size || b.y-first.box.Y1 > wrapGapEm*em {
		return top // the rules hug a table's head and its first row; these stand apart
	}
	return k
}

// headerLine reports whether a line just above a block (of box b) can be its header: inside
// the block's extent, and either tabular itself or a single phrase not starting at the block's
// left edge (a caption or a heading starts there).
//
// A single phrase set larger than the block's text (size) is a title over the table — a
// spreadsheet's sheet name centred over its columns — not a label of it.
func headerLine(l tline, b Rect, size float64) bool {
	if l.box.X0 < b.X0-l.size || l.box.X1 > b.X1+l.size {
		return false
	}
	if len(l.phrases) >= 2 {
		return true
	}
	return l.box.X0 > b.X0+2*l.size && l.box.W() < 0.5*b.W() && l.size <= 1.15*size
}

// fitsGutters reports whether a line whose words are set closer than a phrase gap (a
// spreadsheet's narrow columns, where one row's cells happen to run together) still reads as
// a row of the block whose line above is prev: prev has three phrases or more, the line
// reaches over the starts of two of them but the first at least (its last cells may be
// empty), and none of its words runs across such a start.
func fitsGutters(l, prev tline, ws []Word) bool {
	if len(prev.phrases) < 3 || len(l.words) < 3 {
		return false
	}
	across := 0
	for k := 1; k < len(prev.phrases); k++ {
		x := ws[prev.words[prev.phrases[k][0]]].Box.X0
		if l.box.X0 >= x || l.box.X1 <= x {
			continue // an empty cell at the row's end
		}
		across++
		for _, w := range l.words {
			if ws[w].Box.X0 < x-0.1*ws[w].Size && ws[w].Box.X1 > x+0.1*ws[w].Size {
				return false
			}
		}
	}
	return across >= 2
}

// alignedTable builds the table of one block of lines, or reports false when the block does
// not read as a table; then, when its first or last column is running text, it also returns
// that column's words, for the block to be searched again without them.
func alignedTable(block []tline, ws []Word, hs []hrule, vs []vrule, body float64, opt Options) (Table, bool, []int) {
	minRows, minCols := opt.MinRows, opt.MinCols
	if minRows <= 0 {
		minRows = 3
	}
	if minCols <= 0 {
		minCols = 2
	}
	block = composite(block, ws)
	if len(block) < minRows {
		return Table{}, false, nil
	}
	// Lines with the most phrases define the columns; others (headers spanning several
	// columns, wrapped cells, label rows) are fitted to them.
	// most is the largest phrase count that at least two lines reach (one line with
	// accidental wide spaces does not set the columns).
	counts := make([]int, 0, len(block))
	for _, l := range block {
		counts = append(counts, len(l.phrases))
	}
	sort.Sort(sort.Reverse(sort.IntSlice(counts)))
	most := counts[min(1, len(counts)-1)]
	full := max(2, (3*most+3)/4)
	var spans [][2]float64
	var defining []tline
	for _, l := range block {
		if len(l.phrases) < full {
			continue
		}
		defining = append(defining, l)
		for _, w := range l.words {
			spans = append(spans, [2]float64{ws[w].Box.X0, ws[w].Box.X1})
		}
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a][0] < spans[b][0] })
	// Open bands wider than gutterEm separate columns; narrower ones (down to 0.35 em: over a
	// word space and some) do when the text on one side is aligned on them (alignedGutter).
	var colsIv [][2]float64
	for _, s := range spans {
		if n := len(colsIv); n > 0 && s[0]-colsIv[n-1][1] < 0.35*body {
			colsIv[n-1][1] = maxf(colsIv[n-1][1], s[1])
			continue
		}
		colsIv = append(colsIv, s)
	}
	merged := colsIv[:0:0]
	for _, iv := range colsIv {
		if n := len(merged); n > 0 {
			a, b := merged[n-1][1], iv[0]
			if b-a < gutterEm*body && !alignedGutter(a, b, defining, ws, body) {
				merged[n-1][1] = maxf(merged[n-1][1], iv[1])
				continue
			}
		}
		merged = append(merged, iv)
	}
	colsIv = merged
	if len(colsIv) < minCols {
		return Table{}, false, nil
	}
	edges := make([]float64, len(colsIv)-1)
	for k := 1; k < len(colsIv); k++ {
		edges[k-1] = (colsIv[k-1][1] + colsIv[k][0]) / 2
	}
	colOf := func(x float64) int { return sort.SearchFloat64s(edges, x) }
	// A word belongs to the column holding its centre, and spans into a neighbour only when
	// it overlaps that neighbour's text (as found on the defining lines) by more than a
	// tenth of an em: a header wider than its figures reaches into the gutter, not across.
	wordCols := func(w int) (int, int) {
		b := ws[w].Box
		eps := 0.1 * ws[w].Size
		c := colOf((b.X0 + b.X1) / 2)
		c0, c1 := c, c
		for c0 > 0 && b.X0 < colsIv[c0-1][1]-eps {
			c0--
		}
		for c1 < len(colsIv)-1 && b.X1 > colsIv[c1+1][0]+eps {
			c1++
		}
		return c0, c1
	}
	// Each column's extent over the whole block: where its text starts and ends.
	colLeft := make([]float64, len(colsIv))
	colRight := make([]float64, len(colsIv))
	for k := range colsIv {
		colLeft[k], colRight[k] = math.Inf(1), math.Inf(-1)
	}
	for _, l := range block {
		for _, w := range l.words {
			c0, c1 := wordCols(w)
			colLeft[c0] = minf(colLeft[c0], ws[w].Box.X0)
			colRight[c1] = maxf(colRight[c1], ws[w].Box.X1)
		}
	}
	if prose := proseColumn(block, ws, wordCols, colLeft, colRight, body); prose >= 0 {
		var drop []int
		for _, l := range block {
			for _, w := range l.words {
				if c0, c1 := wordCols(w); c0 <= prose && c1 >= prose {
					drop = append(drop, w)
				}
			}
		}
		return Table{}, false, drop
	}
	bb := blockBox(block)
	rules := rulesAcross(hs, bb)
	// Rows: a line starts a new row unless it continues the previous one.
	type trow struct {
		lines   []int
		numeric bool
		spans   bool
		header  bool
	}
	var rows []trow
	lineNumeric := func(l tline) bool {
		for _, w := range l.words {
			if numeric(ws[w].Text) {
				return true
			}
		}
		return false
	}
	phraseSpans := func(l tline) bool {
		for _, p := range l.phrases {
			a, _ := wordCols(l.words[p[0]])
			_, b := wordCols(l.words[p[1]-1])
			if b > a {
				return true
			}
		}
		return false
	}
	// The header zone is the lines above the first body line: one with a label in the first
	// column and a figure in another. Its lines merge into multi-line header cells, except
	// below a line with a cell spanning columns (a multi-level header).
	// A figure is a phrase that starts with one: "30, 2023" in "Sep 30, 2023" is part of a
	// date; and a year alone labels a column of a statement's head.
	figure := func(l tline, p [2]int) bool {
		// The phrase's first word with a letter or a digit must be a figure: "6.5 %",
		// "$ 1,234", "11.6 years" are figures; "Sep 30, 2023", "Level 1" are labels.
		num := false
		for _, w := range l.words[p[0]:p[1]] {
			t := ws[w].Text
			if strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
				continue
			}
			num = numeric(t)
			break
		}
		if !num {
			return false
		}
		if p[1]-p[0] == 1 {
			if v, err := strconv.Atoi(ws[l.words[p[0]]].Text); err == nil && v >= 1900 && v <= 2100 {
				return false
			}
		}
		return true
	}
	firstBody := len(block)
	for k, l := range block {
		stub, fig := false, false
		for _, p := range l.phrases {
			for _, w := range l.words[p[0]:p[1]] {
				if c0, _ := wordCols(w); c0 == 0 {
					stub = true
				} else if figure(l, p) {
					fig = true
				}
			}
		}
		if stub && fig {
			firstBody = k
			break
		}
	}
	if firstBody == len(block) {
		firstBody = 1
	}
	// Lines of the stub alone just above it are the body's section labels ("Assets", "Cash
	// equivalents:"), not lines of the head.
	for firstBody > 1 {
		stubOnly := true
		for _, w := range block[firstBody-1].words {
			if c0, _ := wordCols(w); c0 != 0 {
				stubOnly = false
			}
		}
		if !stubOnly {
			break
		}
		firstBody--
	}
	groups := groupHeads(block, firstBody, ws, hs, vs, wordCols, bb)
	lineSpans := func(l tline) bool {
		for _, p := range l.phrases {
			if _, ok := groups[l.words[p[0]]]; ok {
				return true
			}
		}
		return phraseSpans(l)
	}
	for k, l := range block {
		ln := lineNumeric(l)
		if len(rows) > 0 {
			prev := &rows[len(rows)-1]
			pl := block[prev.lines[len(prev.lines)-1]]
			gap := pl.box.Y0 - l.box.Y1
			sep := ruleBetween(rules, l.box.Y1, pl.box.Y0)
			cont := false
			switch {
			case sep:
			case gap < -0.2*l.size && len(l.phrases) >= 2 && pl.rowBox().Y0-l.box.Y1 >= -0.2*l.size:
				// A row of cells under another, overlapping only a label centred on both.
			case gap < -0.2*l.size:
				// Lines that overlap vertically are one row: a figure set between the two
				// lines of a wrapped label.
				cont = true
			case gap >= wrapGapEm*l.size:
			case k < firstBody:
				cont = !prev.spans
			default:
				first := []rune(ws[l.words[0]].Text)[0]
				// A wrapped cell: a line starting in lower case or with a bracket, with fewer
				// phrases; or a line of text under cells of the row, its first column empty.
				lower := unicode.IsLower(first) || first == '(' || first == '['
				cont = lower && !ln && !prev.spans && 2*len(l.phrases) <= len(pl.phrases)
				cont = cont || (!prev.spans && continuesRow(l, prev.lines, block, ws, wordCols, colLeft, colRight))
				cont = cont || wrappedLabel(pl, prev.lines, block, l, ws, wordCols, colLeft, colRight)
			}
			if cont {
				prev.lines = append(prev.lines, k)
				prev.numeric = prev.numeric || ln
				continue
			}
		}
		rows = append(rows, trow{lines: []int{k}, numeric: ln, spans: lineSpans(l), header: k < firstBody})
	}
	if len(rows) < minRows {
		return Table{}, false, nil
	}
	// Columns of currency signs: every word in them below the head is one ("$" before the
	// first and last figures of a statement).
	signCol := make([]bool, len(colsIv))
	signs := make([]int, len(colsIv))
	for k, l := range block {
		if k < firstBody {
			continue
		}
		for _, w := range l.words {
			c0, c1 := wordCols(w)
			if c0 != c1 {
				signs[c0] = -1
				continue
			}
			if signs[c0] >= 0 && currencySign(ws[w].Text) {
				signs[c0]++
			} else {
				signs[c0] = -1
			}
		}
	}
	for c, n := range signs {
		signCol[c] = n > 0
	}
	// Cells: in each row, words grouped by the columns they cover; a phrase crossing a
	// column edge (a spanning header) makes one cell over those columns.
	ncol := len(colsIv)
	var cells []gcell
	var words []int
	grouped := make([]bool, len(rows))
	for r, row := range rows {
		type part struct {
			c0, c1 int
			words  []int
		}
		var parts []part
		for _, k := range row.lines {
			l := block[k]
			for _, p := range l.phrases {
				if g, ok := groups[l.words[p[0]]]; ok {
					grouped[r] = true
					parts = append(parts, part{g[0], g[1], append([]int(nil), l.words[p[0]:p[1]]...)})
					continue
				}
				// Words of a phrase in one cell unless the phrase's words fall in separate
				// columns, each wholly inside one; in the head, a phrase over a column of
				// currency signs and the figures beside it ("Sep 30, 2023" over "$" and
				// "14,158") is one cell over both.
				var cur *part
				for _, w := range l.words[p[0]:p[1]] {
					c0, c1 := wordCols(w)
					if cur != nil && (c0 <= cur.c1 || (row.header && (signCol[cur.c1] || signCol[c0]) && c0 == cur.c1+1)) {
						cur.c1 = max(cur.c1, c1)
						cur.words = append(cur.words, w)
						continue
					}
					parts = append(parts, part{c0, c1, []int{w}})
					cur = &parts[len(parts)-1]
				}
			}
		}
		// Merge parts of different lines that overlap in columns.
		sort.Slice(parts, func(a, b int) bool { return parts[a].c0 < parts[b].c0 })
		var merged []part
		for _, p := range parts {
			if n := len(merged); n > 0 && p.c0 <= merged[n-1].c1 {
				merged[n-1].c1 = max(merged[n-1].c1, p.c1)
				merged[n-1].words = append(merged[n-1].words, p.words...)
				continue
			}
			merged = append(merged, p)
		}
		c := 0
		for _, p := range merged {
			for ; c < p.c0; c++ {
				cells = append(cells, gcell{r0: r, r1: r + 1, c0: c, c1: c + 1})
			}
			cells = append(cells, gcell{r0: r, r1: r + 1, c0: p.c0, c1: p.c1 + 1, words: p.words})
			words = append(words, p.words...)
			c = p.c1 + 1
		}
		for ; c < ncol; c++ {
			cells = append(cells, gcell{r0: r, r1: r + 1, c0: c, c1: c + 1})
		}
	}
	header := make([]bool, len(rows))
	for r := range rows {
		header[r] = rows[r].header
	}
	cells = spanHeadRows(cells, header, grouped)
	cells = spanRowLabels(cells, header, ws)
	t, ok := build(cells, len(rows), ncol, ws, Borderless, nil, nil)
	if !ok || t.Rows < minRows || t.Cols < minCols || prose(t) || list(t) || formula(t) {
		return Table{}, false, nil
	}
	// At least two rows must have two filled cells: one aligned pair of lines is not a table.
	filled := map[int]int{}
	for _, c := range t.Cells {
		if c.Text != "" {
			filled[c.Row]++
		}
	}
	multi := 0
	for _, n := range filled {
		if n >= 2 {
			multi++
		}
	}
	if multi < 2 || sparse(t) {
		// Too sparse: the labels of a chart, scattered text.
		return Table{}, false, nil
	}
	if len(rules) > 0 {
		t.Kind = PartlyRuled
		for _, h := range rules {
			if h.y >= t.Box.Y0-body && h.y <= t.Box.Y1+body {
				t.Box = t.Box.Union(Rect{h.x0, h.y, h.x1, h.y})
			}
		}
	}
	// Header rows: the rows of the header zone, when the table has rows below them.
	hdr := 0
	for hdr < len(rows) && rows[hdr].header {
		hdr++
	}
	if hdr < len(rows) && hdr > 0 {
		t.HeaderRows = hdr
		for i := range t.Cells {
			t.Cells[i].Header = t.Cells[i].Row < hdr
		}
	}
	byRow := make([][]int, len(rows))
	for _, c := range cells {
		byRow[c.r0] = append(byRow[c.r0], c.words...)
	}
	if equation(t) || listing(byRow, ws) || contents(t) || index(t) {
		return Table{}, false, nil
	}
	t.Words = words
	return t, true, nil
}

// spanHeadRows gives a label of a head row holding group labels (grouped) the head row below it
// too where that row is empty under it: "Model" or "Sim" beside a group label over the column
// labels are one cell over both levels (rowspan 2), as the reference writes such heads.
func spanHeadRows(cells []gcell, header, grouped []bool) []gcell {
	for r := 0; r+1 < len(header); r++ {
		if !grouped[r] || !header[r+1] {
			continue
		}
		empty := emptyCells(cells)
		drop := map[int]bool{}
		for i, c := range cells {
			if c.r0 == r && c.r1 == r+1 && len(c.words) > 0 {
				spanDown(cells, i, empty, drop)
			}
		}
		cells = withoutDropped(cells, drop)
	}
	return cells
}

// emptyCells maps (row, column) to the empty one-row, one-column cell there.
func emptyCells(cells []gcell) map[[2]int]int {
	empty := map[[2]int]int{}
	for i, c := range cells {
		if len(c.words) == 0 && c.r1 == c.r0+1 && c.c1 == c.c0+1 {
			empty[[2]int{c.r0, c.c0}] = i
		}
	}
	return empty
}

// spanDown makes one-row cell i reach over the next row too (rowspan 2) when every column under
// it holds an empty cell (emptyCells) not yet dropped, and marks those cells dropped.
func spanDown(cells []gcell, i int, empty map[[2]int]int, drop map[int]bool) {
	c := cells[i]
	var under []int
	for k := c.c0; k < c.c1; k++ {
		j, ok := empty[[2]int{c.r0 + 1, k}]
		if !ok || drop[j] {
			return
		}
		under = append(under, j)
	}
	cells[i].r1 = c.r0 + 2
	for _, j := range under {
		drop[j] = true
	}
}

// withoutDropped is cells without those marked in drop, in place.
func withoutDropped(cells []gcell, drop map[int]bool) []gcell {
	if len(drop) == 0 {
		return cells
	}
	kept := cells[:0]
	for i, c := range cells {
		if !drop[i] {
			kept = append(kept, c)
		}
	}
	return kept
}

// spanRowLabels gives a body cell set between its row and the next the next row too where
// that row is empty under it (rowspan 2), as a row label centred on the two rows it labels is
// ("DP" beside its "NLL" and "Triplet" rows, LaTeX's \multirow): the cell's middle lies in
// the middle half of the step between the two rows' lines, and each of the two rows is one
// line of two or more other filled cells. A cell on its row's line, over a filled cell, of
// several lines, or beside rows of several lines (a unit line under a head's labels) stays.
func spanRowLabels(cells []gcell, header []bool, ws []Word) []gcell {
	nrows := len(header)
	byRow := make([][]int, nrows)
	for i, c := range cells {
		byRow[c.r0] = append(byRow[c.r0], i)
	}
	// line returns the middle of row r's words outside cell skip, when they are two or more
	// filled cells on one line.
	line := func(r, skip int) (float64, bool) {
		var box Rect
		filled := 0
		size := 0.0
		for _, i := range byRow[r] {
			if i == skip || len(cells[i].words) == 0 || cells[i].r1 != r+1 {
				continue
			}
			filled++
			for _, w := range cells[i].words {
				box = box.Union(ws[w].Box)
				size = maxf(size, ws[w].Size)
			}
		}
		if filled < 2 || box.H() > 1.5*size {
			return 0, false
		}
		return (box.Y0 + box.Y1) / 2, true
	}
	empty := emptyCells(cells)
	drop := map[int]bool{}
	for i, c := range cells {
		r := c.r0
		if len(c.words) == 0 || c.r1 != r+1 || r+1 >= nrows || header[r] || header[r+1] {
			continue
		}
		up, ok1 := line(r, i)
		down, ok2 := line(r+1, -1)
		step := up - down
		if !ok1 || !ok2 || step <= 0 {
			continue
		}
		var box Rect
		size := 0.0
		for _, w := range c.words {
			box = box.Union(ws[w].Box)
			size = maxf(size, ws[w].Size)
		}
		m := (box.Y0 + box.Y1) / 2
		if box.H() > 1.5*size || m > up-0.25*step || m < down+0.25*step {
			continue
		}
		spanDown(cells, i, empty, drop)
	}
	return withoutDropped(cells, drop)
}

// groupHeads finds the group labels of a head of two or more levels: a phrase of a head line
// that is one cell over several columns of the line below it. It returns, by the phrase's first
// word, the first and last column it spans. The evidence, strongest first:
//   - a partial rule (booktabs' \cmidrule) between the phrase and the line below, under the
//     phrase, not across the block nor under the line's other phrases: the phrase spans the
//     columns of the labels under the rule;
//   - no rule: a phrase set with word spaces (gaps under half an em), centred (within half
//     an em) over two or more columns that each hold one label on the line below, reaching
//     over two of those labels at least (a word over one label is its first line: "File"
//     over "Number"; unless a column rule crosses the line beside it, as between groups),
//     not sticking out of them by more than an em, with fewer words than
//     those columns.
//
// The line below must be a head line too, and the stub column is never spanned (a date
// centred over figures is not one cell with the row label beside them). Labels set closer
// than a gutter ("Top-1 Top-5 Top-20", a word over each column) have as many words as
// columns and stay separate cells, as do two labels over their own columns ("Sim Loss").
//
// Of several centred spans the widest is taken, bounded by the line's other phrases.
func groupHeads(block []tline, firstBody int, ws []Word, hs []hrule, vs []vrule, wordCols func(int) (int, int), box Rect) map[int][2]int {
	out := map[int][2]int{}
	for k := 0; k+1 < firstBody && k+1 < len(block); k++ {
		l, below := block[k], block[k+1]
		// The labels of the line below, by column; a column with a label spanning into
		// another holds no single label.
		type lab struct {
			x0, x1 float64
			ok     bool
		}
		labs := map[int]*lab{}
		for _, w := range below.words {
			c0, c1 := wordCols(w)
			for c := c0; c <= c1; c++ {
				b := labs[c]
				if b == nil {
					b = &lab{x0: ws[w].Box.X0, x1: ws[w].Box.X1, ok: true}
					labs[c] = b
				}
				b.x0, b.x1 = minf(b.x0, ws[w].Box.X0), maxf(b.x1, ws[w].Box.X1)
				b.ok = b.ok && c0 == c1
			}
		}
		has := func(c int) bool { b := labs[c]; return b != nil && b.ok }
		var cols []int
		for c := range labs {
			if has(c) {
				cols = append(cols, c)
			}
		}
		sort.Ints(cols)
		// The first column is the stub: a group label is over columns of figures.
		if len(cols) > 0 && cols[0] == 0 {
			cols = cols[1:]
		}
		// The line's group labels: their runs of columns, and those of words that reach
		// over one label only (weak), by first word.
		var runs [][2]int
		weaks := map[int][2]int{}
		for pi, p := range l.phrases {
			pw := l.words[p[0]:p[1]]
			size := ws[pw[0]].Size
			px0, px1 := ws[pw[0]].Box.X0, ws[pw[len(pw)-1]].Box.X1
			spaced := true
			for i := 1; i < len(pw); i++ {
				if ws[pw[i]].Box.X0-ws[pw[i-1]].Box.X1 >= 0.5*size {
					spaced = false
				}
			}
			if !spaced || len(cols) < 2 {
				continue
			}
			// Neighbouring phrases of the line bound the span.
			lo, hi := math.Inf(-1), math.Inf(1)
			if pi > 0 {
				lo = ws[l.words[l.phrases[pi-1][1]-1]].Box.X1
			}
			if pi+1 < len(l.phrases) {
				hi = ws[l.words[l.phrases[pi+1][0]]].Box.X0
			}
			// A column rule crossing the line beside the phrase bounds the span too, and marks
			// the phrase as a group's label.
			ruledSide := false
			for _, v := range vs {
				if v.y0 > l.box.Y0+0.2*size || v.y1 < l.box.Y1-0.2*size {
					continue
				}
				if v.x <= px0 && v.x > lo {
					lo, ruledSide = v.x, true
				}
				if v.x >= px1 && v.x < hi {
					hi, ruledSide = v.x, true
				}
			}
			// A partial rule under the phrase.
			ruled := false
			for _, r := range hs {
				if r.y > l.box.Y0+0.3*size || r.y < below.box.Y1-0.3*size || r.x1-r.x0 >= 0.9*box.W() {
					continue
				}
				if pc := (px0 + px1) / 2; pc < r.x0 || pc > r.x1 || r.x1-r.x0 < px1-px0-size {
					continue
				}
				// A rule under the line's other phrases too is no group's own rule.
				if r.x0 < lo-0.5*size || r.x1 > hi+0.5*size {
					continue
				}
				a, b := -1, -1
				for _, c := range cols {
					if m := (labs[c].x0 + labs[c].x1) / 2; m >= r.x0-0.5*size && m <= r.x1+0.5*size {
						if a < 0 {
							a = c
						}
						b = c
					}
				}
				if a >= 0 && b > a {
					out[pw[0]] = [2]int{a, b}
					runs = append(runs, [2]int{a, b})
					ruled = true
					break
				}
			}
			if ruled {
				continue
			}
			pc := (px0 + px1) / 2
			best, weak := [2]int{-1, -1}, [2]int{-1, -1}
			for i, a := range cols {
				for j := i + 1; j < len(cols); j++ {
					b := cols[j]
					if b-a != j-i {
						break // a column without a label inside the span
					}
					x0, x1 := labs[a].x0, labs[b].x1
					if x0 <= lo || x1 >= hi || len(pw) >= b-a+1 {
						continue
					}
					if math.Abs(pc-(x0+x1)/2) > 0.5*size || px0 < x0-size || px1 > x1+size {
						continue
					}
					// Over the labels of two columns at least: a word over one label only
					// ("File" over "Number") is the first line of that column's label.
					over := 0
					for c := a; c <= b; c++ {
						if px0 < labs[c].x1 && px1 > labs[c].x0 {
							over++
						}
					}
					if over < 2 && !ruledSide {
						if weak[0] < 0 || b-a > weak[1]-weak[0] {
							weak = [2]int{a, b}
						}
						continue
					}
					if best[0] < 0 || b-a > best[1]-best[0] {
						best = [2]int{a, b}
					}
				}
			}
			switch {
			case best[0] >= 0:
				out[pw[0]] = best
				runs = append(runs, best)
			case weak[0] >= 0:
				weaks[pw[0]] = weak
			}
		}
		// Words centred over runs of columns but reaching over one label each are group
		// labels when, with the line's other group labels, they cover every labelled column
		// but the stub once: the line partitions the columns into groups ("Dev" and "Test"
		// over three columns each, "Accuracy" over all three). A word over one group of
		// several leaves columns uncovered and is the first line of the label under it.
		if len(weaks) > 0 && tiles(runs, weaks, cols) {
			for w, r := range weaks {
				out[w] = r
			}
		}
	}
	return out
}

// tiles reports whether the runs of columns, strong and weak, cover the columns cols (sorted)
// each exactly once and nothing else.
func tiles(runs [][2]int, weaks map[int][2]int, cols []int) bool {
	all := append([][2]int(nil), runs...)
	for _, r := range weaks {
		all = append(all, r)
	}
	in := map[int]bool{}
	for _, c := range cols {
		in[c] = true
	}
	seen := map[int]bool{}
	for _, r := range all {
		for c := r[0]; c <= r[1]; c++ {
			if !in[c] || seen[c] {
				return false
			}
			seen[c] = true
		}
	}
	return len(seen) == len(cols)
}

// proseColumn returns the first or last column of a block when it is running text, else -1:
// a wide column (at least 15 em) whose lines mostly fill its width (at least 75%, as set,
// justified or ragged text does) with at least 20 characters each, and of whose lines at
// least 30% start in lower case (sentences run on from line to line). A table's column of
// labels starts each entry with a capital or a figure, or ends its entries short of the
// column's edge.
func proseColumn(block []tline, ws []Word, wordCols func(int) (int, int), colLeft, colRight []float64, body float64) int {
	last := len(colLeft) - 1
	for _, c := range []int{0, last} {
		width := colRight[c] - colLeft[c]
		if width < 15*body {
			continue
		}
		lines, full, lower := 0, 0, 0
		for _, l := range block {
			x0, x1 := math.Inf(1), math.Inf(-1)
			chars := 0
			var first rune
			for _, w := range l.words {
				if c0, c1 := wordCols(w); c0 == c && c1 == c {
					if chars == 0 {
						first = []rune(ws[w].Text)[0]
					}
					x0, x1 = minf(x0, ws[w].Box.X0), maxf(x1, ws[w].Box.X1)
					chars += len([]rune(ws[w].Text)) + 1
				}
			}
			if chars == 0 {
				continue
			}
			lines++
			if chars >= 20 && x1-x0 >= 0.75*width {
				full++
			}
			if unicode.IsLower(first) {
				lower++
			}
		}
		if lines >= 3 && 2*full >= lines && 10*lower >= 3*lines {
			return c
		}
	}
	return -1
}

// alignedGutter reports whether a narrow open band [a, b] (under gutterEm) separates two
// columns set close together: on at least three of the defining lines the text right before
// it ends at a (within 0.3 em; right-aligned figures) or the text right after it starts at b
// (left-aligned text), on three quarters of the lines with text on that side; and no line
// has a digit group across it ("1 204.5" is one figure with a thousands space).
func alignedGutter(a, b float64, lines []tline, ws []Word, body float64) bool {
	tol := 0.3 * body
	leftHave, leftAt, rightHave, rightAt := 0, 0, 0, 0
	for _, l := range lines {
		li, ri := -1, -1
		for k, w := range l.words {
			bx := ws[w].Box
			if bx.X1 <= a+0.01 && (li < 0 || bx.X1 > ws[l.words[li]].Box.X1) {
				li = k
			}
			if bx.X0 >= b-0.01 && (ri < 0 || bx.X0 < ws[l.words[ri]].Box.X0) {
				ri = k
			}
		}
		if li >= 0 {
			leftHave++
			if a-ws[l.words[li]].Box.X1 <= tol {
				leftAt++
			}
		}
		if ri >= 0 {
			rightHave++
			if ws[l.words[ri]].Box.X0-b <= tol {
				rightAt++
			}
		}
		if li >= 0 && ri >= 0 && digitGroup(ws[l.words[li]].Text, ws[l.words[ri]].Text) && ws[l.words[ri]].Box.X0-ws[l.words[li]].Box.X1 < gutterEm*body {
			return false
		}
	}
	return (leftAt >= 3 && 4*leftAt >= 3*leftHave) || (rightAt >= 3 && 4*rightAt >= 3*rightHave)
}

// digitGroup reports whether two words read as one figure written with a thousands space:
// one to three digits (with a sign or currency before), then exactly three digits with
// optional decimals or a percent sign.
func digitGroup(left, right string) bool {
	l := strings.TrimLeft(left, "-+−(€$£")
	if n := len(l); n == 0 || n > 3 || strings.TrimFunc(l, unicode.IsDigit) != "" {
		return false
	}
	r := strings.TrimRight(right, "%)")
	if k := strings.IndexAny(r, ".,"); k >= 0 {
		if strings.TrimFunc(r[k+1:], unicode.IsDigit) != "" {
			return false
		}
		r = r[:k]
	}
	return len(r) == 3 && strings.TrimFunc(r, unicode.IsDigit) == ""
}

// composite joins lines that overlap vertically by more than a fifth of their height into
// one: a figure set between the two lines of a wrapped label belongs with both.
func composite(block []tline, ws []Word) []tline {
	var out []tline
	// multi is the last line with two or more phrases joined into out's last line: two rows
	// of as many cells (three or more, or two beside a label left of both) that do not
	// overlap each other stay apart even when a label set between them (a row label centred
	// on its two rows) overlaps both. Lines of
	// displayed mathematics (sub- and superscripts, stacked pieces) stay one line.
	var multi *tline
	for k, l := range block {
		if n := len(out); n > 0 && out[n-1].box.Y0-l.box.Y1 < -0.2*l.size {
			if multi != nil && len(multi.phrases) == len(l.phrases) && multi.box.Y0-l.box.Y1 >= -0.2*l.size &&
				(len(l.phrases) >= 3 || (len(l.phrases) == 2 && labelLeft(out[n-1], *multi, l, ws))) {
				out = append(out, l)
				multi = &block[k]
				continue
			}
			c := &out[n-1]
			if len(l.phrases) >= 2 {
				if multi == nil {
					c.core = l.box
				} else {
					c.core = c.core.Union(l.box)
				}
				multi = &block[k]
			}
			c.words = append(append([]int(nil), c.words...), l.words...)
			sort.Slice(c.words, func(a, b int) bool { return ws[c.words[a]].Box.X0 < ws[c.words[b]].Box.X0 })
			c.box = c.box.Union(l.box)
			c.size = maxf(c.size, l.size)
			c.phrases = phrasesOf(c.line, ws)
			continue
		}
		out = append(out, l)
		multi = nil
		if len(l.phrases) >= 2 {
			multi = &block[k]
			out[len(out)-1].core = l.box
		}
	}
	return out
}

// labelLeft reports whether the words of the composite line c that are not the row line multi
// (a label set between two rows) all lie left of both rows' text: a row label centred on two
// rows of two cells each. Two rows of two cells overlapping through anything else (a value
// centred beside two wrapped cells) stay one row.
func labelLeft(c, multi, l tline, ws []Word) bool {
	in := map[int]bool{}
	for _, w := range multi.words {
		in[w] = true
	}
	left := minf(ws[multi.words[0]].Box.X0, ws[l.words[0]].Box.X0)
	label := false
	for _, w := range c.words {
		if in[w] {
			continue
		}
		if ws[w].Box.X1 >= left {
			return false
		}
		label = true
	}
	return label
}

// wrappedLabel reports whether line l ends a label that wrapped: the row so far is text in
// the first column only, its last line pl fills that column (85% of its width: the text
// wrapped because it was full, where a section label is short), and l goes on in the first
// column, with the row's other cells (figures set on the label's last line) beside it.
func wrappedLabel(pl tline, rowLines []int, block []tline, l tline, ws []Word, wordCols func(int) (int, int), colLeft, colRight []float64) bool {
	for _, k := range rowLines {
		for _, w := range block[k].words {
			if c0, _ := wordCols(w); c0 != 0 {
				return false
			}
		}
	}
	if c0, _ := wordCols(l.words[0]); c0 != 0 {
		return false
	}
	reach := math.Inf(-1)
	for _, w := range pl.words {
		reach = maxf(reach, ws[w].Box.X1)
	}
	return reach >= colLeft[0]+0.85*(colRight[0]-colLeft[0])
}

// continuesRow reports whether line l carries on the cells of a row: its first column is
// empty, each of its words lies under a column the row already fills, and it is not a line of
// figures (figures under figures are a new row, whose label cell is merged above it).
func continuesRow(l tline, rowLines []int, block []tline, ws []Word, wordCols func(int) (int, int), colLeft, colRight []float64) bool {
	filled := map[int]bool{}
	for _, k := range rowLines {
		for _, w := range block[k].words {
			c0, c1 := wordCols(w)
			for c := c0; c <= c1; c++ {
				filled[c] = true
			}
		}
	}
	// The row's last line must reach across most of each column the line continues: text
	// wraps because it is full; a short entry followed by another is a new row.
	last := block[rowLines[len(rowLines)-1]]
	reach := map[int]float64{}
	for _, w := range last.words {
		_, c1 := wordCols(w)
		reach[c1] = maxf(reach[c1], ws[w].Box.X1)
	}
	text := false
	for _, w := range l.words {
		c0, c1 := wordCols(w)
		if c0 == 0 {
			return false
		}
		if r, ok := reach[c1]; !ok || r < colLeft[c0]+0.6*(colRight[c1]-colLeft[c0]) {
			return false
		}
		for c := c0; c <= c1; c++ {
			if !filled[c] {
				return false
			}
		}
		if !numeric(ws[w].Text) {
			text = true
		}
	}
	return text
}

// sparse reports whether a table holds too little to be one: fewer than 30% of its cells
// filled, or more than 60% of its rows with at most one filled cell (a chart's or a form's
// frame around scattered labels; section label rows in a real table are a minority).
func sparse(t Table) bool {
	per := make([]int, t.Rows)
	filled := 0
	for _, c := range t.Cells {
		if c.Text != "" {
			per[c.Row]++
			filled++
		}
	}
	lone := 0
	for _, n := range per {
		if n <= 1 {
			lone++
		}
	}
	return 10*filled < 3*t.Rows*t.Cols || 10*lone > 6*t.Rows
}

// rulesAcross returns the horizontal rules that run across most of box (within a text line of
// its top and bottom): the rules of a partly ruled table.
func rulesAcross(hs []hrule, box Rect) []hrule {
	var out []hrule
	h := box.H()
	for _, r := range hs {
		if r.y < box.Y0-0.1*h-12 || r.y > box.Y1+0.1*h+12 {
			continue
		}
		ov := minf(r.x1, box.X1) - maxf(r.x0, box.X0)
		if ov >= 0.5*box.W() {
			out = append(out, r)
		}
	}
	return out
}

func ruleBetween(rules []hrule, lo, hi float64) bool {
	// rules are sorted by height (rulesAcross keeps mergeH's order).
	k := sort.Search(len(rules), func(i int) bool { return rules[i].y > lo })
	return k < len(rules) && rules[k].y < hi
}

// currencySign reports whether a word is a currency sign alone.
func currencySign(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n == len(s) && n > 0 && unicode.Is(unicode.Sc, r)
}

// numeric reports whether a word is a figure: digits with the usual separators, signs,
// currency and percent marks, or a dash standing for nil.
func numeric(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune(".,%()+-–−$€£¥*/:' \u00a0\u2009", r):
		default:
			return false
		}
	}
	if digits > 0 {
		return true
	}
	return s == "-" || s == "–" || s == "—"
}

// prose reports whether a table is running text laid out in columns: at least two columns
// whose filled cells hold, on average, sentence-length text.
func prose(t Table) bool {
	words := make([]int, t.Cols)
	filled := make([]int, t.Cols)
	for _, c := range t.Cells {
		if c.Text == "" {
			continue
		}
		words[c.Col] += len(strings.Fields(c.Text))
		filled[c.Col]++
	}
	long := 0
	for k := range words {
		if filled[k] > 0 && float64(words[k])/float64(filled[k]) >= 6 {
			long++
		}
	}
	return long >= 2 && 2*long >= t.Cols
}

// formula reports whether a table is the pieces of a displayed equation: most of its filled
// cells hold a mathematical operator and no digit (a table's signed figures have digits).
func formula(t Table) bool {
	filled, math := 0, 0
	for _, c := range t.Cells {
		if c.Text == "" {
			continue
		}
		filled++
		op, digit := false, false
		for _, r := range c.Text {
			op = op || unicode.Is(unicode.Sm, r)
			digit = digit || unicode.IsDigit(r)
		}
		if op && !digit {
			math++
		}
	}
	return filled > 0 && 2*math >= filled
}

// list reports whether a two-column table is a list: markers (bullets, numbers, letters) in
// its first column and text in its second.
func list(t Table) bool {
	if t.Cols != 2 {
		return false
	}
	markers, first := 0, 0
	for _, c := range t.Cells {
		if c.Col != 0 || c.Text == "" {
			continue
		}
		first++
		if marker(c.Text) {
			markers++
		}
	}
	return first > 0 && 4*markers >= 3*first
}

func marker(s string) bool {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > 4 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	if strings.ContainsRune("•◦▪▫■□●○‣⁃-–—*·>☐☑☒", r) {
		return true
	}
	trim := strings.TrimRight(strings.TrimLeft(s, "("), ".)")
	if trim == "" {
		return false
	}
	if trim != s || unicode.IsDigit(r) {
		for _, c := range trim {
			if !unicode.IsDigit(c) && !unicode.IsLetter(c) {
				return false
			}
		}
		return trim != s
	}
	return false
}
