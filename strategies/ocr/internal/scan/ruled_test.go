package scan

import (
	"image"
	"testing"
)

// drawGrid draws a 3-column, 3-row ruled table whose first row has a cell spanning the last two
// columns and whose first column's first two rows are one cell.
func drawGrid() *image.Gray {
	img := image.NewGray(image.Rect(0, 0, 700, 400))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	hline := func(y, x0, x1 int) {
		for x := x0; x <= x1; x++ {
			img.Pix[y*img.Stride+x], img.Pix[(y+1)*img.Stride+x] = 0, 0
		}
	}
	vline := func(x, y0, y1 int) {
		for y := y0; y <= y1; y++ {
			img.Pix[y*img.Stride+x], img.Pix[y*img.Stride+x+1] = 0, 0
		}
	}
	// Columns at 50 | 250 | 450 | 650; rows at 50 | 150 | 250 | 350.
	hline(50, 50, 651)
	hline(150, 250, 651) // not under the first column: rows 1-2 of column 0 are one cell
	hline(250, 50, 651)
	hline(350, 50, 651)
	vline(50, 50, 351)
	vline(250, 50, 351)
	vline(450, 150, 351) // not in the first row: columns 1-2 of row 0 are one cell
	vline(650, 50, 351)
	return img
}

func TestRuledGrid(t *testing.T) {
	_, mask := RemoveRules(drawGrid(), true)
	rt, ok := findRuledTable(mask, image.Rect(80, 180, 620, 330), 20)
	if !ok {
		t.Fatal("no grid found")
	}
	if rt.rows != 3 || rt.cols != 3 || !rt.frame.Eq(image.Rect(50, 50, 652, 352)) {
		t.Fatalf("grid %dx%d frame %v", rt.rows, rt.cols, rt.frame)
	}
	type span struct{ r0, r1, c0, c1 int }
	want := []span{{0, 2, 0, 1}, {0, 1, 1, 3}, {1, 2, 1, 2}, {1, 2, 2, 3}, {2, 3, 0, 1}, {2, 3, 1, 2}, {2, 3, 2, 3}}
	if len(rt.cells) != len(want) {
		t.Fatalf("%d cells, want %d: %+v", len(rt.cells), len(want), rt.cells)
	}
	for i, c := range rt.cells {
		if got := (span{c.r0, c.r1, c.c0, c.c1}); got != want[i] {
			t.Errorf("cell %d spans %+v, want %+v", i, got, want[i])
		}
	}
	rt.cells[1].words = []Word{{Text: "Results", Box: image.Rect(400, 80, 500, 100)}}
	rt.cells[0].words = []Word{{Text: "Name", Box: image.Rect(60, 140, 120, 160)}}
	rt.cells[2].words = []Word{{Text: "A", Box: image.Rect(300, 180, 320, 200)}}
	rg := rt.region(0)
	wantHTML := `<table><tr><td rowspan="2">Name</td><td colspan="2">Results</td></tr><tr><td>A</td><td/></tr><tr><td/><td/><td/></tr></table>`
	if rg.HTML != wantHTML {
		t.Errorf("html\n%s\nwant\n%s", rg.HTML, wantHTML)
	}
	if rg.Text != "Results Name A" {
		t.Errorf("text %q: words go by visual line", rg.Text)
	}
}

// A frame around prose is not a grid; nor is ruling far from the table's words.
func TestRuledGridRejects(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 700, 400))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for x := 50; x <= 650; x++ {
		img.Pix[50*img.Stride+x], img.Pix[350*img.Stride+x] = 0, 0
	}
	for y := 50; y <= 350; y++ {
		img.Pix[y*img.Stride+50], img.Pix[y*img.Stride+650] = 0, 0
	}
	_, mask := RemoveRules(img, true)
	if _, ok := findRuledTable(mask, image.Rect(80, 80, 620, 320), 20); ok {
		t.Error("a single box is not a grid")
	}
	_, mask = RemoveRules(drawGrid(), true)
	if _, ok := findRuledTable(mask, image.Rect(60, 370, 600, 399), 10); ok {
		t.Error("ruling outside the table's rows was taken")
	}
}

func TestMergeTouching(t *testing.T) {
	got := mergeTouching([]image.Rectangle{
		image.Rect(248, 0, 480, 320), image.Rect(0, 120, 264, 304), image.Rect(0, 312, 184, 360), image.Rect(600, 600, 700, 700),
	}, 8)
	want := []image.Rectangle{image.Rect(0, 0, 480, 360), image.Rect(600, 600, 700, 700)}
	if len(got) != len(want) || !got[0].Eq(want[0]) || !got[1].Eq(want[1]) {
		t.Errorf("merged %v, want %v", got, want)
	}
}
