package vlm

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"runtime"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/strategies/vlm/provider"
)

// pngChunk appends one chunk (length, type, data, CRC) to b.
func pngChunk(b *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	b.Write(n[:])
	b.WriteString(typ)
	b.Write(data)
	binary.BigEndian.PutUint32(n[:], crc32.ChecksumIEEE(append([]byte(typ), data...)))
	b.Write(n[:])
}

// bigPNG is a w×h 16-bit RGBA PNG (8 bytes a pixel decoded) of a few hundred KB: every row
// filtered Up, so all but the first are zeros and compress to almost nothing; the first row is
// a grey ramp, so the image is a vertical ramp from left to right.
func bigPNG(t testing.TB, w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	hdr := make([]byte, 13)
	binary.BigEndian.PutUint32(hdr, uint32(w))
	binary.BigEndian.PutUint32(hdr[4:], uint32(h))
	hdr[8], hdr[9] = 16, 6
	pngChunk(&b, "IHDR", hdr)
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	row := make([]byte, 1+8*w)
	for x := range w {
		v := byte(x * 255 / max(w-1, 1))
		copy(row[1+8*x:], []byte{v, 0, v, 0, v, 0, 0xff, 0xff})
	}
	zw.Write(row)
	clear(row)
	row[0] = 2 // Up: the same as the row above
	for y := 1; y < h; y++ {
		zw.Write(row)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	pngChunk(&b, "IDAT", z.Bytes())
	pngChunk(&b, "IEND", nil)
	return b.Bytes()
}

// allocated runs f and returns the bytes it allocated on the heap.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestHugePNGReadReduced: an 8,000 × 6,000 16-bit RGBA PNG (384 MB as image/png decodes it)
// is fitted for the provider reading it a row at a time and reduced as rows come: the whole
// call allocates under 100 MB (Catmull-Rom's buffer is most of it), and the image sent is the ramp at the provider's size.
func TestHugePNGReadReduced(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates 384 MB of rows")
	}
	data := bigPNG(t, 8000, 6000)
	lim := limitsFor("anthropic", "claude-sonnet-4-20250514")
	var got provider.Image
	var err error
	n := allocated(func() { got, err = fit(provider.Image{Data: data}, lim) })
	if err != nil {
		t.Fatal(err)
	}
	if n > 100<<20 {
		t.Errorf("fitting allocated %d MB, want < 100 (the full decode is 384 MB)", n>>20)
	}
	img, _, err := image.Decode(bytes.NewReader(got.Data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != lim.MaxSide || diff(uint32(b.Dy()), uint32(lim.MaxSide*3/4)) > 1 {
		t.Errorf("sent %v, want %d × %d", b, lim.MaxSide, lim.MaxSide*3/4)
	}
	// Left dark, right light, as the ramp.
	l, _, _, _ := img.At(5, 100).RGBA()
	r, _, _, _ := img.At(lim.MaxSide-5, 100).RGBA()
	if l>>8 > 10 || r>>8 < 245 {
		t.Errorf("ramp read as %d … %d", l>>8, r>>8)
	}
	t.Logf("allocated %d MB for an 8,000 × 6,000 16-bit PNG; sent %d bytes", n>>20, len(got.Data))
}

// TestPNGReducedMatchesDecoder: the row reader gives image/png's pixels (at factor 1) for
// every colour type and depth Go's encoder writes, with its adaptive filters, and the means of
// the blocks at factor 3.
func TestPNGReducedMatchesDecoder(t *testing.T) {
	const w, h = 37, 23
	pal := color.Palette{}
	for i := range 5 {
		pal = append(pal, color.NRGBA{uint8(i * 60), uint8(255 - i*50), uint8(i * 13), uint8(255 - i*40)})
	}
	imgs := map[string]image.Image{
		"gray": image.NewGray(image.Rect(0, 0, w, h)), "gray16": image.NewGray16(image.Rect(0, 0, w, h)),
		"nrgba": image.NewNRGBA(image.Rect(0, 0, w, h)), "rgba64": image.NewNRGBA64(image.Rect(0, 0, w, h)),
		"paletted": image.NewPaletted(image.Rect(0, 0, w, h), pal),
		"opaque":   image.NewRGBA(image.Rect(0, 0, w, h)),
	}
	for name, m := range imgs {
		for y := range h {
			for x := range w {
				c := color.NRGBA64{uint16(x * 1771), uint16(y * 2801), uint16((x * y) * 97), uint16(65535 - x*y*50)}
				if name == "opaque" || name == "gray" || name == "gray16" {
					c.A = 65535
				}
				m.(interface{ Set(int, int, color.Color) }).Set(x, y, c)
			}
		}
		var b bytes.Buffer
		if err := png.Encode(&b, m); err != nil {
			t.Fatal(err)
		}
		want, err := png.Decode(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := pngReduced(b.Bytes(), 1)
		if err != nil || !ok {
			t.Fatalf("%s: ok %v, err %v", name, ok, err)
		}
		for y := range h {
			for x := range w {
				wr, wg, wb, wa := want.At(x, y).RGBA()
				gr, gg, gb, ga := got.At(x, y).RGBA()
				// At 8 bits a channel, as the row reader keeps them.
				if d := max(diff(wr>>8, gr>>8), diff(wg>>8, gg>>8), diff(wb>>8, gb>>8), diff(wa>>8, ga>>8)); d > 1 {
					t.Fatalf("%s (%d,%d): got %v, want %v", name, x, y, got.At(x, y), want.At(x, y))
				}
			}
		}
		red, _, err := pngReduced(b.Bytes(), 3)
		if err != nil || red.Bounds().Dx() != (w+2)/3 || red.Bounds().Dy() != (h+2)/3 {
			t.Fatalf("%s at 1/3: %v, %v", name, red.Bounds(), err)
		}
		// The last, partial block: the mean of its pixels.
		var sum, n uint32
		for y := 21; y < h; y++ {
			for x := 36; x < w; x++ {
				_, _, _, a := got.At(x, y).RGBA()
				sum, n = sum+a>>8, n+1
			}
		}
		if _, _, _, a := red.At(12, 7).RGBA(); diff(a>>8, sum/n) > 1 {
			t.Errorf("%s: corner block alpha %d, want %d", name, a>>8, sum/n)
		}
	}
}

func diff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestHugeJPEGRefusedFromHeader: a JPEG whose header declares 12,000 × 11,000 pixels (within
// the pixel cap, but 396 MB of raster to Go's decoder, which has no reduced decode) is a 422
// naming its kind and size before anything is decoded; so is a progressive one a quarter the
// size, whose coefficients the decoder keeps besides.
func TestHugeJPEGRefusedFromHeader(t *testing.T) {
	for _, c := range []struct {
		w, h        int
		progressive bool
	}{{12000, 11000, false}, {6000, 5500, true}} {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 16, 16)), nil); err != nil {
			t.Fatal(err)
		}
		data := b.Bytes()
		i := bytes.Index(data, []byte{0xff, 0xc0})
		if c.progressive {
			data[i+1] = 0xc2
		}
		binary.BigEndian.PutUint16(data[i+5:], uint16(c.h))
		binary.BigEndian.PutUint16(data[i+7:], uint16(c.w))
		var err error
		n := allocated(func() { _, err = fit(provider.Image{Data: data}, limitsFor("openai", "gpt-4o")) })
		var ce *contract.Error
		if !errors.As(err, &ce) || ce.Kind != contract.KindUnprocessable || !strings.Contains(err.Error(), "JPEG image of") || n > 8<<20 {
			t.Errorf("%d × %d progressive %v: %v (allocated %d KB)", c.w, c.h, c.progressive, err, n>>10)
		}
	}
}
