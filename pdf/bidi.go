package pdf

import (
	"math"
	"sort"

	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
)

// Right-to-left text. PDF writers draw Hebrew and Arabic either in visual order (glyphs left
// to right, so the drawing order is the reverse of the reading order) or in logical order
// moving leftwards; pdfminer keeps the drawing order either way, which reads reversed or
// without word spaces. A line holding right-to-left letters is therefore rebuilt: its glyphs
// sorted into visual order, word spaces re-inserted with the same margin rule, and the visual
// sequence put back into logical order with the Unicode bidi algorithm, whose reordering
// (for the embedding levels text lines have, 0–2) is its own inverse. Arabic presentation
// forms become the letters they show (NFKC), as pdftotext does. Lines without right-to-left
// letters are not touched, so left-to-right output stays pdfminer's.

// hasRTL reports whether a line holds a right-to-left letter.
func hasRTL(l *Line) bool {
	for _, it := range l.Items {
		t := it.Text
		// Code points from U+0590 on start with a byte of 0xD6 or more: most lines are
		// settled by this byte test alone.
		for i := 0; i < len(t); i++ {
			if t[i] >= 0xD6 {
				for _, r := range t[i:] {
					if isRTL(r) {
						return true
					}
				}
				break
			}
		}
	}
	return false
}

func isRTL(r rune) bool {
	if r < 0x0590 {
		return false
	}
	p, _ := bidi.LookupRune(r)
	c := p.Class()
	return c == bidi.R || c == bidi.AL
}

// logicalOrder rebuilds a right-to-left line in place (see above).
func logicalOrder(l *Line, glyphs []Glyph, p LAParams) {
	var gs []LineItem
	for _, it := range l.Items {
		if it.Glyph >= 0 {
			gs = append(gs, it)
		}
	}
	sort.SliceStable(gs, func(a, b int) bool { return glyphs[gs[a].Glyph].X0 < glyphs[gs[b].Glyph].X0 })
	visual := make([]LineItem, 0, len(gs)+len(gs)/4)
	for i, it := range gs {
		if i > 0 && p.WordMargin != 0 {
			a, b := &glyphs[gs[i-1].Glyph], &glyphs[it.Glyph]
			if a.X1 < b.X0-p.WordMargin*math.Max(b.width(), b.height()) {
				visual = append(visual, LineItem{Text: " ", Glyph: -1})
			}
		}
		if hasPresentationForm(it.Text) {
			it.Text = norm.NFKC.String(it.Text)
		}
		visual = append(visual, it)
	}
	// One representative rune per item (its first strong one) so that a multi-rune item, a
	// ligature or "(cid:N)", moves as a unit. A leading mark fixes the paragraph direction:
	// right to left when such letters are at least as many as left-to-right ones.
	rtl, ltr := 0, 0
	reps := make([]rune, 1, len(visual)+1)
	for _, it := range visual {
		rep := ' '
		for i, r := range it.Text {
			if i == 0 {
				rep = r
			}
			if pr, _ := bidi.LookupRune(r); pr.Class() == bidi.L || pr.Class() == bidi.R || pr.Class() == bidi.AL {
				rep = r
				break
			}
		}
		switch pr, _ := bidi.LookupRune(rep); pr.Class() {
		case bidi.L:
			ltr++
		case bidi.R, bidi.AL:
			rtl++
		}
		reps = append(reps, rep)
	}
	paraRTL := rtl >= ltr
	reps[0] = '\u200E' // LRM
	if paraRTL {
		reps[0] = '\u200F' // RLM
	}
	var para bidi.Paragraph
	if _, err := para.SetString(string(reps)); err != nil {
		l.Items = visual
		return
	}
	o, err := para.Order()
	if err != nil {
		l.Items = visual
		return
	}
	type span struct {
		start, end int // item indices, inclusive
		rtl        bool
	}
	var runs []span
	for i := range o.NumRuns() {
		r := o.Run(i)
		s, e := r.Pos()
		s, e = max(s-1, 0), e-1 // drop the leading mark
		if e < s {
			continue
		}
		runs = append(runs, span{s, e, r.Direction() == bidi.RightToLeft})
	}
	if paraRTL {
		for i, j := 0, len(runs)-1; i < j; i, j = i+1, j-1 {
			runs[i], runs[j] = runs[j], runs[i]
		}
	}
	out := make([]LineItem, 0, len(visual))
	for _, r := range runs {
		if r.rtl {
			for k := r.end; k >= r.start; k-- {
				out = append(out, visual[k])
			}
		} else {
			out = append(out, visual[r.start:r.end+1]...)
		}
	}
	if len(out) == len(visual) {
		l.Items = out
	} else {
		l.Items = visual
	}
}

func hasPresentationForm(s string) bool {
	for _, r := range s {
		if (r >= 0xFB1D && r <= 0xFDFF) || (r >= 0xFE70 && r <= 0xFEFF) {
			return true
		}
	}
	return false
}
