package layout

import (
	"math"
	"strings"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/layout/tables"
)

// A display formula comes out of pdfminer in pieces: its numerator, denominator, sub- and
// superscripts, operators and equation number are lines of their own at staggered heights,
// so blocks of one or two pieces each lay between the paragraph before it and the one after,
// typed as text fragments. A layout model labels the formula one region (`Formula`, as the
// reference's hi_res model does). formulas gathers them. A block is a formula's (a seed)
// when it has two mathematical glyphs or more (a math font's or mathematical characters,
// counted per line in flowLines), as many as letters of a text font or more, and those
// letters are at most a quarter of its glyphs (an operator's name, "log", "sim"; not a
// sentence with symbols in it), in at most six lines. Pieces
// next to a seed join it: other seeds and short fragments (up to four words, three text
// letters: "= −log", ".", "i ) +") within half a body size of it down and a body size across, and an equation number,
// "(2)", right of the rows it is level with, within 30 body sizes. The whole is one region of type Formula, its text read
// row by row; a seed left alone is one only when all its glyphs are mathematics (a formula
// set on its own line); the whole holds four mathematical glyphs or more and, as a seed,
// no more text letters than those. A formula is displayed, on rows of its own: when text (a block of
// four text letters or more) lies level with it within a body size (a word space or so: pdfminer cuts a line at a gap of about an em), it is set inline and
// its blocks stay as they were (pdfminer's pieces of a line that an inline formula cut).
// Pieces hold mathematics or are punctuation: a page number is none.

// formulaShare is the share of a block's mathematical glyphs and text letters that must be
// mathematics, formulaLetters
// the most of them that may be a text font's letters.
const (
	formulaShare   = 0.5
	formulaLetters = 0.25
	// formulaMinMath is the fewest mathematical glyphs of a formula: a symbol or two alone
	// ("Ui", "7!") is a piece of an inline formula whose text lies further off.
	formulaMinMath = 4
)

func formulas(bs []region, body float64) []region {
	counts := func(r *region) (n, m, letters int) {
		for _, l := range r.lines {
			n, m, letters = n+l.glyphs, m+l.math, letters+l.letters
		}
		return n, m, letters
	}
	isMath := func(r *region) bool {
		n, m, letters := counts(r)
		return m >= 2 && float64(m) >= formulaShare*float64(m+letters) && float64(letters) <= formulaLetters*float64(n) &&
			!r.lines[0].turned && len(r.lines) <= 6
	}
	piece := func(r *region) bool {
		_, m, letters := counts(r)
		return len(r.lines) <= 2 && len(strings.Fields(r.text)) <= 4 && letters <= 3 && !r.lines[0].turned &&
			(m > 0 || strings.Trim(r.text, ".,;: ") == "")
	}
	// prose reports a block of text (four letters of a text font or more) level with box f
	// and beside it in its column: the formula is set inline, in that text's lines.
	prose := func(r *region, f box) bool {
		_, _, letters := counts(r)
		vo := math.Min(r.b.y1, f.y1) - math.Max(r.b.y0, f.y0)
		hgap := math.Max(r.b.x0-f.x1, f.x0-r.b.x1)
		return letters >= 4 && vo > 0.3*math.Min(r.b.h(), f.h()) && hgap < body
	}
	seed := make([]bool, len(bs))
	any := false
	for i := range bs {
		seed[i] = isMath(&bs[i])
		any = any || seed[i]
	}
	if !any {
		return bs
	}
	gone := make([]bool, len(bs))
	var out []region
	for i := range bs {
		if !seed[i] || gone[i] {
			continue
		}
		f := bs[i]
		f.lines = append([]tline(nil), f.lines...)
		gone[i] = true
		members := []int{i}
		for grew := true; grew; {
			grew = false
			for j := range bs {
				if gone[j] || !(seed[j] || piece(&bs[j]) || tables.EqNumber(bs[j].text)) {
					continue
				}
				o := &bs[j].b
				pad := 0.5 * body
				near := o.y0 < f.b.y1+pad && f.b.y0-pad < o.y1 && o.x0 < f.b.x1+body && f.b.x0-body < o.x1
				number := tables.EqNumber(bs[j].text)
				if (near && !number) || (number && numberOf(f.lines, *o, body)) {
					f.lines = append(f.lines, bs[j].lines...)
					f.b = f.b.union(*o)
					gone[j], grew = true, true
					members = append(members, j)
				}
			}
		}
		n, m, letters := counts(&f)
		keep := (len(f.lines) > len(bs[i].lines) || mathOnly(&f)) && m >= formulaMinMath &&
			float64(m) >= formulaShare*float64(m+letters) && float64(letters) <= formulaLetters*float64(n)
		for j := range bs {
			if keep && !gone[j] && prose(&bs[j], f.b) {
				keep = false
			}
		}
		if !keep {
			// A formula set inline (text level with it in its column), or one block alone
			// that is not wholly mathematics: its blocks are left as they were.
			for _, k := range members {
				gone[k] = false
			}
			continue
		}
		orderRows(f.lines)
		parts := make([]string, len(f.lines))
		for k, l := range f.lines {
			parts[k] = l.text
		}
		f.text, f.typ = strings.Join(parts, " "), element.Formula
		out = append(out, f)
	}
	for i := range bs {
		if !gone[i] {
			out = append(out, bs[i])
		}
	}
	return out
}

// mathOnly reports a block whose every glyph is mathematics: a formula set alone on its line.
func mathOnly(r *region) bool {
	for _, l := range r.lines {
		if l.math < l.glyphs {
			return false
		}
	}
	return true
}

// numberOf reports box o (an equation number) right of the formula lines level with it, and
// within 30 body sizes of them (a short formula centred in a page-wide column).
func numberOf(ls []tline, o box, body float64) bool {
	level := false
	for _, l := range ls {
		if math.Min(l.b.y1, o.y1)-math.Max(l.b.y0, o.y0) <= 0 {
			continue
		}
		if o.x0 <= l.b.x1 || o.x0-l.b.x1 > 30*body {
			return false
		}
		level = true
	}
	return level
}
