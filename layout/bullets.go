package layout

import (
	"math"
	"sort"

	"github.com/quarrydocs/quarry/pdf"
)

// markDrawnBullets sets bullet on the lines that open with a marker drawn as a shape rather
// than set as a glyph: Chromium paints a list's disc, circle and square markers as paths (a
// circle's Bézier curves, a filled square), so the text has no "•" and a list of one-line
// items read as one paragraph. A marker is a small, roughly square shape — three or more
// curve chords or edges of a filled polygon (a disc, a circle, a triangle) or one rectangle, 0.15 to 0.8 em across — lying wholly in the band of the line's
// height that ends 0.1 em before its first glyph and starts 2.5 em before it. Coordinates of
// the lines are top-left (H is the page height).
func markDrawnBullets(lines []tline, geo *pdf.Geometry, H float64) {
	type piece struct {
		b     box
		curve bool
	}
	var ps []piece
	for i := range geo.Segments {
		s := &geo.Segments[i]
		if s.Kind != pdf.SegCurve && s.Kind != pdf.SegFillEdge {
			continue
		}
		ps = append(ps, piece{box{math.Min(s.X0, s.X1), H - math.Max(s.Y0, s.Y1), math.Max(s.X0, s.X1), H - math.Min(s.Y0, s.Y1)}, true})
	}
	for _, r := range geo.Rects {
		if r.X1-r.X0 < 20 && r.Y1-r.Y0 < 20 && (r.Fill && r.FillGray < 0.9 || r.Stroke && r.StrokeGray < 0.9) {
			ps = append(ps, piece{box{r.X0, H - r.Y1, r.X1, H - r.Y0}, false})
		}
	}
	if len(ps) == 0 {
		return
	}
	sort.Slice(ps, func(a, b int) bool { return ps[a].b.y0 < ps[b].b.y0 })
	for i := range lines {
		l := &lines[i]
		if l.turned || l.mark {
			continue
		}
		em := math.Max(l.size, 1)
		band := box{l.b.x0 - 2.5*em, l.b.y0 - 0.1*em, l.b.x0 - 0.1*em, l.b.y1 + 0.1*em}
		var u box
		chords, rects := 0, 0 // chords counts curves' chords and filled polygons' edges
		for k := sort.Search(len(ps), func(k int) bool { return ps[k].b.y0 >= band.y0 }); k < len(ps) && ps[k].b.y0 <= band.y1; k++ {
			p := ps[k]
			if p.b.x0 < band.x0 || p.b.x1 > band.x1 || p.b.y1 > band.y1 {
				continue
			}
			if chords+rects == 0 {
				u = p.b
			} else {
				u = u.union(p.b)
			}
			if p.curve {
				chords++
			} else {
				rects++
			}
		}
		if !(chords >= 3 && rects == 0 || chords == 0 && rects == 1) {
			continue
		}
		w, h := u.w(), u.h()
		if w < 0.15*em || h < 0.15*em || w > 0.8*em || h > 0.8*em || math.Abs(w-h) > 0.35*math.Max(w, h) {
			continue
		}
		l.bullet = true
	}
}
