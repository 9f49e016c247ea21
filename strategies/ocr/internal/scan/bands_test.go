package scan

import (
	"image"
	"testing"
)

// stripes is a white w×h page with dark rows where lines[y] is set.
func stripes(w, h int, dark func(y int) bool) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		v := uint8(255)
		if dark(y) {
			v = 20
		}
		for x := range w {
			img.Pix[y*img.Stride+x] = v
		}
	}
	return img
}

// checkCover fails unless bands cover page from top to bottom, full width, without gaps.
func checkCover(t *testing.T, page image.Rectangle, bands []image.Rectangle) {
	t.Helper()
	y := page.Min.Y
	for i, b := range bands {
		if b.Min.X != page.Min.X || b.Max.X != page.Max.X || b.Min.Y != y || b.Dy() <= 0 {
			t.Fatalf("band %d = %v after y=%d on page %v", i, b, y, page)
		}
		y = b.Max.Y
	}
	if y != page.Max.Y {
		t.Fatalf("bands end at %d, page at %d", y, page.Max.Y)
	}
}

func TestBandsCutAtBlankRows(t *testing.T) {
	// Text lines 30 rows high every 50 rows, and a paragraph gap of 80 rows every 8 lines.
	lineAt := func(y int) bool {
		p := y % 480 // 8 lines × 50 + 80
		return p < 400 && p%50 < 30
	}
	page := stripes(400, 5000, lineAt)
	const rows = 1000
	bands := Bands(page, rows)
	checkCover(t, page.Bounds(), bands)
	if len(bands) < 4 {
		t.Fatalf("%d bands for 5000 rows of at most %d", len(bands), rows)
	}
	for i, b := range bands {
		if i > 0 && lineAt(b.Min.Y) && lineAt(b.Min.Y-1) {
			t.Errorf("band %d starts inside a text line (y=%d)", i, b.Min.Y)
		}
		if i < len(bands)-1 {
			if b.Dy() > rows || b.Dy() < rows/2 {
				t.Errorf("band %d is %d rows, want %d..%d", i, b.Dy(), rows/2, rows)
			}
			// Where a paragraph gap is in reach, the cut is in one, not between two lines.
			if p := b.Max.Y % 480; p < 400 {
				t.Errorf("band %d ends at y=%d, between lines rather than in a paragraph gap", i, b.Max.Y)
			}
		}
	}
}

func TestBandsSmallPageIsWhole(t *testing.T) {
	page := stripes(300, 1400, func(y int) bool { return y%40 < 20 })
	if bands := Bands(page, 1000); len(bands) != 1 || bands[0] != page.Bounds() {
		t.Errorf("bands = %v, want the page whole", bands)
	}
	if bands := Bands(page, 0); len(bands) != 1 {
		t.Errorf("rows 0: bands = %v", bands)
	}
	// A sub-image keeps its own coordinates.
	sub := stripes(300, 3000, func(y int) bool { return y%40 < 20 }).SubImage(image.Rect(10, 100, 290, 2900)).(*image.Gray)
	checkCover(t, sub.Bounds(), Bands(sub, 500))
}

// A page without a single blank row (a full-height rule in the margin, scanner noise) is cut
// at its least-inked rows.
func TestBandsWithoutBlankRows(t *testing.T) {
	page := stripes(200, 3000, func(y int) bool { return y%60 < 40 })
	for y := range 3000 {
		page.Pix[y*page.Stride+5] = 0 // a vertical rule down the margin
	}
	bands := Bands(page, 700)
	checkCover(t, page.Bounds(), bands)
	for _, b := range bands[1:] {
		if y := b.Min.Y; y%60 < 40 {
			t.Errorf("cut at y=%d goes through a text line", y)
		}
	}
	// rows of 1 still ends.
	if bands := Bands(stripes(4, 10, func(int) bool { return false }), 1); len(bands) < 2 {
		t.Errorf("rows 1: %d bands", len(bands))
	}
}

func TestAppendBand(t *testing.T) {
	first := []Word{
		{Text: "a", Box: image.Rect(1, 2, 3, 4), Block: 1, Par: 1, Line: 1, Order: 0},
		{Text: "b", Box: image.Rect(5, 2, 9, 4), Block: 2, Par: 1, Line: 1, Order: 1},
	}
	second := []Word{
		{Text: "c", Box: image.Rect(1, 2, 3, 4), Block: 1, Par: 2, Line: 3, Order: 0},
		{Text: "d", Box: image.Rect(0, 0, 7, 5), Block: 2, Par: 1, Line: 1, Order: 1},
	}
	page := AppendBand(nil, first, image.Point{})
	page = AppendBand(page, second, image.Pt(0, 100))
	want := []Word{
		first[0], first[1],
		{Text: "c", Box: image.Rect(1, 102, 3, 104), Block: 3, Par: 2, Line: 3, Order: 2},
		{Text: "d", Box: image.Rect(0, 100, 7, 105), Block: 4, Par: 1, Line: 1, Order: 3},
	}
	if len(page) != len(want) {
		t.Fatalf("got %d words", len(page))
	}
	for i := range want {
		if page[i] != want[i] {
			t.Errorf("word %d = %+v, want %+v", i, page[i], want[i])
		}
	}
	if second[0].Box.Min.Y != 2 {
		t.Error("the band's own words were changed")
	}
}
