package scan

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"os"
	"slices"
	"testing"
)

// greyPattern is a w×h grey image whose pixels all differ from their neighbours, so a pixel
// shifted or swapped inside a word shows.
func greyPattern(w, h int, bilevel bool) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := uint8(x*7 + y*13 + x*y)
			if bilevel {
				v = uint8(255 * ((x/3 + y + x*x) % 2))
			}
			img.Pix[y*img.Stride+x] = v
		}
	}
	return img
}

// A page without ruling is not copied and has no mask.
func TestRemoveRulesNoRuling(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 300, 200))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for y := 20; y < 180; y += 20 { // a page of "words": short dark blocks
		for x := 20; x < 280; x++ {
			if x%40 < 30 {
				for k := range 10 {
					img.Pix[(y+k)*img.Stride+x] = 30
				}
			}
		}
	}
	clean, mask := RemoveRules(img, true)
	if clean != img || mask != nil {
		t.Errorf("page without ruling: copy %v, mask %v", clean != img, mask != nil)
	}
	grid := drawGrid()
	orig := bytes.Clone(grid.Pix)
	clean, mask = RemoveRules(grid, true)
	if clean == grid || mask == nil || !bytes.Equal(grid.Pix, orig) {
		t.Fatal("ruling: the input must stay as it was and the result be a copy with a mask")
	}
	for i := range len(orig) {
		if on := mask.on.has(i); on != (clean.Pix[i] == 255 && orig[i] < 128) {
			t.Fatalf("pixel %d: mask %v, before %d, after %d", i, on, orig[i], clean.Pix[i])
		}
	}
}

func TestIsBilevel(t *testing.T) {
	img := greyPattern(37, 5, true)
	if !IsBilevel(img) {
		t.Fatal("black and white image not bilevel")
	}
	for _, at := range []int{0, 7, 8, 100, len(img.Pix) - 1} {
		old := img.Pix[at]
		img.Pix[at] = 254
		if IsBilevel(img) {
			t.Errorf("grey pixel at %d not seen", at)
		}
		img.Pix[at] = 128
		if IsBilevel(img) {
			t.Errorf("grey pixel 128 at %d not seen", at)
		}
		img.Pix[at] = old
	}
}

// removeRulesSimple is the plain form of RemoveRules (horizontal runs row by row, then vertical
// runs column by column, always a copy and a mask): the fast one must agree with it.
func removeRulesSimple(img *image.Gray) (*image.Gray, *RuleMask) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(b)
	copy(out.Pix, img.Pix)
	mask := &RuleMask{w: w, h: h, on: newBitset(w * h)}
	const dark = 128
	maxThick := max(8, min(w, h)/150)
	isDark := func(x, y int) bool { return x >= 0 && y >= 0 && x < w && y < h && img.Pix[y*img.Stride+x] < dark }
	thickness := func(x, y, dx, dy int) int {
		n := 1
		for k := 1; k <= maxThick+1 && isDark(x+k*dx, y+k*dy); k++ {
			n++
		}
		for k := 1; k <= maxThick+1 && isDark(x-k*dx, y-k*dy); k++ {
			n++
		}
		return n
	}
	// A run is a rule when it is thin at most of several points along it: where a rule crosses
	// another (a grid's inner junctions) it is locally thick.
	const samples = 8
	thin := func(at func(k int) int) bool {
		n := 0
		for k := 1; k <= samples; k++ {
			if at(k) <= maxThick {
				n++
			}
		}
		return n >= samples-2
	}
	minH, minV := max(60, w/10), max(60, h/10)
	for y := 0; y < h; y++ {
		for x := 0; x < w; {
			if !isDark(x, y) {
				x++
				continue
			}
			s := x
			for x < w && isDark(x, y) {
				x++
			}
			if x-s >= minH && thin(func(k int) int { return thickness(s+k*(x-s)/(samples+1), y, 0, 1) }) {
				o := out.Pix[y*out.Stride:]
				for k := s; k < x; k++ {
					o[k] = 255
					mask.on.set(y*w + k)
				}
			}
		}
	}
	for x := 0; x < w; x++ {
		for y := 0; y < h; {
			if !isDark(x, y) {
				y++
				continue
			}
			s := y
			for y < h && isDark(x, y) {
				y++
			}
			if y-s >= minV && thin(func(k int) int { return thickness(x, s+k*(y-s)/(samples+1), 1, 0) }) {
				for k := s; k < y; k++ {
					out.Pix[k*out.Stride+x] = 255
					mask.on.set(k*w + x)
				}
			}
		}
	}
	return out, mask
}

func TestRemoveRulesAgrees(t *testing.T) {
	pages := []*image.Gray{drawGrid(), greyPattern(333, 201, false), greyPattern(257, 300, true)}
	// A scanned page with ruling, text and a filled box.
	pages = append(pages, readGrey(t, "../../../../testdata/reference/docs/table-multi-row-column-cells.png"))
	for i, img := range pages {
		wantImg, wantMask := removeRulesSimple(img)
		gotImg, gotMask := RemoveRules(img, true)
		if !bytes.Equal(gotImg.Pix, wantImg.Pix) {
			t.Errorf("page %d: cleaned images differ", i)
		}
		if noMaskImg, m := RemoveRules(img, false); m != nil || !bytes.Equal(noMaskImg.Pix, wantImg.Pix) {
			t.Errorf("page %d without mask: mask %v, images differ %v", i, m != nil, !bytes.Equal(noMaskImg.Pix, wantImg.Pix))
		}
		if gotMask == nil {
			if slices.ContainsFunc(wantMask.on, func(v uint64) bool { return v != 0 }) {
				t.Errorf("page %d: no mask, but ruling", i)
			}
		} else if !slices.Equal(gotMask.on, wantMask.on) {
			t.Errorf("page %d: masks differ", i)
		}
	}
}

// readGrey decodes a PNG to grey with the standard library (the package reads no files itself).
func readGrey(t *testing.T, path string) *image.Gray {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewGray(src.Bounds())
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	return img
}
