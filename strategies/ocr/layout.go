package ocr

import (
	"image"
	"regexp"
	"sort"
	"strings"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/element"
)

// region is one element-to-be on a page, in pixel space.
type region struct {
	typ       element.Type
	text      string
	box       image.Rectangle
	order     int // position in Tesseract's reading order
	html      string
	extracted string
}

// paragraphs groups words by Tesseract's (block, paragraph), in its reading order; lines are
// joined by spaces.
func paragraphs(words []Word) []region {
	var out []region
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && words[j].Block == words[i].Block && words[j].Par == words[i].Par {
			j++
		}
		out = append(out, region{text: joinWords(words[i:j]), box: unionBoxes(words[i:j]), order: words[i].Order})
		i = j
	}
	return out
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

func lineCount(ws []Word) int {
	n := 0
	for i := range ws {
		if i == 0 || ws[i].Line != ws[i-1].Line || ws[i].Par != ws[i-1].Par || ws[i].Block != ws[i-1].Block {
			n++
		}
	}
	return n
}

// ocrOnlyRegions are the ocr_only elements: text regions in Tesseract's order, classified by
// the text rules (partition-api.md §7.4, §8).
func ocrOnlyRegions(words []Word) []region {
	var out []region
	for _, r := range paragraphs(words) {
		typ, text := classify.Text(r.text)
		if strings.TrimSpace(text) == "" {
			continue
		}
		r.typ, r.text = typ, text
		out = append(out, r)
	}
	return out
}

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
	case typ == element.UncategorizedText:
		return element.UncategorizedText
	}
	return element.NarrativeText
}

// hiResRegions builds the hi_res elements of one page: images, tables (from word alignment),
// then text regions typed by hiResType, in Tesseract's reading order.
func hiResRegions(words []Word, img *image.Gray, tables bool) []region {
	page := img.Bounds()
	used := make([]bool, len(words))
	var out []region
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
		out = append(out, region{typ: element.Image, text: joinWords(in), box: ir, order: order})
	}
	for _, t := range detectTables(words, used) {
		if !tables {
			t.html = ""
		}
		out = append(out, t)
	}
	var rest []Word
	for i, w := range words {
		if !used[i] {
			rest = append(rest, w)
		}
	}
	for i := 0; i < len(rest); {
		j := i
		for j < len(rest) && rest[j].Block == rest[i].Block && rest[j].Par == rest[i].Par {
			j++
		}
		ws := rest[i:j]
		text := joinWords(ws)
		if text != "" {
			box := unionBoxes(ws)
			out = append(out, region{typ: hiResType(text, lineCount(ws), box, page), text: text, box: box, order: ws[0].Order})
		}
		i = j
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].order < out[b].order })
	return out
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
			ink[gy*gw+gx] = mean < 200 || vari > 1600
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
	return out
}
