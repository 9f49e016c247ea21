package tables

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Synthetic pages: words are placed with a fixed advance of half the font size per
// character, the way a Helvetica-like face sets digits and lower case on average.

const fs = 10.0 // font size of the fixtures

func word(text string, x, y float64) Word {
	return Word{Text: text, Box: Rect{x, y, x + 0.5*fs*float64(len([]rune(text))), y + fs}, Size: fs}
}

// phrase places the words of s from x on baseline y, a space (a quarter em) apart.
func phrase(s string, x, y float64) []Word {
	var out []Word
	for _, f := range strings.Fields(s) {
		w := word(f, x, y)
		out = append(out, w)
		x = w.Box.X1 + 0.25*fs
	}
	return out
}

// row places cells at the given column x positions on baseline y.
func row(y float64, xs []float64, cells ...string) []Word {
	var out []Word
	for i, c := range cells {
		if c != "" {
			out = append(out, phrase(c, xs[i], y)...)
		}
	}
	return out
}

func hseg(y, x0, x1 float64) Segment { return Segment{X0: x0, Y0: y, X1: x1, Y1: y, Width: 0.5} }
func vseg(x, y0, y1 float64) Segment { return Segment{X0: x, Y0: y0, X1: x, Y1: y1, Width: 0.5} }

func find(t *testing.T, p *Page) []Table {
	t.Helper()
	if p.Width == 0 {
		p.Width, p.Height = 612, 792
	}
	ts, err := Find(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func gridOf(t Table) [][]string {
	g := t.Grid()
	for _, r := range g {
		for i := range r {
			r[i] = strings.Join(strings.Fields(r[i]), " ")
		}
	}
	return g
}

func sameGrid(t *testing.T, got Table, want [][]string) {
	t.Helper()
	g := gridOf(got)
	if len(g) != len(want) {
		t.Fatalf("rows %d, want %d: %q", len(g), len(want), g)
	}
	for i := range want {
		if strings.Join(g[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q, want %q", i, g[i], want[i])
		}
	}
}

// paragraph lays out running text: lines of about width points from x, leading 1.2 em.
func paragraph(text string, x, y, width float64) ([]Word, float64) {
	var out []Word
	cx := x
	for _, f := range strings.Fields(text) {
		w := word(f, cx, y)
		if w.Box.X1 > x+width && cx > x {
			y -= 1.2 * fs
			cx = x
			w = word(f, cx, y)
		}
		out = append(out, w)
		cx = w.Box.X1 + 0.25*fs
	}
	return out, y - 1.2*fs
}

const lorem = "The committee reviewed the annual figures and found that the results of the " +
	"regional offices were broadly in line with the plan, although the northern division " +
	"reported lower sales in the second half of the year because of the weather and the " +
	"delayed opening of two new stores, which are now expected to open in the spring."

func TestRuledGridWithSpans(t *testing.T) {
	// Columns at 100, 200, 300, 400; rows at 700, 680, 660, 640. "Name" spans the two
	// header rows (no rule between them in column 0), "Results" spans columns 1 and 2 (no
	// rule between them in row 0).
	xs := []float64{100, 200, 300, 400}
	ys := []float64{700, 680, 660, 640}
	var segs []Segment
	segs = append(segs, hseg(700, 100, 400), hseg(640, 100, 400), hseg(660, 100, 400))
	segs = append(segs, hseg(680, 200, 400)) // not under "Name"
	segs = append(segs, vseg(100, 640, 700), vseg(400, 640, 700), vseg(200, 640, 700))
	segs = append(segs, vseg(300, 640, 680)) // not inside "Results"
	var ws []Word
	ws = append(ws, phrase("Name", xs[0]+4, 675)...)
	ws = append(ws, phrase("Results", xs[1]+4, ys[1]+5)...)
	ws = append(ws, phrase("A", xs[1]+4, ys[2]+5)...)
	ws = append(ws, phrase("B", xs[2]+4, ys[2]+5)...)
	ws = append(ws, phrase("Ann", xs[0]+4, ys[3]+5)...)
	ws = append(ws, phrase("1", xs[1]+4, ys[3]+5)...)
	ws = append(ws, phrase("2", xs[2]+4, ys[3]+5)...)
	ts := find(t, &Page{Words: ws, Segments: segs})
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	tb := ts[0]
	if tb.Kind != Ruled || tb.Rows != 3 || tb.Cols != 3 {
		t.Fatalf("kind %v %dx%d", tb.Kind, tb.Rows, tb.Cols)
	}
	sameGrid(t, tb, [][]string{{"Name", "Results", ""}, {"", "A", "B"}, {"Ann", "1", "2"}})
	want := `<table><tbody><tr><td rowspan="2">Name</td><td colspan="2">Results</td></tr><tr><td>A</td><td>B</td></tr><tr><td>Ann</td><td>1</td><td>2</td></tr></tbody></table>`
	if got := tb.HTML(); got != want {
		t.Errorf("HTML\n got %s\nwant %s", got, want)
	}
	if len(tb.Words) != len(ws) {
		t.Errorf("consumed %d of %d words", len(tb.Words), len(ws))
	}
	if tb.Box != (Rect{100, 640, 400, 700}) {
		t.Errorf("box %+v", tb.Box)
	}
}

// borderlessPage is a page of text with a borderless table between two paragraphs: a
// two-line header, a label that wraps, figures right-aligned.
func borderlessPage() (*Page, [][]string) {
	var ws []Word
	para, y := paragraph(lorem, 72, 740, 460)
	ws = append(ws, para...)
	y -= 2 * fs
	xs := []float64{72, 250, 340, 430}
	ws = append(ws, row(y, xs, "", "Revenue", "Cost", "Margin")...)
	y -= 1.2 * fs
	ws = append(ws, row(y, xs, "", "(EUR m)", "(EUR m)", "(%)")...)
	y -= 1.6 * fs
	data := [][]string{
		{"Northern division", "1 204.5", "980.1", "18.6"},
		{"Southern division", "2 311.0", "1 802.4", "22.0"},
		{"Eastern and central", "877.3", "701.9", "20.0"},
		{"Western division", "1 020.8", "850.2", "16.7"},
	}
	for i, d := range data {
		ws = append(ws, row(y, xs, d...)...)
		if i == 2 {
			y -= 1.2 * fs
			ws = append(ws, phrase("regions", 72, y)...)
		}
		y -= 1.5 * fs
	}
	y -= 2 * fs
	para, _ = paragraph(lorem, 72, y, 460)
	ws = append(ws, para...)
	want := [][]string{
		{"", "Revenue (EUR m)", "Cost (EUR m)", "Margin (%)"},
		{"Northern division", "1 204.5", "980.1", "18.6"},
		{"Southern division", "2 311.0", "1 802.4", "22.0"},
		{"Eastern and central regions", "877.3", "701.9", "20.0"},
		{"Western division", "1 020.8", "850.2", "16.7"},
	}
	return &Page{Words: ws}, want
}

func TestBorderlessTableBetweenParagraphs(t *testing.T) {
	p, want := borderlessPage()
	ts := find(t, p)
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	tb := ts[0]
	if tb.Kind != Borderless || tb.HeaderRows != 1 {
		t.Errorf("kind %v, header rows %d", tb.Kind, tb.HeaderRows)
	}
	sameGrid(t, tb, want)
	if !strings.HasPrefix(tb.HTML(), "<table><thead><tr><th></th><th>Revenue (EUR m)</th>") {
		t.Errorf("HTML %s", tb.HTML())
	}
	// The paragraphs stay in the text flow.
	consumed := map[int]bool{}
	for _, i := range tb.Words {
		consumed[i] = true
	}
	for i, w := range p.Words {
		if w.Text == "committee" && consumed[i] {
			t.Error("a paragraph word was consumed by the table")
		}
	}
}

func TestPartlyRuledTable(t *testing.T) {
	// Booktabs: a rule above the header, one under it, one under the last row.
	xs := []float64{100, 260, 360}
	var ws []Word
	ws = append(ws, row(700, xs, "Item", "2023", "2022")...)
	ws = append(ws, row(682, xs, "Cash", "1 200", "1 100")...)
	ws = append(ws, row(668, xs, "Receivables", "3 400", "2 950")...)
	ws = append(ws, row(654, xs, "Inventories", "870", "910")...)
	ws = append(ws, row(636, xs, "Total", "5 470", "4 960")...)
	segs := []Segment{hseg(714, 95, 410), hseg(694, 95, 410), hseg(649, 95, 410), hseg(630, 95, 410)}
	ts := find(t, &Page{Words: ws, Segments: segs})
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	tb := ts[0]
	if tb.Kind != PartlyRuled {
		t.Errorf("kind %v", tb.Kind)
	}
	sameGrid(t, tb, [][]string{{"Item", "2023", "2022"}, {"Cash", "1 200", "1 100"}, {"Receivables", "3 400", "2 950"}, {"Inventories", "870", "910"}, {"Total", "5 470", "4 960"}})
	if tb.Box.Y1 < 714 || tb.Box.Y0 > 630 {
		t.Errorf("box %+v does not reach the rules", tb.Box)
	}
}

func TestNoTableInProseListsOrColumns(t *testing.T) {
	t.Run("plain text", func(t *testing.T) {
		var ws []Word
		y := 740.0
		for range 4 {
			var p []Word
			p, y = paragraph(lorem, 72, y, 460)
			ws = append(ws, p...)
			y -= fs
		}
		if ts := find(t, &Page{Words: ws}); len(ts) != 0 {
			t.Errorf("%d tables in plain text: %q", len(ts), gridOf(ts[0]))
		}
	})
	t.Run("two columns", func(t *testing.T) {
		var ws []Word
		for _, x := range []float64{72, 320} {
			y := 740.0
			for range 5 {
				var p []Word
				p, y = paragraph(lorem, x, y, 220)
				ws = append(ws, p...)
				y -= fs
			}
		}
		if ts := find(t, &Page{Words: ws}); len(ts) != 0 {
			t.Errorf("%d tables in two-column prose: %q", len(ts), gridOf(ts[0]))
		}
	})
	t.Run("bulleted and numbered lists", func(t *testing.T) {
		var ws []Word
		y := 740.0
		for _, m := range []string{"•", "•", "•", "1.", "2.", "3.", "4."} {
			ws = append(ws, word(m, 80, y))
			var p []Word
			p, y = paragraph(lorem[:90], 100, y, 400)
			ws = append(ws, p...)
			y -= 0.5 * fs
		}
		if ts := find(t, &Page{Words: ws}); len(ts) != 0 {
			t.Errorf("%d tables in a list: %q", len(ts), gridOf(ts[0]))
		}
	})
	t.Run("chart labels", func(t *testing.T) {
		// Axis ticks and a legend over a drawing of many slanted strokes.
		var ws []Word
		var drawing []Rect
		for i := range 6 {
			y := 700 - 30*float64(i)
			ws = append(ws, row(y, []float64{80, 480}, []string{"500", "400", "300", "200", "100", "0"}[i], "")...)
		}
		ws = append(ws, row(500, []float64{100, 180, 260, 340, 420}, "2019", "2020", "2021", "2022", "2023")...)
		for i := range 200 {
			x := 100 + 1.5*float64(i)
			drawing = append(drawing, Rect{x, 550 + 50*math.Sin(float64(i)/10), x + 1.5, 552 + 50*math.Sin(float64(i)/10)})
		}
		if ts := find(t, &Page{Words: ws, Drawing: drawing}); len(ts) != 0 {
			t.Errorf("%d tables in a chart: %q", len(ts), gridOf(ts[0]))
		}
	})
	t.Run("chart frame with gridlines", func(t *testing.T) {
		// A chart drawn with straight lines only: a frame, a y axis and gridlines, the tick
		// labels left of the axis, one legend entry inside.
		segs := []Segment{hseg(720, 60, 500), hseg(500, 60, 500), vseg(60, 500, 720), vseg(500, 500, 720), vseg(100, 500, 720)}
		var ws []Word
		for i := range 5 {
			y := 520 + 40*float64(i)
			segs = append(segs, hseg(y, 60, 500))
			ws = append(ws, word(fmt.Sprint(100*i), 70, y-4))
		}
		ws = append(ws, phrase("Sales per region", 300, 690)...)
		if ts := find(t, &Page{Words: ws, Segments: segs}); len(ts) != 0 {
			t.Errorf("%d tables in a chart frame: %q", len(ts), gridOf(ts[0]))
		}
	})
	t.Run("organisation chart", func(t *testing.T) {
		// Names in framed boxes, three by three, aligned like a grid but not touching.
		var ws []Word
		var segs []Segment
		for r := range 3 {
			for c := range 3 {
				x0, y1 := 80+170*float64(c), 700-45*float64(r)
				segs = append(segs, hseg(y1, x0, x0+140), hseg(y1-40, x0, x0+140), vseg(x0, y1-40, y1), vseg(x0+140, y1-40, y1))
				ws = append(ws, phrase(fmt.Sprintf("Office %d%d", r, c), x0+8, y1-16)...)
				ws = append(ws, phrase("Director", x0+8, y1-30)...)
			}
		}
		if ts := find(t, &Page{Words: ws, Segments: segs}); len(ts) != 0 {
			t.Errorf("%d tables in an organisation chart: %q", len(ts), gridOf(ts[0]))
		}
	})
	t.Run("a framed box of text", func(t *testing.T) {
		ws, _ := paragraph(lorem, 110, 700, 380)
		segs := []Segment{hseg(720, 100, 500), hseg(600, 100, 500), vseg(100, 600, 720), vseg(500, 600, 720)}
		if ts := find(t, &Page{Words: ws, Segments: segs}); len(ts) != 0 {
			t.Errorf("%d tables in a framed paragraph: %q", len(ts), gridOf(ts[0]))
		}
	})
}

func TestTableBesideProseColumn(t *testing.T) {
	// A two-column page: prose on the left, a table in the right column on the same
	// baselines as the prose lines.
	var ws []Word
	y := 740.0
	for range 3 {
		var p []Word
		p, y = paragraph(lorem, 72, y, 220)
		ws = append(ws, p...)
	}
	xs := []float64{320, 420, 480}
	ty := 740.0
	ws = append(ws, row(ty, xs, "Dataset", "Train", "Test")...)
	for _, r := range [][]string{{"Questions", "79 168", "3 610"}, {"Trivia", "78 785", "11 313"}, {"Web", "3 417", "2 032"}, {"Curated", "1 353", "694"}} {
		ty -= 1.2 * fs
		ws = append(ws, row(ty, xs, r...)...)
	}
	ts := find(t, &Page{Words: ws})
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	sameGrid(t, ts[0], [][]string{{"Dataset", "Train", "Test"}, {"Questions", "79 168", "3 610"}, {"Trivia", "78 785", "11 313"}, {"Web", "3 417", "2 032"}, {"Curated", "1 353", "694"}})
	if ts[0].Box.X0 < 300 {
		t.Errorf("the table took in the prose column: box %+v", ts[0].Box)
	}
}

func TestDigitGroup(t *testing.T) {
	for _, tc := range []struct {
		l, r string
		want bool
	}{
		{"1", "204.5", true}, {"12", "000", true}, {"-3", "100,25", true}, {"€1", "200", true}, {"2", "500%", true},
		{"1204", "500", false}, {"1", "20", false}, {"1", "2000", false}, {"Total", "100", false}, {"1", "20a", false}, {"", "100", false},
	} {
		if got := digitGroup(tc.l, tc.r); got != tc.want {
			t.Errorf("digitGroup(%q, %q) = %v", tc.l, tc.r, got)
		}
	}
}

func TestRuledCellBoxes(t *testing.T) {
	p, _ := ruledFixture()
	ts := find(t, p)
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	for _, c := range ts[0].Cells {
		want := Rect{100 + 100*float64(c.Col), 680 - 20*float64(c.Row), 200 + 100*float64(c.Col), 700 - 20*float64(c.Row)}
		if c.Box != want {
			t.Errorf("cell %d,%d box %+v, want %+v", c.Row, c.Col, c.Box, want)
		}
	}
}

func TestShadedCellsAreATable(t *testing.T) {
	// Every cell painted with its own light fill, side by side, as financial filings do: a
	// table, not boxes of a diagram.
	xs := []float64{72, 250, 340}
	var ws []Word
	var rects []Rect
	rows := [][]string{{"Item", "2023", "2022"}, {"Cash", "1 200", "1 100"}, {"Receivables", "3 400", "2 950"}, {"Inventories", "870", "910"}, {"Total", "5 470", "4 960"}}
	for r, cells := range rows {
		y := 700 - 16*float64(r)
		ws = append(ws, row(y, xs, cells...)...)
		for c := range xs {
			x1 := 420.0
			if c+1 < len(xs) {
				x1 = xs[c+1] - 2
			}
			rects = append(rects, Rect{xs[c] - 2, y - 3, x1, y + 12})
		}
	}
	ts := find(t, &Page{Words: ws, Rects: rects})
	if len(ts) != 1 {
		t.Fatalf("%d tables", len(ts))
	}
	sameGrid(t, ts[0], rows)
}
