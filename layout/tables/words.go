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
			out = append(out, w)
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

// inferDirs gives each glyph a direction: the caller's Dir when set or the glyph is upright,
// otherwise the direction in which the run of non-upright glyphs around it advances.
func inferDirs(gs []Glyph) []int {
	dirs := make([]int, len(gs))
	for i, g := range gs {
		dirs[i] = norm(g.Dir)
		if g.Upright || g.Dir != 0 {
			continue
		}
		// Compare with the nearest non-space neighbour that is also not upright.
		d := 0
		for _, j := range []int{i + 1, i - 1} {
			if j < 0 || j >= len(gs) || gs[j].Upright || strings.TrimSpace(gs[j].Text) == "" {
				continue
			}
			dx := (gs[j].Box.X0 + gs[j].Box.X1 - g.Box.X0 - g.Box.X1) / 2
			dy := (gs[j].Box.Y0 + gs[j].Box.Y1 - g.Box.Y0 - g.Box.Y1) / 2
			if j < i {
				dx, dy = -dx, -dy
			}
			switch {
			case math.Abs(dy) > 2*math.Abs(dx) && dy > 0:
				d = 90
			case math.Abs(dy) > 2*math.Abs(dx) && dy < 0:
				d = 270
			case math.Abs(dx) > 2*math.Abs(dy) && dx < 0:
				d = 180
			}
			break
		}
		dirs[i] = d
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
