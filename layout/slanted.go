package layout

import (
	"math"
	"sort"
	"strings"

	"github.com/quarrydocs/quarry/pdf"
)

// Text set at a slant — a DRAFT or CONFIDENTIAL watermark turned 30–60° across the page, a
// chart's tick labels at 45° — is upright to pdfminer (its test is the sign of the glyph
// matrix, not its angle), so its glyphs join whichever line their boxes touch: the word comes
// out letter by letter, some letters inside the paragraphs under it. Its glyphs are those
// whose baseline is 10° or more off the page's axes (pdf.Glyph.Slant); runs of them in the
// content stream's order, three or more in one font and at one angle, each a glyph's width
// or so from the one before along that angle (a word space between at most), are taken out
// of the glyph sources and become lines of their own, marked turned (a block of its own,
// read after the page's text when it lies over it, as upright text set large is), in the
// type size its glyphs have across their baseline.

// Slanted runs: the least slant, how far the step between two glyphs may turn from their
// baseline, and how many glyphs make a run.
const (
	slantMin     = 10 * math.Pi / 180
	slantTurnMax = 20 * math.Pi / 180
	slantGlyphs  = 3
)

// slantedLines takes the runs of slanted glyphs out of the sources (marking them dropped) and
// returns them as lines in top-left page space.
func slantedLines(p *pdf.Page, srcs []*glyphSource) []tline {
	var out []tline
	for _, s := range srcs {
		out = append(out, slantedRuns(s, p.Height)...)
	}
	return out
}

func slantedRuns(s *glyphSource, H float64) []tline {
	slanted := func(g *pdf.Glyph) bool { return math.Abs(g.Slant) >= slantMin }
	centre := func(g *pdf.Glyph) (float64, float64) { return (g.X0 + g.X1) / 2, (g.Y0 + g.Y1) / 2 }
	// next reports whether glyph b goes on the run after glyph a: the same font and angle,
	// the step between their centres along their baseline and a glyph or so long.
	next := func(a, b *pdf.Glyph) bool {
		if a.Font != b.Font || a.Dir != b.Dir || math.Abs(a.Slant-b.Slant) > 0.02 {
			return false
		}
		ax, ay := centre(a)
		bx, by := centre(b)
		d := math.Hypot(bx-ax, by-ay)
		sc := math.Max(math.Max(a.X1-a.X0, a.Y1-a.Y0), math.Max(b.X1-b.X0, b.Y1-b.Y0))
		if sc <= 0 || d < 0.1*sc || d > 2*sc {
			return false
		}
		base := a.Slant + float64(a.Dir)*math.Pi/2
		t := math.Abs(math.Atan2(by-ay, bx-ax) - base)
		return math.Min(t, 2*math.Pi-t) <= slantTurnMax
	}
	var out []tline
	n := len(s.glyphs)
	for i := 0; i < n; {
		if s.drop[i] || !slanted(&s.glyphs[i]) || strings.TrimSpace(s.glyphs[i].Text) == "" {
			i++
			continue
		}
		// Grow a run from glyph i over the visible glyphs after it (spaces between are word
		// spaces).
		run := []int{i}
		spaceBefore := []bool{false}
		j, space := i+1, false
		for ; j < n && !s.drop[j]; j++ {
			g := &s.glyphs[j]
			if strings.TrimSpace(g.Text) == "" {
				space = true
				continue
			}
			if !next(&s.glyphs[run[len(run)-1]], g) {
				break
			}
			run = append(run, j)
			spaceBefore = append(spaceBefore, space)
			space = false
		}
		if len(run) < slantGlyphs {
			i++
			continue
		}
		out = append(out, slantedLine(s, run, spaceBefore, H))
		for _, k := range run {
			s.drop[k] = true
		}
		i = j
	}
	return out
}

// slantedLine makes a line of a run of slanted glyphs: its text (a space where the stream
// had one), its box, and its type size — each glyph's box is spanned by two corners of the
// glyph's own frame, (0, descent) and (advance, descent + size), so its extent across the
// baseline is the size, read with whichever signs of the box's sides give a positive advance
// closest to the step to the next glyph (the previous one for the last).
func slantedLine(s *glyphSource, run []int, spaceBefore []bool, H float64) tline {
	first, lastG := &s.glyphs[run[0]], &s.glyphs[run[len(run)-1]]
	ang := math.Atan2((lastG.Y0+lastG.Y1)/2-(first.Y0+first.Y1)/2, (lastG.X0+lastG.X1)/2-(first.X0+first.X1)/2)
	c, sn := math.Cos(ang), math.Sin(ang)
	var sb strings.Builder
	var sizes []float64
	bold := 0
	b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for k, gi := range run {
		g := &s.glyphs[gi]
		if spaceBefore[k] {
			sb.WriteByte(' ')
		}
		sb.WriteString(g.Text)
		b = b.union(box{g.X0, H - g.Y1, g.X1, H - g.Y0})
		if isBold(g.Font) {
			bold++
		}
		w, h := g.X1-g.X0, g.Y1-g.Y0
		o := &s.glyphs[run[max(k-1, 0)]]
		if k+1 < len(run) {
			o = &s.glyphs[run[k+1]]
		}
		adv := math.Hypot((o.X0+o.X1-g.X0-g.X1)/2, (o.Y0+o.Y1-g.Y0-g.Y1)/2)
		best, size := math.Inf(1), 0.0
		for _, sx := range []float64{-1, 1} {
			for _, sy := range []float64{-1, 1} {
				vx, vy := sx*w, sy*h
				along, across := vx*c+vy*sn, -vx*sn+vy*c
				if along > 0 && across > 0 && math.Abs(along-adv) < best {
					best, size = math.Abs(along-adv), across
				}
			}
		}
		if size > 0 {
			sizes = append(sizes, size)
		}
	}
	size := math.Max(b.w(), b.h()) / float64(len(run))
	if len(sizes) > 0 {
		sort.Float64s(sizes)
		size = sizes[len(sizes)/2]
	}
	return tline{text: sb.String(), b: b, size: size, bold: 2*bold > len(run), turned: true}
}
