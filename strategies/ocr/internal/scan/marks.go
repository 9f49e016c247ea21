package scan

import (
	"image"
	"sort"
)

// markedLines finds lines that each begin after a small mark set apart in the left margin,
// in runs of at least three whose marks line up: the line numbers of a listing, too small or
// faint for Tesseract to read. A layout model sees such lines as list items, one per line,
// whatever their text. (Bullets are not counted: the reference's layout model leaves bulleted
// lines as body text, see hiResType.) It returns the lines with every marked line merged with the
// fragments right of it on the same row, and which of them are marked.
func markedLines(lines []line, img *image.Gray) ([]line, []bool) {
	type cand struct {
		i    int
		mark int // centre x of the mark
		h    int
	}
	var cands []cand
	for i, l := range lines {
		h := lineHeight(l.words)
		if x, numeral, ok := marginMark(img, l, l.box.Min.X-3*h); ok && numeral {
			cands = append(cands, cand{i, x, lineHeight(l.words)})
		}
	}
	sort.Slice(cands, func(a, b int) bool { return lines[cands[a].i].box.Min.Y < lines[cands[b].i].box.Min.Y })
	marked := make([]bool, len(lines))
	found := false
	for s := 0; s < len(cands); {
		e := s + 1
		for e < len(cands) {
			p, c := cands[e-1], cands[e]
			gap := lines[c.i].box.Min.Y - lines[p.i].box.Max.Y
			if abs(c.mark-p.mark) > max(p.h, c.h)/2 || gap > 2*max(p.h, c.h) {
				break
			}
			e++
		}
		if e-s >= 3 {
			for _, c := range cands[s:e] {
				marked[c.i] = true
			}
			found = true
			// Once the column of numbers is established, the lines beside it (down the
			// run and just after it) are numbered too, whatever a tiny numeral's shape came
			// out as, and an indented line's number is looked for at the column.
			top, bottom := lines[cands[s].i].box.Min.Y, lines[cands[e-1].i].box.Max.Y
			mx, h := cands[s].mark, cands[s].h
			order := make([]int, len(lines))
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(a, b int) bool { return lines[order[a]].box.Min.Y < lines[order[b]].box.Min.Y })
			for _, i := range order {
				l := lines[i]
				if marked[i] || l.box.Min.Y <= top || l.box.Min.Y-bottom > 2*h || l.box.Min.X <= mx {
					continue
				}
				if x, _, ok := marginMark(img, l, mx-2*h); ok && abs(x-mx) <= h/2 {
					marked[i] = true
					bottom = max(bottom, l.box.Max.Y)
				}
			}
		}
		s = e
	}
	if !found {
		return lines, marked
	}
	// Tesseract cuts a code line at wide spacing; the pieces right of a marked line on its row
	// are the rest of that item.
	gone := make([]bool, len(lines))
	for i := range lines {
		if !marked[i] {
			continue
		}
		for j := range lines {
			l, o := lines[i], lines[j]
			if j == i || marked[j] || gone[j] || o.box.Min.X <= l.box.Min.X || cy(o.box) < l.box.Min.Y || cy(o.box) > l.box.Max.Y {
				continue
			}
			words := append(append([]Word(nil), l.words...), o.words...)
			sort.SliceStable(words, func(a, b int) bool { return words[a].Box.Min.X < words[b].Box.Min.X })
			lines[i] = line{words: words, text: joinLineTexts(l, o), box: l.box.Union(o.box), extracted: l.extracted && o.extracted}
			gone[j] = true
		}
	}
	var outLines []line
	var outMarked []bool
	for i, l := range lines {
		if !gone[i] {
			outLines = append(outLines, l)
			outMarked = append(outMarked, marked[i])
		}
	}
	return outLines, outMarked
}

// joinLineTexts joins two pieces of one row in left-to-right order.
func joinLineTexts(a, b line) string {
	if b.box.Min.X < a.box.Min.X {
		a, b = b, a
	}
	return a.text + " " + b.text
}

// marginMark reports whether a small mark stands left of a line: all the ink between from and
// the line is one mark no wider than a text height, with at least a text height of blank paper
// before it and some after it.
func marginMark(img *image.Gray, l line, from int) (x int, numeral, ok bool) {
	h := lineHeight(l.words)
	b := img.Bounds()
	x0, x1 := max(from, b.Min.X), l.box.Min.X-2
	y0, y1 := max(l.box.Min.Y, b.Min.Y), min(l.box.Max.Y, b.Max.Y)
	if x1-x0 < 2*h || y1 <= y0 {
		return 0, false, false
	}
	const ink = 200
	first, last := -1, -1
	for x := x0; x < x1; x++ {
		for y := y0; y < y1; y++ {
			if img.Pix[(y-b.Min.Y)*img.Stride+x-b.Min.X] < ink {
				if first < 0 {
					first = x
				}
				last = x
				break
			}
		}
	}
	if first < 0 || first < x0+h || last-first+1 > h || last >= x1-1 {
		return 0, false, false
	}
	// A numeral is taller than it is wide; a bullet is round or square.
	top, bottom := -1, -1
	for y := y0; y < y1; y++ {
		for x := first; x <= last; x++ {
			if img.Pix[(y-b.Min.Y)*img.Stride+x-b.Min.X] < ink {
				if top < 0 {
					top = y
				}
				bottom = y
				break
			}
		}
	}

	return (first + last) / 2, 10*(bottom-top+1) >= 13*(last-first+1), true
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
