package scan

import (
	"image"
	"regexp"
	"sort"
	"strings"

	"github.com/quarrydocs/quarry/element"
)

// row is one visual text line across the whole page (Tesseract's lines stop at its block
// boundaries, and table cells are often blocks of their own).
type row struct {
	words []int // indices into the page's words, left to right
	segs  [][]int
	box   image.Rectangle
	h     int // median word height
}

// detectTables finds tables from word-box alignment: runs of at least three lines that break
// into several segments whose gaps line up in columns. Found words are marked used.
func detectTables(words []Word, used []bool) []Region {
	idx := make([]int, 0, len(words))
	for i := range words {
		if !used[i] && !isRule(words[i].Text) {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return cy(words[idx[a]].Box) < cy(words[idx[b]].Box) })
	var rows []*row
	for _, i := range idx {
		b := words[i].Box
		var cur *row
		if len(rows) > 0 {
			cur = rows[len(rows)-1]
		}
		if cur != nil && cy(b) >= cur.box.Min.Y && cy(b) <= cur.box.Max.Y {
			cur.words = append(cur.words, i)
			cur.box = cur.box.Union(b)
			continue
		}
		rows = append(rows, &row{words: []int{i}, box: b})
	}
	for _, r := range rows {
		sort.Slice(r.words, func(a, b int) bool { return words[r.words[a]].Box.Min.X < words[r.words[b]].Box.Min.X })
		hs := make([]int, len(r.words))
		for k, i := range r.words {
			hs[k] = words[i].Box.Dy()
		}
		sort.Ints(hs)
		r.h = max(hs[len(hs)/2], 4)
		gap := max(r.h*6/5, 12)
		seg := []int{r.words[0]}
		for k := 1; k < len(r.words); k++ {
			if words[r.words[k]].Box.Min.X-words[r.words[k-1]].Box.Max.X > gap {
				r.segs = append(r.segs, seg)
				seg = nil
			}
			seg = append(seg, r.words[k])
		}
		r.segs = append(r.segs, seg)
	}
	var out []Region
	for start := 0; start < len(rows); {
		if len(rows[start].segs) < 2 {
			start++
			continue
		}
		end := start + 1 // rows[start:end] is the run
		for end < len(rows) {
			prev, next := rows[end-1], rows[end]
			if next.box.Min.Y-prev.box.Max.Y > 3*max(prev.h, next.h) {
				break
			}
			if len(next.segs) < 2 {
				// One single-segment line (a wrapped cell, a spanning header) may sit inside.
				if end+1 < len(rows) && len(rows[end+1].segs) >= 2 && rows[end+1].box.Min.Y-next.box.Max.Y <= 3*next.h {
					end++
					continue
				}
				break
			}
			end++
		}
		if t, kept, ok := buildTable(words, rows[start:end]); ok {
			for _, r := range kept {
				for _, i := range r.words {
					used[i] = true
				}
			}
			// The ruling Tesseract read as characters belongs to the table too.
			for i := range words {
				if !used[i] && isRule(words[i].Text) && centerIn(words[i].Box, t.Box) {
					used[i] = true
				}
			}
			out = append(out, t)
		}
		start = end
	}
	return out
}

func cy(b image.Rectangle) int { return (b.Min.Y + b.Max.Y) / 2 }

// buildTable turns a run of lines into a table when its gaps form at least two aligned
// columns; prose in two columns (long segments) is not a table.
func buildTable(words []Word, rows []*row) (Region, []*row, bool) {
	tabular, segs, segWords := 0, 0, 0
	box := rows[0].box
	h := 0
	for _, r := range rows {
		box = box.Union(r.box)
		h += r.h
		if len(r.segs) >= 2 {
			tabular++
			segs += len(r.segs)
			for _, s := range r.segs {
				segWords += len(s)
			}
		}
	}
	if tabular < 3 {
		return Region{}, nil, false
	}
	h /= len(rows)
	// Coverage of each x column by segments of tabular rows; a gutter is where (almost) none
	// of them lies, so a cell spanning two columns in one row does not hide the gutter.
	const step = 4
	width := box.Dx()/step + 1
	cover := make([]int, width)
	for _, r := range rows {
		if len(r.segs) < 2 {
			continue
		}
		for _, s := range r.segs {
			b := words[s[0]].Box.Union(words[s[len(s)-1]].Box)
			for x := (b.Min.X - box.Min.X) / step; x <= (b.Max.X-box.Min.X)/step && x < width; x++ {
				cover[x]++
			}
		}
	}
	limit := max(1, tabular/4)
	var cols [][2]int // pixel intervals
	colStart := -1
	gapStart := -1
	minGap := max(h*3/4, 8) / step
	for x := 0; x <= width; x++ {
		covered := x < width && cover[x] > limit
		if covered {
			if colStart < 0 {
				colStart = x
			} else if gapStart >= 0 && x-gapStart >= minGap {
				cols = append(cols, [2]int{colStart, gapStart})
				colStart = x
			}
			gapStart = -1
			continue
		}
		if gapStart < 0 {
			gapStart = x
		}
	}
	if colStart >= 0 {
		end := width
		if gapStart >= 0 {
			end = gapStart
		}
		cols = append(cols, [2]int{colStart, end})
	}
	if len(cols) < 2 {
		return Region{}, nil, false
	}
	if len(cols) == 2 && float64(segWords)/float64(segs) > 4 {
		return Region{}, nil, false
	}
	colOf := func(b image.Rectangle) int {
		x := ((b.Min.X+b.Max.X)/2 - box.Min.X) / step
		best, bestD := 0, 1<<30
		for c, iv := range cols {
			d := 0
			switch {
			case x < iv[0]:
				d = iv[0] - x
			case x > iv[1]:
				d = x - iv[1]
			}
			if d < bestD {
				best, bestD = c, d
			}
		}
		return best
	}
	// Lines at either end that run across a gutter (a caption, a heading, a page header) are
	// not part of the table.
	crosses := func(r *row) bool {
		for _, sg := range r.segs {
			b := words[sg[0]].Box.Union(words[sg[len(sg)-1]].Box)
			if colOf(image.Rect(b.Min.X, 0, b.Min.X, 0)) != colOf(image.Rect(b.Max.X, 0, b.Max.X, 0)) {
				return true
			}
		}
		return false
	}
	for len(rows) > 0 && crosses(rows[0]) {
		rows = rows[1:]
	}
	for len(rows) > 0 && crosses(rows[len(rows)-1]) {
		rows = rows[:len(rows)-1]
	}
	if len(rows) < 3 {
		return Region{}, nil, false
	}
	box = rows[0].box
	var cells [][]element.Cell
	order := len(words)
	for _, r := range rows {
		box = box.Union(r.box)
		texts := make([][]Word, len(cols))
		for _, i := range r.words {
			c := colOf(words[i].Box)
			texts[c] = append(texts[c], words[i])
			order = min(order, words[i].Order)
		}
		line := make([]element.Cell, len(cols))
		for c := range cols {
			line[c] = element.Cell{Text: joinWords(texts[c])}
		}
		cells = append(cells, line)
	}
	// A column of lone marks (bullets, item numbers) beside text is a list, not a table; and
	// what is left must still be short cells, not prose.
	content, contentWords, contentCells := 0, 0, 0
	for c := range cols {
		marks := true
		for _, row := range cells {
			if t := row[c].Text; t != "" && !isMarker(t) {
				marks = false
			}
		}
		if marks {
			continue
		}
		content++
		for _, row := range cells {
			if row[c].Text != "" {
				contentCells++
				contentWords += len(strings.Fields(row[c].Text))
			}
		}
	}
	avg := float64(contentWords) / float64(max(contentCells, 1))
	if content < 2 || (content == 2 && avg > 4) || avg > 7 {
		return Region{}, nil, false
	}
	return Region{Type: element.Table, Text: element.TableText(cells), HTML: element.TableHTML(cells), Box: box, order: order}, rows, true
}

// isRule reports whether a "word" is a table rule Tesseract read as characters.
func isRule(s string) bool {
	return strings.Trim(s, "|[]_—–-=:;!l1I") == "" && strings.ContainsAny(s, "|[]_—–=")
}

var markerRE = regexp.MustCompile(`^(\d{1,3}[.)]?|[a-z][.)]|[eo°«©*•●·\-–])$`)

// isMarker reports whether a cell holds only a list marker: a bullet (or what Tesseract reads
// for one) or an item number.
func isMarker(s string) bool { return markerRE.MatchString(strings.TrimSpace(s)) }
