package tables

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
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
	// Math is set for a glyph of a math font (MathFont): displayed equations, which TeX sets
	// as aligned columns of short pieces, are told from tables by it.
	Math bool
}

// Words groups glyphs, in drawing order, into words: a word ends at a space, at a change of
// baseline, direction or weight, and at a gap along the text direction wider than a tenth of
// the font size over the letter spacing of its run (pdfminer's word margin and pdftotext's
// word break are a tenth of the size too). Producers that draw no space glyphs leave a gap of
// about a quarter em between words, so a looser gap joins them ("StartDate"). A run is a
// stretch of glyphs on one baseline with no gap over a quarter em; its letter spacing is
// the lower quartile of its gaps (zero for ordinary text), so letter-spaced (tracked or
// distributed) text stays whole while its wider word gaps still split it. Kerning moves a
// glyph by hundredths of an em and stays within the margin. A glyph drawn again over the
// previous one (fake bold) is dropped.
func Words(glyphs []Glyph) []Word {
	dirs := inferDirs(glyphs)
	var out []Word
	emit := func(w Word) {
		// A word drawn again over itself (fake bold drawn word by word or line by line) is
		// kept once: look back over the last few words.
		for k := len(out) - 1; k >= 0 && k >= len(out)-16; k-- {
			if out[k].Text == w.Text && nearlySame(out[k].Box, w.Box, 0.2*w.Size) {
				return
			}
		}
		out = append(out, w)
	}
	var run []runGlyph
	var w Word // the run's extent so far
	open := false
	var last Glyph
	flush := func() {
		if open {
			splitRun(run, w.Bold, w.Dir, emit)
		}
		open = false
		run = run[:0]
	}
	for i, g := range glyphs {
		if badRect(g.Box) {
			flush()
			continue
		}
		if strings.TrimFunc(g.Text, unicode.IsSpace) == "" {
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
			// Fake bold: the same glyph drawn again, slightly offset; under half its advance,
			// so a doubled letter of condensed text ("ii" at 50 % scaling) is not taken for one.
			tol := 0.2 * size
			if adv := advance(g.Box, dir); adv > 0 {
				tol = math.Min(tol, 0.5*adv)
			}
			if last.Text == g.Text && nearlySame(last.Box, g.Box, tol) {
				continue
			}
			if dir != w.Dir || g.Bold != w.Bold || !continues(w, g.Box, dir, size) {
				flush()
			}
		}
		gap := 0.0
		if !open {
			w = Word{Box: g.Box, Size: size, Bold: g.Bold, Dir: dir}
			open = true
		} else {
			gap = gapAfter(w.Box, g.Box, dir)
			w.Box = w.Box.Union(g.Box)
			w.Size = math.Max(w.Size, size)
		}
		run = append(run, runGlyph{text: g.Text, box: g.Box, size: size, gap: gap, math: g.Math})
		last = g
	}
	flush()
	return out
}

// runGlyph is a glyph of a run: its gap is from the run's extent before it, along the text.
type runGlyph struct {
	text string
	box  Rect
	size float64
	gap  float64
	math bool
}

// wordMargin is the gap over the letter spacing, in ems, that ends a word (pdfminer's
// word_margin, pdftotext's minWordBreakSpace).
const wordMargin = 0.1

// splitRun cuts a run (same baseline, direction and weight, no gap over a quarter em) into
// words at the gaps wider than its letter spacing plus the word margin, and emits them.
func splitRun(run []runGlyph, bold bool, dir int, emit func(Word)) {
	if len(run) == 0 {
		return
	}
	gaps := make([]float64, 0, len(run)-1)
	for _, g := range run[1:] {
		gaps = append(gaps, g.gap)
	}
	sort.Float64s(gaps)
	spacing := 0.0
	if len(gaps) >= 3 {
		// The lower quartile: letter spacing is on every glyph, word gaps on a few. A
		// shorter run cannot tell tracking from one-letter words ("a I a"), so the margin
		// alone decides, as in pdfminer.
		spacing = math.Max(gaps[len(gaps)/4], 0)
	}
	var sb strings.Builder
	var w Word
	n, nmath := 0, 0 // the word's glyphs, and those of a math font
	// The advances of the word's letters: the first one, how many, and whether any differs.
	adv, nadv, mixed := 0.0, 0, false
	done := func() {
		w.Text = sb.String()
		w.Math, w.mathGlyphs = 2*nmath > n, nmath
		switch {
		case mixed:
			w.pitch = -1
		case nadv >= 2:
			w.pitch = adv
		}
		emit(w)
		sb.Reset()
		n, nmath = 0, 0
		adv, nadv, mixed = 0, 0, false
	}
	for k, g := range run {
		if k > 0 && g.gap > spacing+wordMargin*math.Max(w.Size, g.size) {
			done()
		}
		if sb.Len() == 0 {
			w = Word{Box: g.box, Size: g.size, Bold: bold, Dir: dir}
		} else {
			w.Box = w.Box.Union(g.box)
			w.Size = math.Max(w.Size, g.size)
		}
		sb.WriteString(g.text)
		n++
		if g.math {
			nmath++
		}
		if r, _ := utf8.DecodeRuneInString(g.text); utf8.RuneCountInString(g.text) == 1 && !unicode.IsDigit(r) {
			a := advance(g.box, dir)
			switch {
			case nadv == 0:
				adv = a
			case math.Abs(a-adv) > 0.02*adv:
				mixed = true
			}
			nadv++
		}
	}
	done()
}

func badRect(r Rect) bool {
	v := r.X0 + r.Y0 + r.X1 + r.Y1
	return math.IsNaN(v) || math.IsInf(v, 0) || r.X1 < r.X0 || r.Y1 < r.Y0
}

func nearlySame(a, b Rect, tol float64) bool {
	return math.Abs(a.X0-b.X0) <= tol && math.Abs(a.X1-b.X1) <= tol && math.Abs(a.Y0-b.Y0) <= tol && math.Abs(a.Y1-b.Y1) <= tol
}

// advance is a glyph box's extent along the text direction.
func advance(b Rect, dir int) float64 {
	if dir == 90 || dir == 270 {
		return b.H()
	}
	return b.W()
}

// gapAfter is the gap from box a to box b along the text direction dir (negative when they
// overlap).
func gapAfter(a, b Rect, dir int) float64 {
	switch dir {
	case 90:
		return b.Y0 - a.Y1
	case 270:
		return a.Y0 - b.Y1
	case 180:
		return a.X0 - b.X1
	}
	return b.X0 - a.X1
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
			d := -1
			switch {
			case math.Abs(dy) > 2*math.Abs(dx) && dy > 0:
				d = 90
			case math.Abs(dy) > 2*math.Abs(dx) && dy < 0:
				d = 270
			case math.Abs(dx) > 2*math.Abs(dy) && dx < 0:
				d = 180
			case math.Abs(dx) > 2*math.Abs(dy):
				d = 0
			}
			// An upright glyph read along its line on either side is upright: the last
			// glyph of a line of code has the next line's first glyph right under it.
			if d == 0 && g.Upright {
				dirs[i] = 0
				break
			}
			if dirs[i] < 0 {
				dirs[i] = d
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
