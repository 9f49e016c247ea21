package layout

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarrydocs/quarry/pdf"
)

// Usable reports whether a page's text layer can be laid out instead of OCRed, and if not,
// why (for a debug log): a page needs OCR when it has no visible text (a scan, or a scan under
// an invisible OCR layer, which OCR reads again as the reference does), or when its text is
// mostly garbage — glyphs without a Unicode mapping ("(cid:NN)", U+FFFD, empty), private-use
// characters, control characters — which a font without a ToUnicode map produces —, or when
// glyphs it draws yield no text: most of them have an empty box (zero width or height: a font
// without widths beyond what Params substitutes, text squeezed by Tz 0 or a degenerate
// matrix), or none of its page-level glyphs is laid out into a line. Such a page is never
// laid out into a silently empty one.
func Usable(p *pdf.Page) (bool, string) {
	good, bad, flat := 0, 0, 0
	count := func(g *pdf.Glyph) {
		if g.Invisible {
			return
		}
		t := g.Text
		switch {
		case t == "" || strings.HasPrefix(t, "(cid:"):
			bad++
			return
		case strings.TrimSpace(t) == "":
			return
		}
		for _, r := range t {
			switch {
			case r == utf8.RuneError, unicode.Is(unicode.Co, r), unicode.IsControl(r):
				bad++
				return
			}
		}
		good++
		if g.X1-g.X0 <= 0 || g.Y1-g.Y0 <= 0 {
			flat++
		}
	}
	for i := range p.Glyphs {
		count(&p.Glyphs[i])
	}
	for _, f := range p.Figures {
		for _, it := range f.Items {
			if it.Glyph != nil {
				count(it.Glyph)
			}
		}
	}
	switch {
	case good == 0 && bad == 0 && !hasPicture(p):
		return true, "" // a blank page, or rules and shapes only: nothing to read, nothing to OCR
	case good == 0 && bad == 0:
		return false, "no visible text, an image"
	case bad > good:
		return false, "text layer mostly unmapped glyphs ((cid:NN), private-use or replacement characters)"
	case good < 20 && coveredByImage(p):
		return false, "a page-sized image with hardly any text on it"
	case 2*flat > good:
		return false, fmt.Sprintf("text drawn as empty glyph boxes (%d of %d glyphs of zero width or height): nothing to lay out", flat, good)
	case pageTextLost(p):
		return false, "glyphs drawn but no text laid out from them"
	}
	return true, ""
}

// pageTextLost reports a page whose visible page-level glyphs hold text but whose lines hold
// none.
func pageTextLost(p *pdf.Page) bool {
	drawn := false
	for i := range p.Glyphs {
		g := &p.Glyphs[i]
		if !g.Invisible && strings.TrimSpace(g.Text) != "" {
			drawn = true
			break
		}
	}
	if !drawn {
		return false
	}
	for _, b := range p.Boxes {
		for _, l := range b.Lines {
			for _, it := range l.Items {
				if strings.TrimSpace(it.Text) != "" {
					return false
				}
			}
		}
	}
	return true
}

// coveredByImage reports an image covering most of the page (a scanned page).
func coveredByImage(p *pdf.Page) bool {
	area := p.Width * p.Height
	for _, im := range p.Geometry.Images {
		if (im.X1-im.X0)*(im.Y1-im.Y0) > 0.5*area {
			return true
		}
	}
	return false
}

// hasPicture reports an image placement large enough to hold text (a tenth of the page). A
// stencil mask counts when it covers half the page: small ones are glyphs or logos, but a
// page-sized one is a 1-bit scan (fax and CCITT scans are stored that way).
func hasPicture(p *pdf.Page) bool {
	area := p.Width * p.Height
	for _, im := range p.Geometry.Images {
		a := (im.X1 - im.X0) * (im.Y1 - im.Y0)
		if (!im.ImageMask && a > 0.1*area) || a > 0.5*area {
			return true
		}
	}
	return false
}
