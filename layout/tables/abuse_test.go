package tables

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// turn90 rotates a page's words a quarter turn counter-clockwise about the origin and shifts
// them into a page of the same size turned: text then reads bottom to top, as in a table set
// on its side in a portrait page.
func turn90(ws []Word, h float64) []Word {
	out := make([]Word, len(ws))
	for i, w := range ws {
		b := w.Box
		out[i] = w
		out[i].Box = Rect{h - b.Y1, b.X0, h - b.Y0, b.X1}
		out[i].Dir = 90
	}
	return out
}

func TestRotatedTable(t *testing.T) {
	p, want := borderlessPage()
	// The page laid out 612 wide and 792 high, turned a quarter: 792 wide, 612 high, text
	// reading bottom to top.
	turned := &Page{Width: 792, Height: 612, Words: turn90(p.Words, 792)}
	ts := find(t, turned)
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	if ts[0].Dir != 90 {
		t.Errorf("dir %d", ts[0].Dir)
	}
	sameGrid(t, ts[0], want)
	// Its box is in page space: taller than wide.
	if b := ts[0].Box; b.H() <= b.W() {
		t.Errorf("box %+v is not upright on the page", b)
	}
}

func TestWordsInferDirectionAndDropFakeBold(t *testing.T) {
	var gs []Glyph
	// "AB" drawn twice (fake bold, offset 0.3 pt), then a space, then "CD".
	for i, c := range "AB" {
		x := 100 + 6*float64(i)
		gs = append(gs, Glyph{Text: string(c), Box: Rect{x, 700, x + 6, 710}, Size: 10, Upright: true})
		gs = append(gs, Glyph{Text: string(c), Box: Rect{x + 0.3, 700, x + 6.3, 710}, Size: 10, Upright: true})
	}
	gs = append(gs, Glyph{Text: " ", Box: Rect{112, 700, 115, 710}, Size: 10, Upright: true})
	for i, c := range "CD" {
		x := 115 + 6*float64(i)
		gs = append(gs, Glyph{Text: string(c), Box: Rect{x, 700, x + 6, 710}, Size: 10, Upright: true})
	}
	// "UP" rotated: glyphs stacked upwards, not upright, no direction given.
	for i, c := range "UP" {
		y := 300 + 6*float64(i)
		gs = append(gs, Glyph{Text: string(c), Box: Rect{50, y, 60, y + 6}, Size: 6})
	}
	ws := Words(gs)
	var got []string
	for _, w := range ws {
		got = append(got, fmt.Sprintf("%s/%d", w.Text, w.Dir))
	}
	if strings.Join(got, " ") != "AB/0 CD/0 UP/90" {
		t.Errorf("words %v", got)
	}
	if ws[2].Size != 10 {
		t.Errorf("rotated word size %v, want the glyph box width 10", ws[2].Size)
	}
}

func TestTenThousandRows(t *testing.T) {
	for _, kind := range []Kind{Borderless, PartlyRuled, Ruled} {
		ruled := kind == Ruled
		t.Run(kind.String(), func(t *testing.T) {
			const n = 10000
			xs := []float64{72, 250, 340, 430}
			var ws []Word
			var segs []Segment
			top := float64(n)*14 + n/10*11 + 60
			y := top - 12
			ws = append(ws, row(y, xs, "Name", "Value", "Count", "Share")...)
			for i := range n {
				if kind != Borderless {
					segs = append(segs, hseg(y-2, 70, 480)) // under the row above
				}
				y -= 14
				ws = append(ws, row(y, xs, fmt.Sprintf("item %d", i), fmt.Sprint(i*7), fmt.Sprint(i%13), "1.5")...)
				if i%10 == 3 {
					// A label wrapped onto a second line.
					y -= 11
					ws = append(ws, phrase("continued", 72, y)...)
				}
			}
			if ruled {
				segs = append(segs, hseg(top, 70, 480), hseg(y-2, 70, 480))
				for _, x := range []float64{70, 245, 335, 425, 480} {
					segs = append(segs, vseg(x, y-2, top))
				}
			}
			start := time.Now()
			ts := find(t, &Page{Width: 612, Height: top + 40, Words: ws, Segments: segs})
			el := time.Since(start)
			if len(ts) != 1 || ts[0].Rows != n+1 || ts[0].Cols != 4 || ts[0].Kind != kind {
				t.Fatalf("%d tables, first %v %dx%d", len(ts), ts[0].Kind, ts[0].Rows, ts[0].Cols)
			}
			if el > 2*time.Second {
				t.Errorf("%d rows took %v", n, el)
			}
			t.Logf("%d rows in %v", n, el)
		})
	}
}

func TestMillionSegments(t *testing.T) {
	// A map: a million short strokes in every direction, plus some labels.
	segs := make([]Segment, 0, 1000000)
	for i := range 1000000 {
		x := float64(i%1000) * 0.6
		y := float64(i/1000) * 0.79
		switch i % 3 {
		case 0:
			segs = append(segs, Segment{x, y, x + 0.5, y, 0.1})
		case 1:
			segs = append(segs, Segment{x, y, x, y + 0.5, 0.1})
		default:
			segs = append(segs, Segment{x, y, x + 0.4, y + 0.3, 0.1})
		}
	}
	ws := row(400, []float64{100, 300}, "Lake", "River")
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	ts := find(t, &Page{Words: ws, Segments: segs})
	el := time.Since(start)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if el > 2*time.Second {
		t.Errorf("a million segments took %v", el)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<30 {
		t.Errorf("allocated %d MB", grown>>20)
	}
	if len(ts) != 0 {
		t.Errorf("%d tables on a map", len(ts))
	}
	t.Logf("1M segments in %v", el)
}

func TestDegenerateInput(t *testing.T) {
	nan := math.NaN()
	ws := []Word{
		{Text: "a", Box: Rect{nan, 0, 1, 1}, Size: 10},
		{Text: "", Box: Rect{0, 0, 1, 1}, Size: 10},
		{Text: "b", Box: Rect{5, 5, 4, 4}, Size: 0},
		{Text: "c", Box: Rect{math.Inf(1), 0, 1, 1}},
	}
	segs := []Segment{{0, 0, 0, 0, 1}, {nan, 1, 2, 3, 1}, {10, 10, 10, 10, 0}, {1, 1, 1, 1.2, 0}}
	rects := []Rect{{0, 0, 0, 0}, {nan, 0, 5, 5}, {3, 3, 1, 1}}
	if ts := find(t, &Page{Words: ws, Segments: segs, Rects: rects}); len(ts) != 0 {
		t.Errorf("%d tables from garbage", len(ts))
	}
	if ts, err := Find(context.Background(), nil, Options{}); ts != nil || err != nil {
		t.Errorf("nil page: %v %v", ts, err)
	}
	// A grid drawn with zero-length and hairline pieces besides its real rules still works.
	p, want := ruledFixture()
	for i := range 50 {
		x := 100 + float64(i)
		p.Segments = append(p.Segments, Segment{x, 650, x, 650, 0}, Segment{x, 650, x + 0.1, 650, 0})
	}
	ts := find(t, p)
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	sameGrid(t, ts[0], want)
}

// ruledFixture is a 3×3 ruled table at 100..400 × 640..700.
func ruledFixture() (*Page, [][]string) {
	xs := []float64{100, 200, 300, 400}
	ys := []float64{700, 680, 660, 640}
	var segs []Segment
	for _, y := range ys {
		segs = append(segs, hseg(y, 100, 400))
	}
	for _, x := range xs {
		segs = append(segs, vseg(x, 640, 700))
	}
	want := [][]string{{"Code", "Name", "Qty"}, {"A1", "Bolt", "12"}, {"B7", "Nut", "40"}}
	var ws []Word
	for r, cells := range want {
		for c, s := range cells {
			ws = append(ws, phrase(s, xs[c]+4, ys[r+1]+5)...)
		}
	}
	return &Page{Words: ws, Segments: segs}, want
}

func TestOverlappingTables(t *testing.T) {
	// Two ruled grids whose frames overlap: each word goes to one table only.
	p, _ := ruledFixture()
	q, _ := ruledFixture()
	for _, s := range q.Segments {
		p.Segments = append(p.Segments, Segment{s.X0 + 150, s.Y0 - 30, s.X1 + 150, s.Y1 - 30, s.Width})
	}
	for _, w := range q.Words {
		w.Box = Rect{w.Box.X0 + 150, w.Box.Y0 - 30, w.Box.X1 + 150, w.Box.Y1 - 30}
		p.Words = append(p.Words, w)
	}
	ts := find(t, p)
	seen := map[int]int{}
	for k, tb := range ts {
		for _, w := range tb.Words {
			if prev, ok := seen[w]; ok {
				t.Errorf("word %q in tables %d and %d", p.Words[w].Text, prev, k)
			}
			seen[w] = k
		}
	}
	if len(ts) == 0 {
		t.Fatal("no table")
	}
	total := 0
	for _, tb := range ts {
		total += len(tb.nonEmpty())
	}
	if total == 0 {
		t.Error("tables without text")
	}
}

func TestCancelled(t *testing.T) {
	p, _ := borderlessPage()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Find(ctx, p, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
}

func TestRegionsHint(t *testing.T) {
	p, _ := borderlessPage()
	p.Regions = []Rect{{0, 0, 612, 100}} // nowhere near the table
	if ts := find(t, p); len(ts) != 0 {
		t.Errorf("%d tables outside the hinted regions", len(ts))
	}
}

func TestScatteredWords(t *testing.T) {
	// 200,000 words scattered over a large page (a map's labels, a word cloud): bounded time,
	// and no table from chance alignments.
	ws := make([]Word, 0, 200000)
	seed := uint32(1)
	next := func() float64 {
		seed = seed*1664525 + 1013904223
		return float64(seed>>8) / float64(1<<24)
	}
	for range 200000 {
		ws = append(ws, word("w", 5000*next(), 5000*next()))
	}
	start := time.Now()
	ts := find(t, &Page{Width: 5000, Height: 5000, Words: ws})
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("200,000 scattered words took %v", el)
	}
	for _, tb := range ts {
		if tb.Rows*tb.Cols > 0 && 10*len(tb.nonEmpty()) < 3*tb.Rows*tb.Cols {
			t.Errorf("a sparse table %dx%d", tb.Rows, tb.Cols)
		}
	}
	t.Logf("%d tables", len(ts))
}

func TestWordsDrawnTwice(t *testing.T) {
	// "Total 12" drawn, then drawn again 0.4 pt to the right (fake bold by overprinting).
	var gs []Glyph
	for _, dx := range []float64{0, 0.4} {
		x := 100 + dx
		for _, c := range "Total 12" {
			gs = append(gs, Glyph{Text: string(c), Box: Rect{x, 700, x + 5, 710}, Size: 10, Upright: true})
			x += 5
		}
	}
	var got []string
	for _, w := range Words(gs) {
		got = append(got, w.Text)
	}
	if strings.Join(got, " ") != "Total 12" {
		t.Errorf("words %q", got)
	}
}

// TestManyBlocksAmongManyRules: thousands of two-phrase lines, each a block of its own, on a
// page of a hundred thousand horizontal rules (each block looks for a ruled head above it):
// under 2 s.
func TestManyBlocksAmongManyRules(t *testing.T) {
	var ws []Word
	for i := range 3000 {
		ws = append(ws, row(float64(i)*40, []float64{100, 300}, "Lake", "River")...)
	}
	segs := make([]Segment, 0, 100000)
	for i := range 100000 {
		y := float64(i) * 1.2
		segs = append(segs, hseg(y, 90, 400))
	}
	start := time.Now()
	find(t, &Page{Width: 612, Height: 130000, Words: ws, Segments: segs})
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("3,000 blocks among 100,000 rules took %v", el)
	}
}
