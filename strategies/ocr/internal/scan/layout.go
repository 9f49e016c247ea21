package scan

import (
	"image"
	"regexp"
	"sort"
	"strings"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/element"
)

// Region is one element-to-be on a page, in pixel space.
type Region struct {
	Type      element.Type
	Text      string
	Box       image.Rectangle
	order     int // position in Tesseract's reading order
	item      bool
	HTML      string
	Extracted string
	lines     int
}

// line is one Tesseract text line with its text (OCR, or the PDF text layer's).
type line struct {
	words     []Word
	text      string
	box       image.Rectangle
	extracted bool
	item      bool // a line after a margin mark: a list item of its own
}

// LayerFunc returns the PDF text layer's text inside a pixel box ("" when there is none).
type LayerFunc func(image.Rectangle) string

// paragraphs groups words by Tesseract's (block, paragraph), in its reading order, and splits
// a paragraph further where its lines say a new one starts. Lines are joined by spaces.
func paragraphs(words []Word) []Region {
	return splitParagraphs(toLines(words, nil))
}

// toLines cuts words into Tesseract's lines and takes each line's text from the text layer
// when it has about as much text as Tesseract saw there.
func toLines(words []Word, layer LayerFunc) []line {
	var out []line
	for i := 0; i < len(words); {
		j := i + 1
		for j < len(words) && words[j].Block == words[i].Block && words[j].Par == words[i].Par && words[j].Line == words[i].Line {
			j++
		}
		for _, frag := range fragments(words[i:j]) {
			out = append(out, newLine(frag, layer))
		}
		i = j
	}
	return out
}

// fragments cuts a line where a gap is wider than 1.4 times its text height: Tesseract sometimes
// runs a line across two columns.
func fragments(ws []Word) [][]Word {
	h := lineHeight(ws)
	ws = append([]Word(nil), ws...)
	sort.SliceStable(ws, func(a, b int) bool { return ws[a].Box.Min.X < ws[b].Box.Min.X })
	var out [][]Word
	start := 0
	for k := 1; k < len(ws); k++ {
		// A lone mark before the gap (a bullet, an item or section number) is not a column.
		if k-start == 1 && (len([]rune(ws[start].Text)) <= 2 || sectionRE.MatchString(ws[start].Text)) {
			continue
		}
		if 10*(ws[k].Box.Min.X-ws[k-1].Box.Max.X) > 14*h {
			out = append(out, ws[start:k])
			start = k
		}
	}
	return append(out, ws[start:])
}

func newLine(ws []Word, layer LayerFunc) line {
	{
		l := line{words: ws, text: joinWords(ws), box: unionBoxes(ws)}
		if layer != nil {
			if t := layer(l.box); t != "" {
				ratio := float64(len(t)) / float64(max(len(l.text), 1))
				if ratio > 0.6 && ratio < 1.6 {
					l.text, l.extracted = t, true
				}
			}
		}
		return l
	}
}

// splitParagraphs groups lines into paragraph regions, in order.
func splitParagraphs(lines []line) []Region {
	var out []Region
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && sameParagraph(lines[j-1], lines[j]) {
			j++
		}
		r := Region{order: lines[i].words[0].Order, Box: lines[i].box}
		var parts []string
		ext := 0
		for _, l := range lines[i:j] {
			parts = append(parts, l.text)
			r.Box = r.Box.Union(l.box)
			if l.extracted {
				ext++
			}
		}
		r.Text = strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
		r.lines = j - i
		r.item = lines[i].item
		switch {
		case ext == j-i:
			r.Extracted = "true"
		case ext > 0:
			r.Extracted = "partial"
		}
		if r.Text != "" {
			out = append(out, r)
		}
		i = j
	}
	return out
}

func sameParagraph(a, b line) bool {
	wa, wb := a.words[0], b.words[0]
	if wa.Block != wb.Block || wa.Par != wb.Par || a.item || b.item {
		return false
	}
	if a.box.Max.X < b.box.Min.X || b.box.Max.X < a.box.Min.X {
		return false // side by side: two columns
	}
	return !breakBetween(a.words, b.words) && !startsItem(b)
}

// startsItem reports whether a line begins a list item: a bullet character, or a lone mark
// Tesseract read for a bullet glyph ("e", "o", "°"…) set apart from the text after it.
func startsItem(l line) bool {
	if classify.IsBulleted(l.text) {
		return true
	}
	if len(l.words) < 2 {
		return false
	}
	first, next := l.words[0], l.words[1]
	if len([]rune(first.Text)) != 1 || !strings.ContainsAny(first.Text, "eo°«©*•●·-–") {
		return false
	}
	return float64(next.Box.Min.X-first.Box.Max.X) >= 0.8*float64(lineHeight(l.words))
}

// lineHeight is the median word height of a line (robust to descenders and stray marks).
func lineHeight(l []Word) int {
	hs := make([]int, len(l))
	for i, w := range l {
		hs[i] = w.Box.Dy()
	}
	sort.Ints(hs)
	return max(hs[len(hs)/2], 1)
}

func breakBetween(a, b []Word) bool {
	ba, bb := unionBoxes(a), unionBoxes(b)
	ha, hb := lineHeight(a), lineHeight(b)
	if float64(bb.Min.Y-ba.Max.Y) > 0.9*float64(max(ha, hb)) {
		return true
	}
	ratio := float64(ha) / float64(hb)
	return ratio > 1.3 || ratio < 1/1.3
}

func joinWords(ws []Word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.Text
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

func unionBoxes(ws []Word) image.Rectangle {
	var r image.Rectangle
	for i, w := range ws {
		if i == 0 {
			r = w.Box
		} else {
			r = r.Union(w.Box)
		}
	}
	return r
}

// OCROnlyRegions are the ocr_only elements: text regions in Tesseract's order, classified by
// the text rules (partition-api.md §7.4, §8).
func OCROnlyRegions(words []Word) []Region {
	var out []Region
	for _, r := range paragraphs(words) {
		typ, text := classify.Text(r.Text)
		if strings.TrimSpace(text) == "" {
			continue
		}
		r.Type, r.Text = typ, text
		out = append(out, r)
	}
	return out
}

var sectionRE = regexp.MustCompile(`^\d+(\.\d+)*\.?$`)

var captionRE = regexp.MustCompile(`^(?i)(figure|fig\.|table|tab\.)\s*[0-9IVX]+[.:]?`)

// hiResType types a text region the way a layout model labels it: position bands for page
// headers and footers, captions by their label, titles by the title rules on short blocks,
// body text otherwise. Bullets and list numbers stay in the text of a narrative block, as the
// reference's layout model leaves them.
func hiResType(text string, lines int, box image.Rectangle, page image.Rectangle) element.Type {
	h := float64(page.Dy())
	cy := float64(box.Min.Y+box.Max.Y) / 2
	digits := strings.Trim(text, "0123456789 -–") == ""
	if cy < 0.05*h || cy > 0.95*h {
		switch {
		case digits:
			return element.PageNumber
		case cy < 0.05*h && lines <= 2:
			return element.Header
		case cy > 0.95*h && lines <= 2:
			return element.Footer
		}
	}
	if captionRE.MatchString(text) {
		return element.FigureCaption
	}
	typ, _ := classify.Text(text)
	switch {
	case typ == element.Title && lines <= 2:
		return element.Title
	case typ == element.UncategorizedText && len(strings.Fields(text)) < 3:
		// Fragments stay uncategorised; longer text a layout model calls body text.
		return element.UncategorizedText
	}
	return element.NarrativeText
}

// HiResRegions builds the hi_res elements of one page: images, tables (from word alignment),
// then text regions typed by hiResType, in Tesseract's reading order.
func HiResRegions(words []Word, img *image.Gray, tables bool, layer LayerFunc, ruled []RuledTable) []Region {
	page := img.Bounds()
	used := make([]bool, len(words))
	var out []Region
	for _, ir := range detectImages(img, words) {
		var in []Word
		for i, w := range words {
			if !used[i] && centerIn(w.Box, ir) {
				used[i] = true
				in = append(in, w)
			}
		}
		order := len(words)
		if len(in) > 0 {
			order = in[0].Order
		}
		out = append(out, Region{Type: element.Image, Text: joinWords(in), Box: ir, order: order})
	}
	for _, rt := range ruled {
		order := len(words)
		for i, w := range words {
			if !used[i] && centerIn(w.Box, rt.frame) {
				used[i] = true
				order = min(order, w.Order)
			}
		}
		out = append(out, rt.region(order))
	}
	for _, t := range detectTables(words, used) {
		if !tables {
			t.HTML = ""
		}
		out = append(out, t)
	}
	var rest []Word
	for i, w := range words {
		// Ruling read as characters outside any table is noise, not text.
		if !used[i] && !isRule(w.Text) {
			rest = append(rest, w)
		}
	}
	lines, marked := markedLines(toLines(rest, layer), img)
	for i := range lines {
		lines[i].item = marked[i]
	}
	// One XY-cut over text lines and the image and table regions gives the reading order;
	// paragraphs are then runs of lines in that order.
	special := out
	boxes := make([]image.Rectangle, 0, len(lines)+len(special))
	for _, l := range lines {
		boxes = append(boxes, l.box)
	}
	for _, r := range special {
		boxes = append(boxes, r.Box)
	}
	var sorted []Region
	var run []line
	flush := func() {
		for _, r := range splitParagraphs(run) {
			r.Type = hiResType(r.Text, r.lines, r.Box, page)
			if r.item {
				r.Type = element.ListItem
			}
			if r.Extracted == "" {
				r.Extracted = "false"
			}
			sorted = append(sorted, r)
		}
		run = run[:0]
	}
	for _, i := range xyCut(boxes, gutter(lines)) {
		if i < len(lines) {
			run = append(run, lines[i])
			continue
		}
		flush()
		sorted = append(sorted, special[i-len(lines)])
	}
	flush()
	return sorted
}

// gutter is the narrowest gap that separates columns: 1.2 times the typical text height.
func gutter(lines []line) int {
	hs := make([]int, 0, len(lines))
	for _, l := range lines {
		hs = append(hs, lineHeight(l.words))
	}
	if len(hs) == 0 {
		return 20
	}
	sort.Ints(hs)
	return max(hs[len(hs)/2]*6/5, 8)
}

func centerIn(b, r image.Rectangle) bool {
	return image.Pt((b.Min.X+b.Max.X)/2, (b.Min.Y+b.Max.Y)/2).In(r)
}

// detectImages finds pictures: large, dense areas of ink that no confident word covers.
func detectImages(img *image.Gray, words []Word) []image.Rectangle {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	cell := max(8, min(w, h)/100)
	gw, gh := (w+cell-1)/cell, (h+cell-1)/cell
	ink := make([]bool, gw*gh)
	for gy := range gh {
		for gx := range gw {
			x0, y0 := gx*cell, gy*cell
			x1, y1 := min(x0+cell, w), min(y0+cell, h)
			var sum, sq, n float64
			for y := y0; y < y1; y += 2 {
				row := img.Pix[(y)*img.Stride:]
				for x := x0; x < x1; x += 2 {
					v := float64(row[x])
					sum += v
					sq += v * v
					n++
				}
			}
			if n == 0 {
				continue
			}
			mean := sum / n
			vari := sq/n - mean*mean
			// Texture, not tone: a flat tinted background (a table header) is not a picture.
			ink[gy*gw+gx] = mean < 80 || vari > 1600
		}
	}
	// Text is not a picture: clear the cells under confident words.
	for _, wd := range words {
		if wd.Conf < 60 {
			continue
		}
		r := wd.Box.Inset(-cell / 2)
		for gy := max(r.Min.Y/cell, 0); gy <= min(r.Max.Y/cell, gh-1); gy++ {
			for gx := max(r.Min.X/cell, 0); gx <= min(r.Max.X/cell, gw-1); gx++ {
				ink[gy*gw+gx] = false
			}
		}
	}
	seen := make([]bool, len(ink))
	var out []image.Rectangle
	var stack []int
	for start := range ink {
		if !ink[start] || seen[start] {
			continue
		}
		seen[start] = true
		stack = append(stack[:0], start)
		minX, minY, maxX, maxY, count := gw, gh, 0, 0, 0
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			cx, cy := c%gw, c/gw
			count++
			minX, minY, maxX, maxY = min(minX, cx), min(minY, cy), max(maxX, cx), max(maxY, cy)
			for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				nx, ny := cx+d[0], cy+d[1]
				if nx < 0 || ny < 0 || nx >= gw || ny >= gh {
					continue
				}
				if n := ny*gw + nx; ink[n] && !seen[n] {
					seen[n] = true
					stack = append(stack, n)
				}
			}
		}
		bw, bh := maxX-minX+1, maxY-minY+1
		area := bw * bh
		if bw < 6 || bh < 6 || float64(area) < 0.015*float64(gw*gh) || float64(count) < 0.4*float64(area) {
			continue
		}
		out = append(out, image.Rect(minX*cell, minY*cell, min((maxX+1)*cell, w), min((maxY+1)*cell, h)))
	}
	return mergeTouching(out, cell)
}

// mergeTouching unions boxes that overlap or come within gap of each other, until none do:
// a photograph's flat areas (sky, a wall) cut its ink into pieces that are one picture.
func mergeTouching(boxes []image.Rectangle, gap int) []image.Rectangle {
	for merged := true; merged; {
		merged = false
		for i := 0; i < len(boxes) && !merged; i++ {
			for j := i + 1; j < len(boxes); j++ {
				if boxes[i].Inset(-gap).Overlaps(boxes[j]) {
					boxes[i] = boxes[i].Union(boxes[j])
					boxes = append(boxes[:j], boxes[j+1:]...)
					merged = true
					break
				}
			}
		}
	}
	return boxes
}
