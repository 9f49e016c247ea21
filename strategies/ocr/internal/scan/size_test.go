package scan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// bombPNG is a valid PNG signature and header declaring w × h grey pixels, with one tiny
// compressed data chunk: a few dozen bytes that a decoder would expand to w*h bytes.
func bombPNG(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8] = 8 // bit depth; colour type 0 (grey)
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

// tiffFile is a TIFF of the given frames' sizes (no pixel data: only the directories matter
// here), in byte order bo, classic or BigTIFF.
func tiffFile(bo binary.ByteOrder, big bool, sizes [][2]uint32) []byte {
	var b bytes.Buffer
	if bo == binary.ByteOrder(binary.LittleEndian) {
		b.WriteString("II")
	} else {
		b.WriteString("MM")
	}
	put16 := func(v uint16) { binary.Write(&b, bo, v) }
	put32 := func(v uint32) { binary.Write(&b, bo, v) }
	put64 := func(v uint64) { binary.Write(&b, bo, v) }
	if big {
		put16(43)
		put16(8)
		put16(0)
		put64(16)
	} else {
		put16(42)
		put32(8)
	}
	for i, s := range sizes {
		last := i == len(sizes)-1
		if big {
			put64(2)
			for k, v := range s {
				put16(uint16(256 + k))
				put16(16) // LONG8
				put64(1)
				put64(uint64(v))
			}
			next := uint64(b.Len() + 8)
			if last {
				next = 0
			}
			put64(next)
			continue
		}
		put16(2)
		put16(256)
		put16(3) // SHORT width
		put32(1)
		put16(uint16(min(s[0], 65535)))
		put16(0)
		put16(257)
		put16(4) // LONG length
		put32(1)
		put32(s[1])
		next := uint32(b.Len() + 4)
		if last {
			next = 0
		}
		put32(next)
	}
	return b.Bytes()
}

func TestImageSize(t *testing.T) {
	small := image.NewGray(image.Rect(0, 0, 37, 21))
	var pngB, jpgB, gifB bytes.Buffer
	png.Encode(&pngB, small)
	jpeg.Encode(&jpgB, small, nil)
	gif.Encode(&gifB, small, nil)
	cases := []struct {
		name string
		data []byte
		w, h int
	}{
		{"png", pngB.Bytes(), 37, 21},
		{"jpeg", jpgB.Bytes(), 37, 21},
		{"gif", gifB.Bytes(), 37, 21},
		{"pgm", []byte("P5\n# comment\n37 21\n255\n"), 37, 21},
		{"tiff le", tiffFile(binary.LittleEndian, false, [][2]uint32{{37, 21}}), 37, 21},
		{"tiff be", tiffFile(binary.BigEndian, false, [][2]uint32{{37, 21}}), 37, 21},
		{"bigtiff", tiffFile(binary.LittleEndian, true, [][2]uint32{{37, 21}}), 37, 21},
	}
	for _, c := range cases {
		w, h, ok := ImageSize(c.data, -1)
		if !ok || w != c.w || h != c.h {
			t.Errorf("%s: %d × %d (%v), want %d × %d", c.name, w, h, ok, c.w, c.h)
		}
		if err := CheckSize(c.data, -1); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// The frame asked for, not the first.
	multi := tiffFile(binary.BigEndian, false, [][2]uint32{{10, 10}, {20, 30}, {40, 50}})
	for frame, want := range [][2]int{{10, 10}, {20, 30}, {40, 50}} {
		if w, h, ok := ImageSize(multi, frame); !ok || w != want[0] || h != want[1] {
			t.Errorf("frame %d: %d × %d (%v)", frame, w, h, ok)
		}
	}
	if _, _, ok := ImageSize(multi, 3); ok {
		t.Error("frame past the last read")
	}
	if _, _, ok := ImageSize([]byte("not an image at all"), -1); ok {
		t.Error("text read as an image")
	}
}

// A small file declaring 100,000 × 100,000 pixels is refused from its header, whatever the
// format and whichever TIFF frame declares it.
func TestCheckSizeRefusesBombs(t *testing.T) {
	var jpgB bytes.Buffer
	jpeg.Encode(&jpgB, image.NewGray(image.Rect(0, 0, 8, 8)), nil)
	jb := jpgB.Bytes()
	if i := bytes.Index(jb, []byte{0xff, 0xc0}); i >= 0 { // SOF0: height, width at +5, +7
		binary.BigEndian.PutUint16(jb[i+5:], 65000)
		binary.BigEndian.PutUint16(jb[i+7:], 65000)
	} else {
		t.Fatal("no SOF0 marker")
	}
	var gifB, bmpB bytes.Buffer
	gif.Encode(&gifB, image.NewGray(image.Rect(0, 0, 8, 8)), nil)
	gb := gifB.Bytes()
	binary.LittleEndian.PutUint16(gb[6:], 65535) // logical screen width, height
	binary.LittleEndian.PutUint16(gb[8:], 65535)
	bmp.Encode(&bmpB, image.NewGray(image.Rect(0, 0, 8, 8)))
	bb := bmpB.Bytes()
	binary.LittleEndian.PutUint32(bb[18:], 100000) // BITMAPINFOHEADER width, height
	binary.LittleEndian.PutUint32(bb[22:], 100000)
	bombs := map[string][]byte{
		"gif":          gb,
		"bmp":          bb,
		"png":          bombPNG(100000, 100000),
		"jpeg":         jb,
		"pgm":          []byte("P5 100000 100000 255\n"),
		"tiff":         tiffFile(binary.LittleEndian, false, [][2]uint32{{65535, 100000}}),
		"bigtiff":      tiffFile(binary.BigEndian, true, [][2]uint32{{100000, 100000}}),
		"tiff frame 2": tiffFile(binary.LittleEndian, false, [][2]uint32{{100, 100}, {60000, 60000}}),
	}
	for name, data := range bombs {
		frame := -1
		if name == "tiff frame 2" {
			frame = 1
		}
		err := CheckSize(data, frame)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s (%d bytes): err = %v, want too large", name, len(data), err)
		}
	}
	if err := CheckSize(tiffFile(binary.LittleEndian, false, [][2]uint32{{100, 100}, {60000, 60000}}), 0); err != nil {
		t.Errorf("small first frame refused: %v", err)
	}
}

func TestFitDPI(t *testing.T) {
	const letterW, letterH = 612, 792
	if got := FitDPI(300, letterW, letterH, MaxRenderPixels); got != 300 {
		t.Errorf("Letter at 300 DPI lowered to %d", got)
	}
	// A 200-inch square page (PDF's largest) at 300 DPI would be 3.6 gigapixels.
	got := FitDPI(300, 14400, 14400, MaxRenderPixels)
	if px := RenderPixels(got, 14400, 14400); px > MaxRenderPixels || got < 50 {
		t.Errorf("poster: %d DPI, %.0f pixels", got, px)
	}
	if next := RenderPixels(got+1, 14400, 14400); next <= MaxRenderPixels {
		t.Errorf("poster: %d DPI is not the highest that fits", got)
	}
	if got := FitDPI(300, 1e9, 1e9, MaxRenderPixels); got != 1 {
		t.Errorf("absurd page: %d DPI", got)
	}
}

// TestDecodedBytes: the raster a whole-image decoder keeps is estimated from the header at
// the depth it keeps — 1 bit for bilevel, 8 for grey, 16 for 16-bit grey, 32 for colour,
// palettes and alpha — with BitsPerSample read where a TIFF stores it out of line (three
// samples: an offset).
func TestDecodedBytes(t *testing.T) {
	const w, h = 40, 20
	grey := image.NewGray(image.Rect(0, 0, w, h))
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	grey16 := image.NewGray16(image.Rect(0, 0, w, h))
	bw := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	enc := func(f func(*bytes.Buffer) error) []byte {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	webp := []byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00")
	webp = append(webp, byte(w-1), 0, 0, byte(h-1), 0, 0)
	binary.LittleEndian.PutUint32(webp[4:], uint32(len(webp)-8))
	cases := []struct {
		name string
		data []byte
		bits int
		what string
	}{
		{"grey png", enc(func(b *bytes.Buffer) error { return png.Encode(b, grey) }), 8, "PNG"},
		{"16-bit png", enc(func(b *bytes.Buffer) error { return png.Encode(b, grey16) }), 16, "PNG"},
		{"colour png", enc(func(b *bytes.Buffer) error { return png.Encode(b, rgba) }), 32, "PNG"},
		{"bilevel png", enc(func(b *bytes.Buffer) error { return png.Encode(b, bw) }), 32, "PNG"}, // a palette
		{"grey tiff", enc(func(b *bytes.Buffer) error { return tiff.Encode(b, grey, nil) }), 8, "8-bit TIFF"},
		{"colour tiff", enc(func(b *bytes.Buffer) error { return tiff.Encode(b, rgba, nil) }), 32, "32-bit TIFF"},
		{"16-bit tiff", enc(func(b *bytes.Buffer) error { return tiff.Encode(b, grey16, nil) }), 16, "16-bit TIFF"},
		{"two-colour tiff", enc(func(b *bytes.Buffer) error { return tiff.Encode(b, bw, nil) }), 32, "8-bit TIFF"}, // a palette
		{"24-bit bmp", enc(func(b *bytes.Buffer) error { return bmp.Encode(b, rgba) }), 32, "32-bit BMP"},
		{"8-bit bmp", enc(func(b *bytes.Buffer) error { return bmp.Encode(b, grey) }), 32, "8-bit BMP"},
		{"gif", enc(func(b *bytes.Buffer) error { return gif.Encode(b, grey, nil) }), 32, "GIF"},
		{"webp", webp, 32, "WebP"},
		{"pbm", []byte("P4 40 20\n"), 1, "bilevel PNM"},
		{"pgm", []byte("P5 40 20 255\n"), 8, "grey PNM"},
		{"16-bit pgm", []byte("P5 40 20 65535\n"), 16, "grey PNM"},
		{"ppm", []byte("P6 40 20 255\n"), 32, "colour PNM"},
	}
	for _, c := range cases {
		n, what, ok := DecodedBytes(c.data, -1)
		if want := int64(w * h * c.bits / 8); !ok || n != want || what != c.what {
			t.Errorf("%s: %d bytes (%q, %v), want %d (%q)", c.name, n, what, ok, want, c.what)
		}
	}
	if _, _, ok := DecodedBytes([]byte("not an image"), -1); ok {
		t.Error("text estimated")
	}
}

// heifFile is a HEIF file's boxes down to its item properties: one 'ispe' per size (a grid's
// tiles and the whole), no image data.
func heifFile(sizes ...[2]uint32) []byte {
	box := func(typ string, body []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
		return append(append(b, typ...), body...)
	}
	var ipco []byte
	for _, s := range sizes {
		body := binary.BigEndian.AppendUint32(make([]byte, 4), s[0])
		ipco = append(ipco, box("ispe", binary.BigEndian.AppendUint32(body, s[1]))...)
	}
	meta := append(make([]byte, 4), box("hdlr", make([]byte, 20))...)
	meta = append(meta, box("iprp", box("ipco", ipco))...)
	return append(box("ftyp", []byte("heic\x00\x00\x00\x00mif1heic")), box("meta", meta)...)
}

// TestHEIFSize: a HEIC's size is its largest image's spatial extent (a gridded photo's whole,
// not its tiles), read from its boxes; one declaring 100,000 × 100,000 is refused.
func TestHEIFSize(t *testing.T) {
	if w, h, ok := ImageSize(heifFile([2]uint32{512, 512}, [2]uint32{4032, 3024}, [2]uint32{512, 512}), -1); !ok || w != 4032 || h != 3024 {
		t.Errorf("grid: %d × %d (%v), want 4032 × 3024", w, h, ok)
	}
	ref, err := os.ReadFile("../../../../testdata/reference/docs/DA-1p.heic")
	if err != nil {
		t.Fatal(err)
	}
	if w, h, ok := ImageSize(ref, -1); !ok || w != 596 || h != 842 {
		t.Errorf("DA-1p.heic: %d × %d (%v), want 596 × 842", w, h, ok)
	}
	if err := CheckSize(heifFile([2]uint32{100000, 100000}), -1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("100,000² HEIC: %v", err)
	}
	if _, _, ok := ImageSize(heifFile(), -1); ok {
		t.Error("a HEIF without sizes sized")
	}
}
