// Package readorder scores the born-digital layout's reading order on a PDF (issue 15), for
// the bench and the layout's regression floors. It compares the layout's text flow (its
// elements without tables and pictures) with three orders of pdfminer's text, the first two
// being the two readings of issue 15's yardstick, "pdfminer's own box order":
//
//   - fast's box order: pdfminer's boxes as the reference's fast strategy sorts them (XY-cut
//     over boxes shrunk to 90 %). The shrink opens gaps that are not there, so wherever two
//     columns' paragraph gaps come near each other under a full-width element, fast reads
//     the columns band by band, interleaved: this yardstick scores a correct column order
//     below 1 on such pages.
//   - pdfminer's raw box order: the order of LTPage's boxes (pdf.Analyze: group_textboxes'
//     hierarchical grouping by the area a pair's union adds, boxes_flow 0.5), which the
//     reference never shows but which is pdfminer's own. Its greedy grouping joins boxes
//     across the gutter where two columns hold many short boxes of equal width (a list of
//     references), so it too interleaves columns on such pages.
//   - the content stream's order: pdfminer's lines in the order their first glyph is drawn.
//     Typesetters such as TeX write a page in reading order (column after column, footnotes
//     at the foot of their column, floats where they are placed), so for such files this is
//     the author's order, independent of every algorithm; the layout and fast are scored
//     against it. It says nothing for producers that draw text in another order.
//
// On both sides the boxes and lines whose centre lies in one of the layout's tables or
// pictures are left out, so what is compared is the order of the text flow.
package readorder

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/layout"
	"github.com/quarrydocs/quarry/metrics"
	"github.com/quarrydocs/quarry/pdf"
	"github.com/quarrydocs/quarry/strategies/fast"
)

// Score is a document's reading-order accuracy (CCT, 0..1).
type Score struct {
	Pages int
	// VsFast is the layout's text flow against fast's box order (issue 15's yardstick) and
	// All every element against fast's.
	VsFast, All float64
	// VsRaw and FastVsRaw are the layout's and fast's text flows against pdfminer's raw box
	// order (LTPage's order: boxes_flow grouping); AllVsRaw every element against it.
	VsRaw, FastVsRaw, AllVsRaw float64
	// VsStream and FastVsStream are the layout's and fast's text flows against the content
	// stream's order.
	VsStream, FastVsStream float64
	// With pdfminer.six's own boxes (MeasurePeer): VsPeer is the layout's text flow against
	// them in pdfminer's order, RawVsPeer our raw box order against them (1 when pdf.Analyze
	// orders boxes as pdfminer does). Zero without a peer.
	VsPeer, RawVsPeer float64
	// PerPage holds the same figures for each page.
	PerPage []PageScore
}

// PageScore is one page's figures.
type PageScore struct {
	N                                                int
	VsFast, VsRaw, VsStream, FastVsRaw, FastVsStream float64
	VsPeer, RawVsPeer                                float64
}

// PeerBox is one of pdfminer.six's text boxes as its LTPage lists them: the box in PDF
// space (origin bottom left) and its text.
type PeerBox struct {
	BBox [4]float64 `json:"bbox"`
	Text string     `json:"text"`
}

// Measure lays out every page of a PDF and scores its reading order.
func Measure(ctx context.Context, data []byte) (Score, error) {
	return MeasurePeer(ctx, data, nil)
}

// MeasurePeer is Measure, also scoring against pdfminer.six's own boxes, one slice a page
// (bench/peers/pdfminer_order.py writes them): the peer run beside us rather than our copy
// of its grouping. A nil peer scores nothing against it; one of another page count is an error.
func MeasurePeer(ctx context.Context, data []byte, peer [][]PeerBox) (Score, error) {
	d, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Score{}, fmt.Errorf("readorder: %w", err)
	}
	ld := layout.New(layout.Options{})
	var ours, fastEls, oursFlow, fastFlow []element.Element
	var raw, rawFlow, stream strings.Builder
	s := Score{Pages: d.NumPages()}
	if peer != nil && len(peer) != s.Pages {
		return Score{}, fmt.Errorf("readorder: the peer has %d pages, the PDF %d", len(peer), s.Pages)
	}
	var rawAll, peerAll strings.Builder
	for i := 1; i <= d.NumPages(); i++ {
		fp, err := d.Page(ctx, i, pdf.DefaultLAParams())
		if err != nil {
			return Score{}, fmt.Errorf("readorder: page %d: %w", i, err)
		}
		for _, tb := range fp.Boxes {
			raw.WriteString(strings.Join(strings.Fields(tb.Text()), " ") + "\n")
		}
		fe := fast.PageElements(fp, true)
		lp, err := d.Page(ctx, i, layout.Params(pdf.DefaultLAParams()))
		if err != nil {
			return Score{}, fmt.Errorf("readorder: page %d: %w", i, err)
		}
		els, err := ld.Page(ctx, lp)
		if err != nil {
			return Score{}, fmt.Errorf("readorder: page %d: %w", i, err)
		}
		ours, fastEls = append(ours, els...), append(fastEls, fe...)
		// Turned text (a margin identifier, an axis title) is not part of the flow either:
		// pdfminer makes letter-spaced single-letter lines of it, which the layout reads as
		// words, so both sides leave out what lies in pdfminer's boxes of mostly turned glyphs.
		turned := turnedBoxes(fp)
		regions := turned
		var of, ff []element.Element
		for _, e := range els {
			if e.Type == element.Table || e.Type == element.Image {
				regions = append(regions, e.Metadata.Coordinates)
				continue
			}
			if !inside(e.Metadata.Coordinates, turned) {
				of = append(of, e)
			}
		}
		for _, e := range fe {
			if !inside(e.Metadata.Coordinates, regions) {
				ff = append(ff, e)
			}
		}
		oursFlow, fastFlow = append(oursFlow, of...), append(fastFlow, ff...)
		st := streamOrder(fp, regions)
		stream.WriteString(st)
		rw := rawOrder(fp, regions)
		rawFlow.WriteString(rw)
		ps := PageScore{
			N:            i,
			VsFast:       metrics.BatchAccuracy(metrics.CCT(of), metrics.CCT(ff)),
			VsRaw:        metrics.BatchAccuracy(metrics.CCT(of), rw),
			VsStream:     metrics.BatchAccuracy(metrics.CCT(of), st),
			FastVsRaw:    metrics.BatchAccuracy(metrics.CCT(ff), rw),
			FastVsStream: metrics.BatchAccuracy(metrics.CCT(ff), st),
		}
		if peer != nil {
			pf := peerOrder(fp, peer[i-1], regions)
			ps.VsPeer = metrics.BatchAccuracy(metrics.CCT(of), pf)
			ps.RawVsPeer = metrics.BatchAccuracy(rw, pf)
			peerAll.WriteString(pf)
			rawAll.WriteString(rw)
		}
		s.PerPage = append(s.PerPage, ps)
	}
	s.VsFast = metrics.BatchAccuracy(metrics.CCT(oursFlow), metrics.CCT(fastFlow))
	s.All = metrics.BatchAccuracy(metrics.CCT(ours), metrics.CCT(fastEls))
	s.AllVsRaw = metrics.BatchAccuracy(metrics.CCT(ours), raw.String())
	s.VsRaw = metrics.BatchAccuracy(metrics.CCT(oursFlow), rawFlow.String())
	s.FastVsRaw = metrics.BatchAccuracy(metrics.CCT(fastFlow), rawFlow.String())
	s.VsStream = metrics.BatchAccuracy(metrics.CCT(oursFlow), stream.String())
	s.FastVsStream = metrics.BatchAccuracy(metrics.CCT(fastFlow), stream.String())
	if peer != nil {
		s.VsPeer = metrics.BatchAccuracy(metrics.CCT(oursFlow), peerAll.String())
		s.RawVsPeer = metrics.BatchAccuracy(rawAll.String(), peerAll.String())
	}
	return s, nil
}

// peerOrder is the text of pdfminer.six's boxes in its order, as rawOrder writes ours.
func peerOrder(p *pdf.Page, boxes []PeerBox, regions []*element.Coordinates) string {
	var sb strings.Builder
	for _, b := range boxes {
		if inside(boxCoords(p, b.BBox[0], b.BBox[1], b.BBox[2], b.BBox[3]), regions) {
			continue
		}
		if t := strings.Join(strings.Fields(b.Text), " "); t != "" {
			sb.WriteString(t + "\n")
		}
	}
	return sb.String()
}

// boxCoords is a box in PDF space as the elements' top-left coordinates.
func boxCoords(p *pdf.Page, x0, y0, x1, y1 float64) *element.Coordinates {
	x0, y0, x1, y1 = p.TopLeft(x0, y0, x1, y1)
	return &element.Coordinates{Points: []element.Point{{x0, y0}, {x0, y1}, {x1, y1}, {x1, y0}}}
}

// streamOrder is the text of pdfminer's lines in the order their first glyph is drawn, one
// line a row, lines whose centre lies in a region left out.
func streamOrder(p *pdf.Page, regions []*element.Coordinates) string {
	type line struct {
		first int
		text  string
	}
	var ls []line
	for _, tb := range p.Boxes {
		for _, l := range tb.Lines {
			first := -1
			for _, it := range l.Items {
				if it.Glyph >= 0 && (first < 0 || it.Glyph < first) {
					first = it.Glyph
				}
			}
			if first < 0 {
				continue
			}
			if inside(boxCoords(p, l.X0, l.Y0, l.X1, l.Y1), regions) {
				continue
			}
			ls = append(ls, line{first, l.Text()})
		}
	}
	sort.SliceStable(ls, func(a, b int) bool { return ls[a].first < ls[b].first })
	var sb strings.Builder
	for _, l := range ls {
		sb.WriteString(strings.TrimSpace(l.text) + "\n")
	}
	return sb.String()
}

// rawOrder is the text of pdfminer's boxes in the page's own order (LTPage's: the boxes_flow
// grouping, pdf.Analyze), one box a row, whitespace runs collapsed as the elements' text is,
// boxes whose centre lies in a region left out.
func rawOrder(p *pdf.Page, regions []*element.Coordinates) string {
	var sb strings.Builder
	for _, tb := range p.Boxes {
		if inside(boxCoords(p, tb.X0, tb.Y0, tb.X1, tb.Y1), regions) {
			continue
		}
		if t := strings.Join(strings.Fields(tb.Text()), " "); t != "" {
			sb.WriteString(t + "\n")
		}
	}
	return sb.String()
}

// turnedBoxes are the page's pdfminer boxes whose glyphs are mostly not upright, in the
// elements' top-left coordinates.
func turnedBoxes(p *pdf.Page) []*element.Coordinates {
	var bs [][4]float64
	for _, tb := range p.Boxes {
		n, turned := 0, 0
		for _, l := range tb.Lines {
			for _, it := range l.Items {
				if it.Glyph >= 0 && it.Glyph < len(p.Glyphs) {
					n++
					if !p.Glyphs[it.Glyph].Upright {
						turned++
					}
				}
			}
		}
		if n > 0 && 2*turned > n {
			bs = append(bs, [4]float64{tb.X0, tb.Y0, tb.X1, tb.Y1})
		}
	}
	// pdfminer splits one turned label into several boxes at its word gaps; the layout reads
	// it as one element, whose centre may lie in such a gap: boxes within 20 points merge.
	for merged := true; merged; {
		merged = false
		for i := 0; i < len(bs) && !merged; i++ {
			for j := i + 1; j < len(bs); j++ {
				a, b := bs[i], bs[j]
				if a[0]-20 <= b[2] && b[0]-20 <= a[2] && a[1]-20 <= b[3] && b[1]-20 <= a[3] {
					bs[i] = [4]float64{min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])}
					bs = append(bs[:j], bs[j+1:]...)
					merged = true
					break
				}
			}
		}
	}
	var out []*element.Coordinates
	for _, b := range bs {
		out = append(out, boxCoords(p, b[0], b[1], b[2], b[3]))
	}
	return out
}

// inside reports whether a box's centre lies in one of the regions.
func inside(c *element.Coordinates, regions []*element.Coordinates) bool {
	if c == nil || len(c.Points) < 3 {
		return false
	}
	cx, cy := (c.Points[0][0]+c.Points[2][0])/2, (c.Points[0][1]+c.Points[2][1])/2
	for _, r := range regions {
		if r == nil || len(r.Points) < 3 {
			continue
		}
		if cx >= r.Points[0][0] && cx <= r.Points[2][0] && cy >= r.Points[0][1] && cy <= r.Points[2][1] {
			return true
		}
	}
	return false
}
