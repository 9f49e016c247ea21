package scan

import (
	"image"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

// page draws, left of each of n text lines, a mark w×h pixels wide and tall, and returns the
// page and Tesseract-like words for the lines (the marks themselves unread).
func markedPage(n, w, h int) (*image.Gray, []Word) {
	img := image.NewGray(image.Rect(0, 0, 600, 40+30*n))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	var words []Word
	for i := range n {
		y := 20 + 30*i
		for dy := range h {
			for dx := range w {
				img.Pix[(y+2+dy)*img.Stride+82+dx] = 90
			}
		}
		words = append(words,
			Word{Text: "x", Conf: 90, Box: image.Rect(100, y, 140, y+12), Block: 1, Par: 1, Line: i + 1, Order: 2 * i},
			Word{Text: "y", Conf: 90, Box: image.Rect(150, y, 170, y+12), Block: 1, Par: 1, Line: i + 1, Order: 2*i + 1})
	}
	return img, words
}

func TestNumberedLinesAreItems(t *testing.T) {
	img, words := markedPage(4, 4, 7)
	rs := HiResRegions(words, img, false, nil, nil)
	if len(rs) != 4 {
		t.Fatalf("%d regions, want one per numbered line: %+v", len(rs), rs)
	}
	for _, r := range rs {
		if r.Type != element.ListItem || r.Text != "x y" {
			t.Errorf("%s %q, want ListItem %q", r.Type, r.Text, "x y")
		}
	}
}

func TestBulletMarksAndShortRunsAreNotNumbers(t *testing.T) {
	img, words := markedPage(4, 6, 6) // round/square marks: bullets stay in body text
	for _, r := range HiResRegions(words, img, false, nil, nil) {
		if r.Type == element.ListItem {
			t.Errorf("bulleted line %q became a ListItem", r.Text)
		}
	}
	img, words = markedPage(2, 4, 7) // two numbered lines are not yet a listing
	for _, r := range HiResRegions(words, img, false, nil, nil) {
		if r.Type == element.ListItem {
			t.Errorf("line %q of a two-line run became a ListItem", r.Text)
		}
	}
}
