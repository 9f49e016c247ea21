package tables

import (
	"math"
	"strings"
	"unicode"
)

// Glyph is one drawn character as a PDF reader yields it, for Words.
type Glyph struct {
	Text string
	Box  Rect
	// Size is the font size in points.
	Size float64
	Bold bool
	// Upright is false for glyphs whose text matrix turns or mirrors them; Words then infers
	// the direction from the neighbouring glyphs when Dir is 0.
	Upright bool
	// Dir is the text direction when the caller knows it (see Word.Dir).
	Dir int
}

// Words groups glyphs, in drawing order, into words: a word ends at a space, at a gap wider
// than a quarter of the font size along the text direction, at a change of baseline,
// direction or weight. A glyph drawn again over the previous one (fake bold) is dropped.
func Words(glyphs []Glyph) []Word {
	dirs := inferDirs(glyphs)
	var out []Word
	var cur strings.Builder
	var w Word
	open := false
	var last Glyph
	flush := func() {
		if open {
			w.Text = cur.String()
			// A word drawn again over itself (fake bold drawn word by word or line by
			// line) is kept once: look back over the last few words.
			dup := false
			for k := len(out) - 1; k >= 0 && k >= len(out)-16; k-- {
				if out[k].Text == w.Text && nearlySame(out[k].Box, w.Box, 0.2*w.Size) {
					dup = true
					break
				}
			}
			if !dup {
				out = append(out, w)
			}
		}
		open = false
		cur.Reset()
	}
	for i, g := range glyphs {
		if badRect(g.Box) {
			flush()
			continue
		}
		text := g.Text
		if strings.TrimFunc(text, unicode.IsSpace) == "" {
			flush()
			continue
		}
		dir := dirs[i]
		size := g.Size
		if dir == 90 || dir == 270 {
			size = g.Box.W()
		}
		if size <= 0 {
			size = math.Max(g.Box.H(), g.Box.W())
		}
		if open {
			if last.Text == g.Text && nearlySame(last.Box, g.Box, 0.2*size) {
				continue // fake bold: the same glyph drawn again, slightly offset
			}
			if dir != w.Dir || g.Bold != w.Bold || !continues(w, g.Box, dir, size) {
				flush()
			}
		}
		if !open {
			w = Word{Box: g.Box, Size: size, Bold: g.Bold, Dir: dir}
			open = true
		} else {
			w.Box = w.Box.Union(g.Box)
			w.Size = math.Max(w.Size, size)
		}
		cur.WriteString(text)
		last = g
	}
	flush()
	return out
}

func badRect(r Rect) bool {
	v := r.X0 + r.Y0 + r.X1 + r.Y1
	return math.IsNaN(v) || math.IsInf(v, 0) || r.X1 < r.X0 || r.Y1 < r.Y0
}

func nearlySame(a, b Rect, tol float64) bool {
	return math.Abs(a.X0-b.X0) <= tol && math.Abs(a.X1-b.X1) <= tol && math.Abs(a.Y0-b.Y0) <= tol && math.Abs(a.Y1-b.Y1) <= tol
}

// continues reports whether a glyph box extends word w: on the same baseline (in the text's
// direction) and after it with at most a small gap.
func continues(w Word, b Rect, dir int, size float64) bool {
	gap := 0.25 * size
	switch dir {
	case 90: // reads bottom to top
		return math.Abs(b.X0-w.Box.X0) < 0.4*size && b.Y0 >= w.Box.Y1-0.5*size && b.Y0-w.Box.Y1 <= gap
	case 270:
		return math.Abs(b.X1-w.Box.X1) < 0.4*size && b.Y1 <= w.Box.Y0+0.5*size && w.Box.Y0-b.Y1 <= gap
	case 180:
		return math.Abs(b.Y1-w.Box.Y1) < 0.4*size && b.X1 <= w.Box.X0+0.5*size && w.Box.X0-b.X1 <= gap
	}
	return math.Abs(b.Y0-w.Box.Y0) < 0.4*size && b.X0 >= w.Box.X1-0.5*size && b.X0-w.Box.X1 <= gap
}

// inferDirs gives each glyph a direction: the caller's Dir when set, otherwise the direction
// towards its next (or else previous) non-space neighbour in drawing order when that
// neighbour is close (within twice the glyph's larger side), so the last glyph of a word
// takes its direction from the glyph before it, not from the next word somewhere else. A
// glyph with no close neighbour takes the most common direction of the page's glyphs (of its
// turned glyphs when its reader says it is not upright). Upright alone cannot tell: a reader
// calls a glyph upright when its matrix is not skewed, upside-down text included.
func inferDirs(gs []Glyph) []int {
	dirs := make([]int, len(gs))
	var turned, all [4]int
	for i, g := range gs {
		if g.Dir != 0 {
			dirs[i] = norm(g.Dir)
			continue
		}
		dirs[i] = -1
		reach := 2 * math.Max(g.Box.W(), g.Box.H())
		for _, j := range []int{i + 1, i - 1} {
			if j < 0 || j >= len(gs) || strings.TrimSpace(gs[j].Text) == "" {
				continue
			}
			dx := (gs[j].Box.X0 + gs[j].Box.X1 - g.Box.X0 - g.Box.X1) / 2
			dy := (gs[j].Box.Y0 + gs[j].Box.Y1 - g.Box.Y0 - g.Box.Y1) / 2
			if math.Hypot(dx, dy) > reach || (dx == 0 && dy == 0) {
				continue
			}
			if j < i {
				dx, dy = -dx, -dy
			}
			switch {
			case math.Abs(dy) > 2*math.Abs(dx) && dy > 0:
				dirs[i] = 90
			case math.Abs(dy) > 2*math.Abs(dx) && dy < 0:
				dirs[i] = 270
			case math.Abs(dx) > 2*math.Abs(dy) && dx < 0:
				dirs[i] = 180
			case math.Abs(dx) > 2*math.Abs(dy):
				dirs[i] = 0
			}
			if dirs[i] >= 0 {
				break
			}
		}
		if dirs[i] >= 0 {
			all[dirs[i]/90]++
			if !g.Upright {
				turned[dirs[i]/90]++
			}
		}
	}
	mostOf := func(n [4]int) int {
		best := 0
		for k := range n {
			if n[k] > n[best] {
				best = k
			}
		}
		return 90 * best
	}
	for i, g := range gs {
		if dirs[i] < 0 {
			dirs[i] = mostOf(all)
			if !g.Upright {
				dirs[i] = mostOf(turned)
			}
		}
	}
	return dirs
}

func norm(d int) int {
	d = ((d % 360) + 360) % 360
	switch {
	case d >= 45 && d < 135:
		return 90
	case d >= 135 && d < 225:
		return 180
	case d >= 225 && d < 315:
		return 270
	}
	return 0
}
