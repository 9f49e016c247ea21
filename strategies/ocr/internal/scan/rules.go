package scan

import (
	"encoding/binary"
	"image"
)

// RuleMask marks the pixels of a page that belong to ruling (one bit per pixel, row-major:
// a 40-megapixel page's mask is 5 MB).
type RuleMask struct {
	w, h int
	on   bitset
}

func (m *RuleMask) at(x, y int) bool { return m.on.has(y*m.w + x) }

// bitset is a set of pixel indices, one bit each: the page-sized marks of rule finding cost an
// eighth of a []bool.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

func (b bitset) set(i int) { b[i>>6] |= 1 << (uint(i) & 63) }

// RemoveRules returns img with ruling (long, thin, dark horizontal and vertical runs: table
// borders, frames) painted white, and where that ruling was. Tesseract's page segmentation
// reads ruling as characters and splits cells badly; text strokes are never that long, and a
// filled area (a tinted table header) is not thin, so its text stays. The mask gives ruled
// tables their cells; it is made only when withMask is set (table inference), and a page
// without ruling (most text pages) is returned as it is with a nil mask: no copy of the page,
// no mask the size of the page.
func RemoveRules(img *image.Gray, withMask bool) (*image.Gray, *RuleMask) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	var out *image.Gray
	var mask *RuleMask
	paint := func(x, y int) {
		if out == nil {
			out = image.NewGray(b)
			copy(out.Pix, img.Pix)
			if withMask {
				mask = &RuleMask{w: w, h: h, on: newBitset(w * h)}
			}
		}
		out.Pix[y*out.Stride+x] = 255
		if mask != nil {
			mask.on.set(y*w + x)
		}
	}
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
	// Vertical runs are followed in the same row-by-row sweep as horizontal ones (a column walk
	// would touch a new cache line at every pixel): open[x] is where the dark run ending at the
	// current row began in column x, or -1. Both directions read img only, so the order in which
	// runs are judged does not change the result.
	open := make([]int, w)
	for x := range open {
		open[x] = -1
	}
	vertical := func(x, s, e int) {
		if e-s >= minV && thin(func(k int) int { return thickness(x, s+k*(e-s)/(samples+1), 1, 0) }) {
			for k := s; k < e; k++ {
				paint(x, k)
			}
		}
	}
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+w]
		var prev []byte
		if y > 0 {
			prev = img.Pix[(y-1)*img.Stride : (y-1)*img.Stride+w]
		}
		for x := 0; x < w; {
			// Eight light pixels under eight light pixels start, end and continue no run:
			// skipped together (most of a page).
			if x+8 <= w && binary.LittleEndian.Uint64(row[x:])&highBits == highBits &&
				(prev == nil || binary.LittleEndian.Uint64(prev[x:])&highBits == highBits) {
				x += 8
				continue
			}
			if row[x] >= dark {
				if open[x] >= 0 {
					vertical(x, open[x], y)
					open[x] = -1
				}
				x++
				continue
			}
			s := x
			for x < w && row[x] < dark {
				if open[x] < 0 {
					open[x] = y
				}
				x++
			}
			if x-s >= minH && thin(func(k int) int { return thickness(s+k*(x-s)/(samples+1), y, 0, 1) }) {
				for k := s; k < x; k++ {
					paint(k, y)
				}
			}
		}
	}
	for x, s := range open {
		if s >= 0 {
			vertical(x, s, h)
		}
	}
	if out == nil {
		return img, nil
	}
	return out, mask
}
