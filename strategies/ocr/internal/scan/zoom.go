package scan

import (
	"encoding/binary"
	"fmt"
	"image"
	"math/bits"
	"sort"

	"golang.org/x/image/draw"
)

// Text-height bounds of the reference's Tesseract agent: outside them the image is rescaled so
// that the median word height becomes optimumTextHeight.
const (
	minTextHeight     = 12
	maxTextHeight     = 100
	optimumTextHeight = 20
	maxZoom           = 4
)

// ZoomFor returns the factor to scale an image by before reading it again (1 = keep).
func ZoomFor(words []Word) float64 {
	var hs []int
	for _, w := range words {
		if w.Conf > 0 && w.Box.Dy() > 0 {
			hs = append(hs, w.Box.Dy())
		}
	}
	if len(hs) < 3 {
		return 1
	}
	sort.Ints(hs)
	h := hs[len(hs)/2]
	if h >= minTextHeight {
		return 1 // large text reads fine; shrinking would only lose detail
	}
	return min(float64(optimumTextHeight)/float64(h), maxZoom)
}

func Resize(img *image.Gray, zoom float64) *image.Gray {
	b := img.Bounds()
	dst := image.NewGray(image.Rect(0, 0, int(float64(b.Dx())*zoom+0.5), int(float64(b.Dy())*zoom+0.5)))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

func Unzoom(r image.Rectangle, zoom float64, bounds image.Rectangle) image.Rectangle {
	f := func(v int) int { return int(float64(v)/zoom + 0.5) }
	return image.Rect(f(r.Min.X), f(r.Min.Y), f(r.Max.X), f(r.Max.Y)).Intersect(bounds)
}

func EncodePGM(img *image.Gray) []byte {
	b := img.Bounds()
	head := fmt.Sprintf("P5\n%d %d\n255\n", b.Dx(), b.Dy())
	out := make([]byte, 0, len(head)+b.Dx()*b.Dy())
	out = append(out, head...)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		off := (y - b.Min.Y) * img.Stride
		out = append(out, img.Pix[off:off+b.Dx()]...)
	}
	return out
}

// IsBilevel reports whether a grey image holds only black and white: a scan already
// binarised (fax, 1-bit PNG or TIFF).
func IsBilevel(img *image.Gray) bool {
	p := img.Pix
	// Eight pixels at a time: each byte is 0 or 255 exactly when it equals its top bit spread
	// over the byte.
	for ; len(p) >= 8; p = p[8:] {
		v := binary.LittleEndian.Uint64(p)
		if v != (v&highBits)>>7*0xff {
			return false
		}
	}
	for _, v := range p {
		if v != 0 && v != 255 {
			return false
		}
	}
	return true
}

// highBits selects the top bit of each byte of a 64-bit word.
const highBits = 0x8080808080808080

// EncodePBM writes a bilevel image as a binary PBM (P4, 1 = black).
func EncodePBM(img *image.Gray) []byte {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	head := fmt.Sprintf("P4\n%d %d\n", w, h)
	rowBytes := (w + 7) / 8
	out := make([]byte, len(head), len(head)+rowBytes*h)
	copy(out, head)
	for y := range h {
		row := img.Pix[y*img.Stride : y*img.Stride+w]
		packed := make([]byte, rowBytes)
		for x, v := range row {
			if v < 128 {
				packed[x>>3] |= 0x80 >> (x & 7)
			}
		}
		out = append(out, packed...)
	}
	return out
}

// spixMaxArea is leptonica's limit on the pixels of a serialised image (spixio.c).
const spixMaxArea = 400_000_000

// EncodeSPIX writes img in leptonica's own serialised form ("spix": a header and the raster
// as 32-bit words), 1 bit per pixel (1 = black) when bilevel, else 8. pixReadMem loads it with
// one copy, where its PNM reader costs a stdio call per pixel (about 0.1 s on a 300 DPI page).
func EncodeSPIX(img *image.Gray, bilevel bool) []byte {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	depth, perWord := 8, 4
	if bilevel {
		depth, perWord = 1, 32
	}
	wpl := (w + perWord - 1) / perWord
	const head = 7 * 4 // id, w, h, d, wpl, ncolors (0), raster size
	out := make([]byte, head+4*wpl*h)
	le := binary.NativeEndian
	copy(out, "spix")
	le.PutUint32(out[4:], uint32(w))
	le.PutUint32(out[8:], uint32(h))
	le.PutUint32(out[12:], uint32(depth))
	le.PutUint32(out[16:], uint32(wpl))
	le.PutUint32(out[24:], uint32(4*wpl*h))
	// Leptonica's words are native-endian, the leftmost pixel in the most significant bits.
	for y := range h {
		off := y * img.Stride
		row := img.Pix[off : off+w]
		line := out[head+y*4*wpl : head+(y+1)*4*wpl]
		if bilevel {
			for x0 := 0; x0 < w; x0 += 32 {
				var v uint32
				k := 0
				// Eight pixels at a time: gather the top bits (set = white) of eight bytes
				// into one, leftmost pixel last, then reverse and invert.
				for ; k+8 <= 32 && x0+k+8 <= w; k += 8 {
					u := binary.LittleEndian.Uint64(row[x0+k:])
					white := uint8((u & highBits) * 0x0002040810204081 >> 56)
					v |= uint32(^bits.Reverse8(white)) << (24 - k)
				}
				for ; k < 32 && x0+k < w; k++ {
					if row[x0+k] < 128 {
						v |= 1 << (31 - k)
					}
				}
				le.PutUint32(line[x0/8:], v)
			}
			continue
		}
		x := 0
		for ; x+4 <= w; x += 4 {
			le.PutUint32(line[x:], binary.BigEndian.Uint32(row[x:]))
		}
		if x < w {
			var v uint32
			for k, p := range row[x:] {
				v |= uint32(p) << (24 - 8*k)
			}
			le.PutUint32(line[x:], v)
		}
	}
	return out
}

// EncodeForOCR is the image handed to Tesseract: 1-bit when the page is bilevel (Tesseract
// takes it as already binarised and skips its own thresholding, which on a large grey page
// costs more than half the recognition time), grey otherwise.
func EncodeForOCR(img *image.Gray, bilevel bool) []byte {
	if img.Bounds().Dx()*img.Bounds().Dy() <= spixMaxArea {
		return EncodeSPIX(img, bilevel)
	}
	if bilevel {
		return EncodePBM(img)
	}
	return EncodePGM(img)
}

// ShrinkFactor is the smallest whole factor that brings a w × h image within limit pixels (1
// when it fits already).
func ShrinkFactor(w, h int, limit float64) int {
	k := 1
	for float64((w+k-1)/k)*float64((h+k-1)/k) > limit {
		k++
	}
	return k
}

// Shrink reduces img by the whole factor k, each pixel the mean of a k × k block (the last
// row and column of blocks take what is left), so thin dark strokes stay as grey rather than
// vanish between sampled pixels.
func Shrink(img *image.Gray, k int) *image.Gray {
	if k <= 1 {
		return img
	}
	b := img.Bounds()
	w, h := (b.Dx()+k-1)/k, (b.Dy()+k-1)/k
	dst := image.NewGray(image.Rect(0, 0, w, h))
	sum := make([]uint32, w)
	cnt := make([]uint32, w)
	for by := 0; by < h; by++ {
		clear(sum)
		clear(cnt)
		for y := by * k; y < min((by+1)*k, b.Dy()); y++ {
			row := img.Pix[y*img.Stride : y*img.Stride+b.Dx()]
			for x, v := range row {
				sum[x/k] += uint32(v)
				cnt[x/k]++
			}
		}
		out := dst.Pix[by*dst.Stride : by*dst.Stride+w]
		for i := range out {
			out[i] = uint8((sum[i] + cnt[i]/2) / cnt[i])
		}
	}
	return dst
}
