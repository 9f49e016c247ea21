package tables_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/layout/tables"
	"github.com/quarrydocs/quarry/layout/tables/icdar"
	"github.com/quarrydocs/quarry/pdf"
)

// Regression floors on the ICDAR 2013 EU set (testdata/icdar2013-eu), at the measured values
// rounded down: a change that lowers a figure fails here.
var floors = icdar.Score{F1: 0.987, TEDS: 0.973, Rows: 0.986, Cols: 1.0, AdjF1: 0.970}

// pageInput adapts one page read by pdf to the detector's input.
func pageInput(p *pdf.Page) *tables.Page {
	gs := make([]tables.Glyph, 0, len(p.Glyphs))
	for _, g := range p.Glyphs {
		if g.Invisible || g.Clipped {
			continue // not seen on the page
		}
		gs = append(gs, tables.Glyph{
			Text: g.Text, Box: tables.Rect{X0: g.X0, Y0: g.Y0, X1: g.X1, Y1: g.Y1},
			Size: g.Size, Bold: bold(g.Font), Upright: g.Upright, Math: tables.MathFont(g.Font),
		})
	}
	in := &tables.Page{Width: p.Width, Height: p.Height, Words: tables.Words(gs)}
	addGeometry(in, p)
	return in
}

func bold(font string) bool {
	f := strings.ToLower(font)
	return strings.Contains(f, "bold") || strings.Contains(f, "black") || strings.Contains(f, "heavy")
}

// docResult is one document's predictions and ground truth.
type docResult struct {
	name     string
	pred, gt []icdar.Table
	elapsed  time.Duration
}

// runEU runs the detector over every document of the EU set that has a PDF (eu-009b's is
// not part of the set, as in Camelot's benchmark).
func runEU(t testing.TB) []docResult {
	dir := "testdata/icdar2013-eu"
	strs, err := filepath.Glob(filepath.Join(dir, "*-str.xml"))
	if err != nil || len(strs) == 0 {
		t.Fatalf("no ground truth in %s: %v", dir, err)
	}
	sort.Strings(strs)
	var out []docResult
	for _, s := range strs {
		name := strings.TrimSuffix(filepath.Base(s), "-str.xml")
		if only := os.Getenv("TABLES_DUMP"); only != "" && !strings.Contains(","+only+",", ","+name+",") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name+".pdf"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		gt, err := icdar.ReadStructure(s)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		pred, err := detectDoc(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, docResult{name, pred, gt, time.Since(start)})
	}
	return out
}

func detectDoc(data []byte) ([]icdar.Table, error) {
	ctx := context.Background()
	doc, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	var out []icdar.Table
	for n := 1; n <= doc.NumPages(); n++ {
		p, err := doc.Page(ctx, n, pdf.DefaultLAParams())
		if err != nil {
			return nil, err
		}
		ts, err := tables.Find(ctx, pageInput(p), tables.Options{})
		if err != nil {
			return nil, err
		}
		for _, tb := range ts {
			it := icdar.Table{Page: n, X0: tb.Box.X0, Y0: tb.Box.Y0, X1: tb.Box.X1, Y1: tb.Box.Y1}
			for _, c := range tb.Cells {
				it.Cells = append(it.Cells, icdar.Cell{Row: c.Row, Col: c.Col, EndRow: c.Row + c.RowSpan - 1, EndCol: c.Col + c.ColSpan - 1, Text: c.Text})
			}
			out = append(out, it)
		}
	}
	return out, nil
}

// TestICDAR2013EU scores the detector on the EU set with Camelot's metrics and the
// competition's adjacency F1, prints a per-document table and holds the floors.
func TestICDAR2013EU(t *testing.T) {
	res := runEU(t)
	var total icdar.Counts
	var elapsed time.Duration
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %3s %4s %6s %5s %5s %6s %7s\n", "doc", "gt", "pred", "TEDS", "rows", "cols", "adjF1", "ms")
	for _, r := range res {
		c := icdar.Compare(r.pred, r.gt)
		total.Add(c)
		elapsed += r.elapsed
		s := c.Score()
		fmt.Fprintf(&b, "%-8s %3d %4d %6.3f %2d/%-2d %2d/%-2d %6.3f %7.1f\n", r.name, len(r.gt), len(r.pred),
			s.TEDS, c.RowsOK, c.Matched, c.ColsOK, c.Matched, s.AdjF1, float64(r.elapsed.Microseconds())/1000)
	}
	s := total.Score()
	fmt.Fprintf(&b, "ALL %d docs: detection F1 %.3f  TEDS proxy %.3f  rows %.3f  cols %.3f  adjacency F1 %.3f  (%d/%d/%d tables TP/FP/FN) in %v\n",
		len(res), s.F1, s.TEDS, s.Rows, s.Cols, s.AdjF1, total.TP, total.FP, total.FN, elapsed.Round(time.Millisecond))
	t.Log("\n" + b.String())
	for _, m := range []struct {
		name       string
		got, floor float64
	}{{"detection F1", s.F1, floors.F1}, {"TEDS proxy", s.TEDS, floors.TEDS}, {"rows", s.Rows, floors.Rows}, {"cols", s.Cols, floors.Cols}, {"adjacency F1", s.AdjF1, floors.AdjF1}} {
		if m.got < m.floor {
			t.Errorf("%s %.3f below its floor %.3f", m.name, m.got, m.floor)
		}
	}
}
