package scan

import (
	"context"
	"fmt"
	"image"
	"slices"
	"sort"
	"strings"

	"github.com/quarrydocs/quarry/element"
)

// RuledTable is a table whose cells are drawn. Its cells are read one by one, as the
// reference's table-structure step OCRs each detected cell: Tesseract's full-page segmentation
// reads a grid poorly (cells merged across rules, text on a tinted header misread), while a
// single cell is one uniform block.
type RuledTable struct {
	frame image.Rectangle
	cells []ruledCell
	rows  int
	cols  int
}

// ruledCell is one drawn cell: its pixel box and its place in the grid, rows [r0, r1) and
// columns [c0, c1).
type ruledCell struct {
	box            image.Rectangle
	r0, r1, c0, c1 int
	words          []Word
}

// wallRadius widens ruling so that anti-aliased edges and hairline breaks still close a cell.
const wallRadius = 2

// findRuledTable returns the drawn grid around a table found by word alignment: the ruling
// that touches the table (with a margin of textH, so a header row above the aligned rows is
// found too), and the areas that ruling encloses. ok is false when the ruling does not make a
// grid of at least two rows and two columns that covers the table.
func findRuledTable(mask *RuleMask, box image.Rectangle, textH int) (RuledTable, bool) {
	if mask == nil {
		return RuledTable{}, false
	}
	bounds := image.Rect(0, 0, mask.w, mask.h)
	window := box.Inset(-textH).Intersect(bounds)
	frame, ok := ruleFrame(mask, window)
	if !ok || frame.Intersect(box).Empty() {
		return RuledTable{}, false
	}
	// The aligned rows must mostly sit inside the drawn frame: ruling elsewhere (a rule under
	// a heading) is not this table's.
	in := frame.Intersect(box)
	if 2*in.Dx()*in.Dy() < box.Dx()*box.Dy() {
		return RuledTable{}, false
	}
	boxes := enclosedAreas(mask, frame, textH)
	return gridFrom(frame, boxes, textH)
}

// ruleFrame is the bounding box of the ruling connected to the rule pixels inside window.
func ruleFrame(mask *RuleMask, window image.Rectangle) (image.Rectangle, bool) {
	seen := newBitset(mask.w * mask.h)
	var frame image.Rectangle
	found := false
	var stack []int
	for y := window.Min.Y; y < window.Max.Y; y++ {
		for x := window.Min.X; x < window.Max.X; x++ {
			p := y*mask.w + x
			if !mask.on.has(p) || seen.has(p) {
				continue
			}
			seen.set(p)
			stack = append(stack[:0], p)
			for len(stack) > 0 {
				q := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				qx, qy := q%mask.w, q/mask.w
				pt := image.Rect(qx, qy, qx+1, qy+1)
				if !found {
					frame, found = pt, true
				} else {
					frame = frame.Union(pt)
				}
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						nx, ny := qx+dx, qy+dy
						if nx < 0 || ny < 0 || nx >= mask.w || ny >= mask.h {
							continue
						}
						if n := ny*mask.w + nx; mask.on.has(n) && !seen.has(n) {
							seen.set(n)
							stack = append(stack, n)
						}
					}
				}
			}
		}
	}
	return frame, found
}

// enclosedAreas labels the areas inside frame that the (widened) ruling separates and returns
// the boxes of those big enough to hold text.
func enclosedAreas(mask *RuleMask, frame image.Rectangle, textH int) []image.Rectangle {
	fw, fh := frame.Dx(), frame.Dy()
	// Widen the ruling by wallRadius: a separable maximum, rows then columns.
	tmp := newBitset(fw * fh)
	for y := range fh {
		for x := range fw {
			for k := max(x-wallRadius, 0); k <= min(x+wallRadius, fw-1); k++ {
				if mask.at(frame.Min.X+k, frame.Min.Y+y) {
					tmp.set(y*fw + x)
					break
				}
			}
		}
	}
	wall := newBitset(fw * fh)
	for y := range fh {
		for x := range fw {
			for k := max(y-wallRadius, 0); k <= min(y+wallRadius, fh-1); k++ {
				if tmp.has(k*fw + x) {
					wall.set(y*fw + x)
					break
				}
			}
		}
	}
	var out []image.Rectangle
	var stack []int
	for start := range fw * fh {
		if wall.has(start) {
			continue
		}
		wall.set(start) // visited
		stack = append(stack[:0], start)
		r := image.Rect(start%fw, start/fw, start%fw+1, start/fw+1)
		for len(stack) > 0 {
			q := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			qx, qy := q%fw, q/fw
			r = r.Union(image.Rect(qx, qy, qx+1, qy+1))
			for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				nx, ny := qx+d[0], qy+d[1]
				if nx < 0 || ny < 0 || nx >= fw || ny >= fh {
					continue
				}
				if n := ny*fw + nx; !wall.has(n) {
					wall.set(n)
					stack = append(stack, n)
				}
			}
		}
		// Slivers between double rules or beside a frame are not cells.
		if r.Dx() >= textH && r.Dy() >= textH {
			out = append(out, r.Add(frame.Min))
		}
	}
	return out
}

// gridFrom places enclosed areas on a grid: their edges, clustered, are the column and row
// boundaries, and an area spanning several boundaries spans that many columns or rows.
func gridFrom(frame image.Rectangle, boxes []image.Rectangle, textH int) (RuledTable, bool) {
	if len(boxes) < 4 {
		return RuledTable{}, false
	}
	// Neighbouring areas' edges are a widened rule apart; distinct boundaries are at least a
	// cell (textH) apart.
	tol := max(2*wallRadius+4, textH/2)
	var xs, ys []int
	for _, b := range boxes {
		xs = append(xs, b.Min.X, b.Max.X)
		ys = append(ys, b.Min.Y, b.Max.Y)
	}
	colOf, cols := clusterEdges(xs, tol)
	rowOf, rows := clusterEdges(ys, tol)
	if cols < 2 || rows < 2 {
		return RuledTable{}, false
	}
	t := RuledTable{frame: frame, rows: rows, cols: cols}
	taken := make([]bool, rows*cols)
	covered := 0
	for _, b := range boxes {
		c := ruledCell{box: b, c0: colOf(b.Min.X), c1: colOf(b.Max.X), r0: rowOf(b.Min.Y), r1: rowOf(b.Max.Y)}
		if c.c1 <= c.c0 || c.r1 <= c.r0 {
			return RuledTable{}, false
		}
		for r := c.r0; r < c.r1; r++ {
			for k := c.c0; k < c.c1; k++ {
				if taken[r*cols+k] {
					return RuledTable{}, false // overlapping areas: not a grid
				}
				taken[r*cols+k] = true
				covered++
			}
		}
		t.cells = append(t.cells, c)
	}
	// Most slots must be drawn cells; a frame around prose (a boxed note) has few.
	if 5*covered < 4*rows*cols {
		return RuledTable{}, false
	}
	sort.Slice(t.cells, func(a, b int) bool {
		ca, cb := t.cells[a], t.cells[b]
		if ca.r0 != cb.r0 {
			return ca.r0 < cb.r0
		}
		return ca.c0 < cb.c0
	})
	return t, true
}

// clusterEdges groups coordinates closer than tol and returns the group of a coordinate and
// the number of intervals between groups.
func clusterEdges(vs []int, tol int) (func(int) int, int) {
	sorted := append([]int(nil), vs...)
	sort.Ints(sorted)
	var starts []int // first value of each group
	for i, v := range sorted {
		if i == 0 || v-sorted[i-1] > tol {
			starts = append(starts, v)
		}
	}
	groupOf := func(v int) int {
		return sort.Search(len(starts), func(i int) bool { return starts[i] > v }) - 1
	}
	return groupOf, len(starts) - 1
}

// readCells OCRs every cell of t on the cleaned page image with read, which returns words in
// the crop's pixels.
func (t *RuledTable) readCells(clean *image.Gray, read func(*image.Gray) ([]Word, error)) error {
	for i := range t.cells {
		c := &t.cells[i]
		crop := c.box.Intersect(clean.Bounds())
		if crop.Empty() || !hasInk(clean, crop) {
			continue
		}
		// A margin in the cell's own background tone (Tesseract finds no text touching the
		// image edge, and a white margin round a tinted cell would binarise as a dark frame).
		pad := max(8, crop.Dy()/4)
		sub := image.NewGray(image.Rect(0, 0, crop.Dx()+2*pad, crop.Dy()+2*pad))
		bg := background(clean, crop)
		for k := range sub.Pix {
			sub.Pix[k] = bg
		}
		for y := crop.Min.Y; y < crop.Max.Y; y++ {
			copy(sub.Pix[(y-crop.Min.Y+pad)*sub.Stride+pad:], clean.Pix[y*clean.Stride+crop.Min.X:y*clean.Stride+crop.Max.X])
		}
		words, err := read(sub)
		if err != nil {
			return err
		}
		for _, w := range words {
			w.Box = w.Box.Add(crop.Min.Sub(image.Pt(pad, pad))).Intersect(crop)
			if !isRule(w.Text) && !w.Box.Empty() {
				c.words = append(c.words, w)
			}
		}
	}
	return nil
}

// background is the most common grey level of a box.
func background(img *image.Gray, r image.Rectangle) uint8 {
	var hist [256]int
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for _, v := range img.Pix[y*img.Stride+r.Min.X : y*img.Stride+r.Max.X] {
			hist[v]++
		}
	}
	best := 255
	for v := range hist {
		if hist[v] > hist[best] {
			best = v
		}
	}
	return uint8(best)
}

// hasInk reports whether a box holds any dark pixel.
func hasInk(img *image.Gray, r image.Rectangle) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for _, v := range img.Pix[y*img.Stride+r.Min.X : y*img.Stride+r.Max.X] {
			if v < 128 {
				return true
			}
		}
	}
	return false
}

// region is the table's element: HTML from the grid (a cell covered by a span from above or
// the left is not written), text as the words read line by line across the table, which is how
// the reference fills a table region with the OCR words inside it.
func (t *RuledTable) region(order int) Region {
	rows := make([][]element.Cell, t.rows)
	var all []Word
	for _, c := range t.cells {
		rows[c.r0] = append(rows[c.r0], element.Cell{Text: joinWords(c.words), ColSpan: c.c1 - c.c0, RowSpan: c.r1 - c.r0})
		all = append(all, c.words...)
	}
	var kept [][]element.Cell
	for _, r := range rows {
		if len(r) > 0 {
			kept = append(kept, r)
		}
	}
	return Region{Type: element.Table, Text: lineOrderText(all), HTML: element.TableHTML(kept), Box: t.frame, order: order}
}

// lineOrderText joins words by visual line, top to bottom, each line left to right. A line
// starts at its highest word; a word belongs to it when its vertical centre is within half that
// word's height of the first one's (a union of extents would chain staggered cells of a
// multi-line header into one line).
func lineOrderText(ws []Word) string {
	ws = append([]Word(nil), ws...)
	sort.SliceStable(ws, func(a, b int) bool { return cy(ws[a].Box) < cy(ws[b].Box) })
	var parts []string
	for i := 0; i < len(ws); {
		seed := ws[i].Box
		j := i + 1
		for j < len(ws) && 2*(cy(ws[j].Box)-cy(seed)) <= seed.Dy() {
			j++
		}
		line := ws[i:j]
		sort.SliceStable(line, func(a, b int) bool { return line[a].Box.Min.X < line[b].Box.Min.X })
		parts = append(parts, joinWords(line))
		i = j
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// FindRuledTables looks for drawn grids around the tables that word alignment finds and reads
// their cells with read.
func FindRuledTables(ctx context.Context, words []Word, clean *image.Gray, mask *RuleMask, read func(*image.Gray) ([]Word, error)) ([]RuledTable, error) {
	var out []RuledTable
	for _, cand := range detectTables(words, make([]bool, len(words))) {
		var hs []int
		for _, w := range words {
			if centerIn(w.Box, cand.Box) {
				hs = append(hs, w.Box.Dy())
			}
		}
		if len(hs) == 0 {
			continue
		}
		sort.Ints(hs)
		rt, ok := findRuledTable(mask, cand.Box, max(hs[len(hs)/2], 4))
		if !ok || slices.ContainsFunc(out, func(o RuledTable) bool { return o.frame.Overlaps(rt.frame) }) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := rt.readCells(clean, read); err != nil {
			return nil, fmt.Errorf("ocr: table cells: %w", err)
		}
		out = append(out, rt)
	}
	return out, nil
}
