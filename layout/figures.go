package layout

import (
	"math"

	"github.com/quarrydocs/quarry/pdf"
)

// figure is a picture in page space (origin bottom-left): an image placement (img set) or a
// vector drawing.
type figure struct {
	b   box // x0, y0, x1, y1 in page space here, not top-left
	img *pdf.Image
}

// figures finds the page's pictures: image placements large enough to be one (tiles of one
// picture merged; stencil masks, slivers and full-page backgrounds left out) and vector
// drawings (dense clusters of curves, polygons and slanted lines, such as charts, diagrams
// and logos). taken are table boxes in top-left space; pictures inside them are the table's.
func figures(p *pdf.Page, taken []box) []figure {
	W, H := p.Width, p.Height
	area := W * H
	if area <= 0 {
		return nil
	}
	inTaken := func(x0, y0, x1, y1 float64) bool {
		cx, cy := (x0+x1)/2, H-(y0+y1)/2
		for _, t := range taken {
			if t.contains(cx, cy) {
				return true
			}
		}
		return false
	}
	var out []figure
	geo := &p.Geometry
	for i := range geo.Images {
		im := &geo.Images[i]
		w, h := im.X1-im.X0, im.Y1-im.Y0
		if im.ImageMask || w < 12 || h < 12 || w*h < 0.004*area || w*h > 0.85*area || inTaken(im.X0, im.Y0, im.X1, im.Y1) {
			continue
		}
		b := box{im.X0, im.Y0, im.X1, im.Y1}
		merged := false
		for k := range out {
			if out[k].b.overlaps(b) || touching(out[k].b, b) {
				out[k].b = out[k].b.union(b)
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, figure{b: b, img: im})
		}
	}
	for _, v := range vectorFigures(p) {
		if inTaken(v.x0, v.y0, v.x1, v.y1) {
			continue
		}
		dup := false
		for k := range out {
			if out[k].b.overlaps(v) {
				out[k].b = out[k].b.union(v)
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, figure{b: v})
		}
	}
	for k := range out {
		out[k].b = withFormLabels(p, out[k].b)
	}
	return out
}

// withFormLabels grows a picture drawn inside a Form XObject (a chart a plotting tool wrote
// as one form) over the form's own glyphs around it: tick labels, axis titles and legends
// set just outside the plot's frame belong to the picture, not to the text flow. Only glyphs
// within four of their own heights of the picture count, and only from a form holding
// label-sized text (a form wrapping a whole page of running text is left alone).
func withFormLabels(p *pdf.Page, b box) box {
	for i := range p.Figures {
		f := &p.Figures[i]
		fb := box{f.X0, f.Y0, f.X1, f.Y1}
		ix := math.Min(b.x1, fb.x1) - math.Max(b.x0, fb.x0)
		iy := math.Min(b.y1, fb.y1) - math.Max(b.y0, fb.y0)
		if ix <= 0 || iy <= 0 || ix*iy < 0.5*b.w()*b.h() {
			continue
		}
		glyphs := 0
		for _, it := range f.Items {
			if it.Glyph != nil {
				glyphs++
			}
		}
		if glyphs == 0 || glyphs > 6*maxPictureWords {
			continue
		}
		grown := b
		for _, it := range f.Items {
			g := it.Glyph
			if g == nil || g.Invisible || g.Clipped {
				continue
			}
			reach := 4 * math.Max(g.Size, 1)
			if g.X1 < b.x0-reach || g.X0 > b.x1+reach || g.Y1 < b.y0-reach || g.Y0 > b.y1+reach {
				continue
			}
			grown = grown.union(box{g.X0, g.Y0, g.X1, g.Y1})
		}
		b = grown
	}
	return b
}

func touching(a, b box) bool {
	const eps = 1.0
	return a.x0-eps <= b.x1 && b.x0-eps <= a.x1 && a.y0-eps <= b.y1 && b.y0-eps <= a.y1
}

// vectorFigures clusters drawing items on a grid of 6-point cells (a drawing's pieces touch or
// nearly do); a cluster with enough curves, polygon edges or slanted lines and a fair size is
// a picture. Work is linear in the items (bounded by pdf.MaxPathItems) and the grid cells.
func vectorFigures(p *pdf.Page) []box {
	const cell = 6.0
	W, H := p.Width, p.Height
	gw, gh := int(W/cell)+1, int(H/cell)+1
	if gw <= 0 || gh <= 0 || gw*gh > 4_000_000 {
		return nil
	}
	count := make([]int32, gw*gh) // drawing items touching a cell
	mark := func(x0, y0, x1, y1 float64) {
		cx0, cy0 := clampCell(x0/cell, gw), clampCell(y0/cell, gh)
		cx1, cy1 := clampCell(x1/cell, gw), clampCell(y1/cell, gh)
		// Long items (an axis, a frame) would bridge unrelated things: only their ends count.
		if (cx1-cx0+1)*(cy1-cy0+1) > 64 {
			count[cy0*gw+cx0]++
			count[cy1*gw+cx1]++
			return
		}
		for y := cy0; y <= cy1; y++ {
			for x := cx0; x <= cx1; x++ {
				count[y*gw+x]++
			}
		}
	}
	geo := &p.Geometry
	items := 0
	for i := range geo.Segments {
		s := &geo.Segments[i]
		switch {
		case s.Kind == pdf.SegCurve, s.Kind == pdf.SegFillEdge && s.Gray < 0.97,
			s.Kind == pdf.SegStroke && !s.Horizontal(0.5) && !s.Vertical(0.5):
			mark(math.Min(s.X0, s.X1), math.Min(s.Y0, s.Y1), math.Max(s.X0, s.X1), math.Max(s.Y0, s.Y1))
			items++
		}
	}
	if geo.Dropped > 0 {
		mark(geo.DroppedX0, geo.DroppedY0, geo.DroppedX1, geo.DroppedY1)
		items += geo.Dropped
	}
	if items < 12 {
		return nil
	}
	seen := make([]bool, len(count))
	var out []box
	var stack []int
	for start := range count {
		if count[start] == 0 || seen[start] {
			continue
		}
		seen[start] = true
		stack = append(stack[:0], start)
		minX, minY, maxX, maxY := gw, gh, 0, 0
		n := int32(0)
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n += count[c]
			cx, cy := c%gw, c/gw
			minX, minY, maxX, maxY = min(minX, cx), min(minY, cy), max(maxX, cx), max(maxY, cy)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := cx+dx, cy+dy
					if nx < 0 || ny < 0 || nx >= gw || ny >= gh {
						continue
					}
					if k := ny*gw + nx; count[k] > 0 && !seen[k] {
						seen[k] = true
						stack = append(stack, k)
					}
				}
			}
		}
		b := box{float64(minX) * cell, float64(minY) * cell, math.Min(float64(maxX+1)*cell, W), math.Min(float64(maxY+1)*cell, H)}
		if n < 12 || b.w() < 36 || b.h() < 36 || b.w()*b.h() < 0.01*W*H {
			continue
		}
		out = append(out, b)
	}
	return out
}

func clampCell(v float64, n int) int {
	i := int(v)
	if v < 0 || math.IsNaN(v) {
		return 0
	}
	return min(i, n-1)
}
