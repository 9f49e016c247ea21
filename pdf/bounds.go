package pdf

import "math"

// Glyphs placed by a broken text or graphics matrix (a CTM of 1e5, a Tm left over from another
// page, a font matrix of garbage) land far outside the page with boxes of tens of thousands of
// points, which layout then types as headers and footers. Like pdftotext, a glyph whose box
// lies wholly outside the page, whose box is taller than the page, or whose coordinates are not
// finite is dropped; unlike pdftotext a margin of a tenth of the page is tolerated so that
// bleed and slightly mispositioned text is kept, as pdfminer keeps it.

// glyphInPage reports whether g is placed sanely on a w×h page.
func glyphInPage(g *Glyph, w, h float64) bool {
	mx, my := 0.1*w, 0.1*h
	switch {
	case math.IsNaN(g.X0 + g.Y0 + g.X1 + g.Y1), math.IsInf(g.X0+g.Y0+g.X1+g.Y1, 0):
		return false
	case g.X1 < -mx || g.X0 > w+mx || g.Y1 < -my || g.Y0 > h+my:
		return false
	case g.Y1-g.Y0 > h+2*my || g.X1-g.X0 > w+2*mx:
		return false
	}
	return true
}

// boundGlyphs drops the glyphs of p that glyphInPage refuses, in page-level glyphs (keeping
// ActualText spans on the glyphs they covered) and in figures, and reports how many it dropped.
func boundGlyphs(p *Page) int {
	w, h := p.Width, p.Height
	if w <= 0 || h <= 0 {
		return 0
	}
	dropped := 0
	for _, g := range p.Glyphs {
		if !glyphInPage(&g, w, h) {
			dropped++
		}
	}
	if dropped > 0 {
		// newIndex[i] is the number of glyphs kept before i.
		newIndex := make([]int, len(p.Glyphs)+1)
		kept := p.Glyphs[:0]
		for i := range p.Glyphs {
			newIndex[i] = len(kept)
			if glyphInPage(&p.Glyphs[i], w, h) {
				kept = append(kept, p.Glyphs[i])
			}
		}
		newIndex[len(p.Glyphs)] = len(kept)
		for i := range p.ActualTexts {
			a := &p.ActualTexts[i]
			a.Start = newIndex[min(max(a.Start, 0), len(newIndex)-1)]
			a.End = newIndex[min(max(a.End, 0), len(newIndex)-1)]
		}
		p.Glyphs = kept
	}
	for fi := range p.Figures {
		f := &p.Figures[fi]
		items := f.Items[:0]
		for _, it := range f.Items {
			if it.Glyph != nil && !glyphInPage(it.Glyph, w, h) {
				dropped++
				continue
			}
			items = append(items, it)
		}
		f.Items = items
	}
	return dropped
}
