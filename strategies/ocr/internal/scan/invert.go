package scan

import "image"

// Light text on dark ground (a heading in a black bar, a dark table header, a slide pasted
// into a scan) is read poorly by Tesseract on a page of dark-on-light text: the band came out
// as a picture holding scraps, and the lines beside it were cut at its edge. Such areas are
// found as runs of dark tiles and turned into dark-on-light for reading only; the page image
// (pictures, crops) is left as scanned.

const (
	invertTiles   = 80  // tiles across the page
	invertMinTile = 12  // pixels, at least
	invertDark    = 100 // a tile this dark on average is dark ground (ink covers far less)
	invertMinW    = 3   // tiles: narrower or shorter areas are strokes of large type
	invertMinH    = 2
)

// InvertDark returns img with its large dark areas inverted, or img itself when it has none.
func InvertDark(img *image.Gray) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	ts := max(invertMinTile, w/invertTiles)
	tw, th := (w+ts-1)/ts, (h+ts-1)/ts
	if tw < invertMinW || th < invertMinH {
		return img
	}
	dark := make([]bool, tw*th)
	any := false
	for ty := 0; ty < th; ty++ {
		for tx := 0; tx < tw; tx++ {
			x0, y0 := tx*ts, ty*ts
			x1, y1 := min(x0+ts, w), min(y0+ts, h)
			sum := 0
			for y := y0; y < y1; y++ {
				for _, v := range img.Pix[y*img.Stride+x0 : y*img.Stride+x1] {
					sum += int(v)
				}
			}
			if sum < invertDark*(x1-x0)*(y1-y0) {
				dark[ty*tw+tx] = true
				any = true
			}
		}
	}
	if !any {
		return img
	}
	var out *image.Gray
	seen := make([]bool, tw*th)
	for i := range dark {
		if !dark[i] || seen[i] {
			continue
		}
		// One 4-connected area of dark tiles, and its box in tiles.
		minX, minY, maxX, maxY := tw, th, -1, -1
		stack := []int{i}
		seen[i] = true
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := j%tw, j/tw
			minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
			for _, n := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
				if n[0] >= 0 && n[1] >= 0 && n[0] < tw && n[1] < th {
					k := n[1]*tw + n[0]
					if dark[k] && !seen[k] {
						seen[k] = true
						stack = append(stack, k)
					}
				}
			}
		}
		if maxX-minX+1 < invertMinW || maxY-minY+1 < invertMinH {
			continue
		}
		// The dark ground's own edges: within a tile of the area's box, the rows and columns
		// more than half dark.
		r := image.Rect(max(0, (minX-1)*ts), max(0, (minY-1)*ts), min(w, (maxX+2)*ts), min(h, (maxY+2)*ts))
		core := image.Rect(minX*ts, minY*ts, min(w, (maxX+1)*ts), min(h, (maxY+1)*ts))
		edge := image.Rectangle{Min: image.Pt(w, h)}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			if darkShare(img, core.Min.X, core.Max.X, y, y+1) {
				edge.Min.Y, edge.Max.Y = min(edge.Min.Y, y), max(edge.Max.Y, y+1)
			}
		}
		for x := r.Min.X; x < r.Max.X; x++ {
			if darkShare(img, x, x+1, core.Min.Y, core.Max.Y) {
				edge.Min.X, edge.Max.X = min(edge.Min.X, x), max(edge.Max.X, x+1)
			}
		}
		if edge.Empty() {
			continue
		}
		if out == nil {
			out = image.NewGray(image.Rect(0, 0, w, h))
			for y := 0; y < h; y++ {
				copy(out.Pix[y*out.Stride:y*out.Stride+w], img.Pix[y*img.Stride:y*img.Stride+w])
			}
		}
		for y := edge.Min.Y; y < edge.Max.Y; y++ {
			row := out.Pix[y*out.Stride:]
			for x := edge.Min.X; x < edge.Max.X; x++ {
				row[x] = 255 - row[x]
			}
		}
	}
	if out == nil {
		return img
	}
	out.Rect = b
	return out
}

// darkShare: more than half the pixels of the rectangle (x0..x1, y0..y1) are dark.
func darkShare(img *image.Gray, x0, x1, y0, y1 int) bool {
	n, d := 0, 0
	for y := y0; y < y1; y++ {
		for _, v := range img.Pix[y*img.Stride+x0 : y*img.Stride+x1] {
			n++
			if v < 128 {
				d++
			}
		}
	}
	return d*2 > n
}
