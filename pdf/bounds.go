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
		boundFigure(f, w, h)
	}
	return dropped
}

// boundFigure replaces the box of a figure that reaches beyond the page (a form XObject's
// /BBox of ±32768 is common: "draw anywhere") by the union of its glyphs' boxes, cut to the
// page; a figure inside the page keeps pdfminer's box.
func boundFigure(f *Figure, w, h float64) {
	mx, my := 0.1*w, 0.1*h
	if f.X0 >= -mx && f.Y0 >= -my && f.X1 <= w+mx && f.Y1 <= h+my {
		return
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, it := range f.Items {
		if g := it.Glyph; g != nil {
			x0, y0, x1, y1 = math.Min(x0, g.X0), math.Min(y0, g.Y0), math.Max(x1, g.X1), math.Max(y1, g.Y1)
		}
	}
	if x0 > x1 { // no glyphs: the page is the best bound there is
		x0, y0, x1, y1 = f.X0, f.Y0, f.X1, f.Y1
	}
	f.X0, f.Y0 = math.Max(x0, 0), math.Max(y0, 0)
	f.X1, f.Y1 = math.Min(x1, w), math.Min(y1, h)
	if f.X1 < f.X0 {
		f.X0, f.X1 = 0, w
	}
	if f.Y1 < f.Y0 {
		f.Y0, f.Y1 = 0, h
	}
}
