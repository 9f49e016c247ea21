package tables_test

import (
	"github.com/quarrydocs/quarry/layout/tables"
	"github.com/quarrydocs/quarry/pdf"
)

// addGeometry adds the page's ruling to the detector's input, as the page layout does:
// stroked lines and thin filled rectangles are rules; stroked rectangles give their four
// sides; filled rectangles that are not white are shading (a white fill erases, it draws
// nothing). Curves and slanted lines (charts, logos, diagrams) and images are drawing, not
// rules.
func addGeometry(in *tables.Page, p *pdf.Page) {
	for _, s := range p.Geometry.Segments {
		// Axis-aligned edges of filled polygons are rules too: spreadsheet exports draw
		// grid lines as thin filled four-sided paths.
		slanted := !s.Horizontal(1) && !s.Vertical(1)
		if s.Kind == pdf.SegCurve || slanted {
			in.Drawing = append(in.Drawing, tables.Rect{X0: min(s.X0, s.X1), Y0: min(s.Y0, s.Y1), X1: max(s.X0, s.X1), Y1: max(s.Y0, s.Y1)})
			continue
		}
		if s.Gray > 0.95 {
			continue
		}
		in.Segments = append(in.Segments, tables.Segment{X0: s.X0, Y0: s.Y0, X1: s.X1, Y1: s.Y1, Width: s.Width})
	}
	for _, im := range p.Geometry.Images {
		in.Drawing = append(in.Drawing, tables.Rect{X0: im.X0, Y0: im.Y0, X1: im.X1, Y1: im.Y1})
	}
	for _, r := range p.Geometry.Rects {
		if r.Stroke && r.StrokeGray <= 0.95 {
			for _, e := range [][4]float64{{r.X0, r.Y0, r.X1, r.Y0}, {r.X0, r.Y1, r.X1, r.Y1}, {r.X0, r.Y0, r.X0, r.Y1}, {r.X1, r.Y0, r.X1, r.Y1}} {
				in.Segments = append(in.Segments, tables.Segment{X0: e[0], Y0: e[1], X1: e[2], Y1: e[3], Width: r.LineWidth})
			}
		}
		if r.Fill && r.FillGray <= 0.95 {
			in.Rects = append(in.Rects, tables.Rect{X0: r.X0, Y0: r.Y0, X1: r.X1, Y1: r.Y1})
		}
	}
}
