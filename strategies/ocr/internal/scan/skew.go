package scan

import (
	"image"
	"math"
)

// Skew search: a phone photo or a sheet fed crooked leaves the text lines a few degrees off
// the horizontal, and Tesseract then merges or drops whole lines (a 150 DPI page skewed 2°
// lost one paragraph in four, 4° nearly half its words). The angle is found by projection
// profiles: ink counted along lines at each candidate angle peaks sharply when the lines
// follow the text. Rows and columns are both tried, so a page that is also sideways (fixed
// afterwards by the orientation detection) is straightened too.
const (
	maxSkew      = 6.0   // degrees searched either way; beyond this is a rotated page, not a skew
	minSkew      = 0.4   // below this Tesseract copes and resampling costs more than it gains
	skewStep     = 0.2   // coarse step (degrees); refined to skewStep/4 around the best
	skewWidth    = 500   // the page is sampled to about this many columns
	skewMinInk   = 200   // sampled ink pixels needed to judge at all
	skewMaxInk   = 40000 // sampled ink pixels used at most
	skewMinRatio = 1.15  // the best angle's profile must beat the unrotated one by this much
)

// FindSkew returns the angle in degrees (positive: the text rises to the right, as on a page
// turned anticlockwise) by which img's text lines are tilted, or 0 when they are level, the
// tilt is too small to matter, or the page has too little text to tell.
func FindSkew(img *image.Gray) float64 {
	b := img.Bounds()
	step := max(1, (b.Dx()+skewWidth-1)/skewWidth)
	thr := inkThreshold(img, step)
	var xs, ys []float64
	for y := b.Min.Y; y < b.Max.Y; y += step {
		row := img.Pix[(y-b.Min.Y)*img.Stride:]
		for x := 0; x < b.Dx(); x += step {
			if row[x] < thr {
				xs = append(xs, float64(x/step))
				ys = append(ys, float64((y-b.Min.Y)/step))
			}
		}
	}
	if len(xs) < skewMinInk {
		return 0
	}
	// Enough ink points to judge, thinned at random (a regular stride would beat against
	// the print's own regularity and favour a false angle): the search costs points × angles.
	if len(xs) > skewMaxInk {
		seed := uint32(1)
		for i := 0; i < skewMaxInk; i++ {
			seed = seed*1664525 + 1013904223
			j := i + int(uint64(seed)*uint64(len(xs)-i)>>32)
			xs[i], xs[j] = xs[j], xs[i]
			ys[i], ys[j] = ys[j], ys[i]
		}
		xs, ys = xs[:skewMaxInk], ys[:skewMaxInk]
	}
	// Rows: a tilt of a degrees makes y - x·tan(a) constant along a line; columns (sideways
	// text): x + y·tan(a).
	best, bestScore, level := 0.0, 0.0, 0.0
	for _, cols := range []bool{false, true} {
		a, s := searchSkew(xs, ys, cols)
		// Against the level profile and the mirror tilt: resampling alone makes any tilt
		// score a little above level (bins meet the pixel grid unevenly), but equally either
		// way, so noise or a picture cannot win; text lines favour one side.
		s0 := max(profileScore(xs, ys, 0, cols), profileScore(xs, ys, -a, cols))
		if s0 > 0 && s/s0 > bestScore {
			best, bestScore, level = a, s/s0, s0
		}
	}
	if level == 0 || bestScore < skewMinRatio || math.Abs(best) < minSkew {
		return 0
	}
	return best
}

func searchSkew(xs, ys []float64, cols bool) (float64, float64) {
	best, bestScore := 0.0, -1.0
	for a := -maxSkew; a <= maxSkew+1e-9; a += skewStep {
		if s := profileScore(xs, ys, a, cols); s > bestScore {
			best, bestScore = a, s
		}
	}
	lo := best
	for a := lo - skewStep; a <= lo+skewStep+1e-9; a += skewStep / 4 {
		if s := profileScore(xs, ys, a, cols); s > bestScore {
			best, bestScore = a, s
		}
	}
	return best, bestScore
}

// profileScore is the sum of squared differences between adjacent bins of the ink profile
// along lines tilted by a degrees: sharp text lines and clean gaps between them score high.
func profileScore(xs, ys []float64, a float64, cols bool) float64 {
	t := math.Tan(a * math.Pi / 180)
	lo, hi := math.Inf(1), math.Inf(-1)
	proj := make([]float64, len(xs))
	for i := range xs {
		p := ys[i] - xs[i]*t
		if cols {
			p = xs[i] + ys[i]*t
		}
		proj[i] = p
		lo, hi = min(lo, p), max(hi, p)
	}
	bins := make([]float64, int(hi-lo)+2)
	for _, p := range proj {
		bins[int(p-lo)]++
	}
	s := 0.0
	for i := 1; i < len(bins); i++ {
		d := bins[i] - bins[i-1]
		s += d * d
	}
	return s
}

// inkThreshold is halfway between the page's darkest and its typical (paper) level, so grey
// paper and faint print are both told apart from ink.
func inkThreshold(img *image.Gray, step int) uint8 {
	hist, n := sampleLevels(img, step)
	paper, dark, acc := 0, 0, 0
	for v := 0; v < 256; v++ {
		acc += hist[v]
		if acc*100 >= n && dark == 0 {
			dark = v
		}
		if acc*2 >= n {
			paper = v
			break
		}
	}
	if paper-dark < 40 {
		return 0 // no contrast: nothing counts as ink
	}
	return uint8((paper + dark) / 2)
}

// Deskew turns img by -deg degrees about its centre (undoing FindSkew's tilt) on a canvas of
// the same size, filled with the page's paper level, with bilinear sampling so thin strokes
// stay whole.
func Deskew(img *image.Gray, deg float64) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	fill := paperLevel(img)
	a := deg * math.Pi / 180
	c, s := math.Cos(a), math.Sin(a)
	cx, cy := float64(w-1)/2, float64(h-1)/2
	for y := 0; y < h; y++ {
		dy := float64(y) - cy
		row := out.Pix[y*out.Stride:]
		for x := 0; x < w; x++ {
			dx := float64(x) - cx
			// The output pixel's source: rotate by +deg back into the tilted page.
			sx := c*dx - s*dy + cx
			sy := s*dx + c*dy + cy
			row[x] = sample(img, sx, sy, fill)
		}
	}
	return out
}

func sample(img *image.Gray, x, y float64, fill uint8) uint8 {
	b := img.Bounds()
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	if x0 < 0 || y0 < 0 || x0+1 >= b.Dx() || y0+1 >= b.Dy() {
		return fill
	}
	fx, fy := x-float64(x0), y-float64(y0)
	p := img.Pix[y0*img.Stride+x0:]
	q := img.Pix[(y0+1)*img.Stride+x0:]
	top := float64(p[0])*(1-fx) + float64(p[1])*fx
	bot := float64(q[0])*(1-fx) + float64(q[1])*fx
	return uint8(top*(1-fy) + bot*fy + 0.5)
}

func paperLevel(img *image.Gray) uint8 {
	hist, n := sampleLevels(img, max(1, img.Bounds().Dx()/skewWidth))
	acc := 0
	for v := 0; v < 256; v++ {
		if acc += hist[v]; acc*2 >= n {
			return uint8(v)
		}
	}
	return 255
}

// sampleLevels is the histogram of img's grey levels over every step-th pixel of every
// step-th row, and the number of pixels sampled.
func sampleLevels(img *image.Gray, step int) (hist [256]int, n int) {
	b := img.Bounds()
	for y := 0; y < b.Dy(); y += step {
		row := img.Pix[y*img.Stride:]
		for x := 0; x < b.Dx(); x += step {
			hist[row[x]]++
			n++
		}
	}
	return hist, n
}
