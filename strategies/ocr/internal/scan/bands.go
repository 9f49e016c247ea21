package scan

import "image"

// Bands cuts a page into horizontal bands of about rows rows each, for reading a very large
// page a band at a time: Tesseract's working memory grows with the image it is given (its
// thresholded copy, connected components, blobs, words), so a 40-megapixel page of dense text
// read whole costs it more than the page itself. A cut is made where the page is blankest: in
// the second half of each band's span, the longest run of rows with the least ink (the gap
// between paragraphs rather than between lines, where there is a choice), cut at its middle,
// so a cut goes through no text on any ordinary page. A page of at most 1.5 × rows rows is one
// band. The bands cover the page from top to bottom without overlap.
func Bands(img *image.Gray, rows int) []image.Rectangle {
	b := img.Bounds()
	h := b.Dy()
	if rows <= 0 || h <= rows+rows/2 {
		return []image.Rectangle{b}
	}
	ink := rowInk(img)
	var out []image.Rectangle
	start := 0
	for h-start > rows+rows/2 {
		cut := blankestCut(ink, start+max(rows/2, 1), start+rows)
		out = append(out, image.Rect(b.Min.X, b.Min.Y+start, b.Max.X, b.Min.Y+cut))
		start = cut
	}
	return append(out, image.Rect(b.Min.X, b.Min.Y+start, b.Max.X, b.Max.Y))
}

// rowInk is the number of dark pixels (below mid-grey) in each row of img.
func rowInk(img *image.Gray) []int {
	b := img.Bounds()
	w := b.Dx()
	ink := make([]int, b.Dy())
	for y := range ink {
		row := img.Pix[y*img.Stride : y*img.Stride+w]
		n := 0
		for _, v := range row {
			if v < 128 {
				n++
			}
		}
		ink[y] = n
	}
	return ink
}

// blankestCut returns the middle of the longest run of least-inked rows in ink[from:to]. A
// row counts as least inked when it has at most the minimum plus a speck's worth (scanner
// noise on an otherwise blank row).
func blankestCut(ink []int, from, to int) int {
	least := ink[from]
	for _, v := range ink[from:to] {
		least = min(least, v)
	}
	limit := least + 2
	bestStart, bestLen := from, 0
	for y := from; y < to; {
		if ink[y] > limit {
			y++
			continue
		}
		s := y
		for y < to && ink[y] <= limit {
			y++
		}
		if y-s > bestLen {
			bestStart, bestLen = s, y-s
		}
	}
	return bestStart + bestLen/2
}

// AppendBand appends the words read from one band of a page to the page's words: boxes moved
// from the band's pixels to the page's by at (the band's top-left corner), blocks numbered on
// from the page's so that no block spans two bands, and the reading order continued.
func AppendBand(page, band []Word, at image.Point) []Word {
	blocks := 0
	for _, w := range page {
		blocks = max(blocks, w.Block)
	}
	order := len(page)
	for _, w := range band {
		w.Box = w.Box.Add(at)
		w.Block += blocks
		w.Order += order
		page = append(page, w)
	}
	return page
}
