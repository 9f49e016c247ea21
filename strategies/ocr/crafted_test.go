//go:build cgo

package ocr

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/internal/pdftest"
	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// craftJPEG is a JPEG of w × h pixels and comps components (1 grey, 3 colour, 4 CMYK; every
// component sampled 1 × 1), written by hand so that any size, component count and coding can
// be declared: one quantisation table of ones, a DC table of two codes (no difference, or an
// 8-bit one) and an AC table of one (end of block), so each block is flat. The first block of
// component c has DC difference dc[c] (|dc| in 128..255; 0 for none), the rest repeat it.
// With adobe an Adobe marker (no transform: CMYK stored inverted); progressive declares
// SOF2. mcus is the number of MCUs whose data is written (-1: all; fewer is a cut file).
func craftJPEG(w, h, comps int, dc []int, adobe, progressive bool, mcus int) []byte {
	var b bytes.Buffer
	seg := func(marker byte, body []byte) {
		b.Write([]byte{0xFF, marker})
		binary.Write(&b, binary.BigEndian, uint16(len(body)+2))
		b.Write(body)
	}
	b.Write([]byte{0xFF, 0xD8})
	if adobe {
		seg(0xEE, []byte("Adobe\x00\x64\x00\x00\x00\x00\x00"))
	}
	seg(0xDB, append([]byte{0}, bytes.Repeat([]byte{1}, 64)...))
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(comps)}
	for c := range comps {
		sof = append(sof, byte(c+1), 0x11, 0)
	}
	if progressive {
		seg(0xC2, sof)
	} else {
		seg(0xC0, sof)
	}
	dcTable := append([]byte{0x00, 0, 2}, make([]byte, 14)...)
	seg(0xC4, append(dcTable, 0, 8))
	acTable := append([]byte{0x10, 1}, make([]byte, 15)...)
	seg(0xC4, append(acTable, 0))
	sos := []byte{byte(comps)}
	for c := range comps {
		sos = append(sos, byte(c+1), 0x00)
	}
	seg(0xDA, append(sos, 0, 63, 0))
	// Entropy-coded data: a bit writer with 0xFF stuffing.
	var acc uint32
	var nbits uint
	put := func(v uint32, n uint) {
		for i := int(n) - 1; i >= 0; i-- {
			acc = acc<<1 | (v>>uint(i))&1
			nbits++
			if nbits == 8 {
				b.WriteByte(byte(acc))
				if byte(acc) == 0xFF {
					b.WriteByte(0)
				}
				acc, nbits = 0, 0
			}
		}
	}
	total := ((w + 7) / 8) * ((h + 7) / 8)
	if mcus < 0 || mcus > total {
		mcus = total
	}
	for m := range mcus {
		for c := range comps {
			if m == 0 && c < len(dc) && dc[c] != 0 {
				put(1, 2) // '01': an 8-bit difference
				v := dc[c]
				if v < 0 {
					v += 255
				}
				put(uint32(v), 8)
			} else {
				put(0, 2) // '00': none
			}
			put(0, 1) // end of block
		}
	}
	if nbits > 0 {
		put(0xFF, 8-nbits) // pad with ones
	}
	if mcus == total {
		b.Write([]byte{0xFF, 0xD9})
	}
	return b.Bytes()
}

// craftTIFF is a TIFF of one w × h frame of spp samples of bps bits (photometric photo),
// in strips of one row, or in 256 × 256 tiles, holding pixel data for its first row (or
// tile) only: a file of a few hundred bytes that declares the size.
func craftTIFF(w, h uint32, bps, spp, photo uint16, tiled bool) []byte {
	var buf bytes.Buffer
	le := binary.LittleEndian
	buf.Write([]byte{'I', 'I', 42, 0, 8, 0, 0, 0})
	type entry struct {
		tag, typ uint16
		val      uint32
	}
	row := (w*uint32(bps)*uint32(spp) + 7) / 8
	if tiled {
		row = 256 * 256 * uint32(bps) * uint32(spp) / 8
	}
	entries := []entry{{256, 4, w}, {257, 4, h}, {258, 3, uint32(bps)}, {259, 3, 1}, {262, 3, uint32(photo)}, {277, 3, uint32(spp)}}
	const n = 9
	dataAt := uint32(8 + 2 + n*12 + 4)
	if tiled {
		entries = append(entries, entry{322, 3, 256}, entry{323, 3, 256}, entry{324, 4, dataAt})
	} else {
		entries = append(entries, entry{273, 4, dataAt}, entry{278, 4, 1}, entry{279, 4, row})
	}
	binary.Write(&buf, le, uint16(n))
	for _, e := range entries {
		binary.Write(&buf, le, e.tag)
		binary.Write(&buf, le, e.typ)
		binary.Write(&buf, le, uint32(1))
		if e.typ == 3 {
			binary.Write(&buf, le, uint16(e.val))
			binary.Write(&buf, le, uint16(0))
		} else {
			binary.Write(&buf, le, e.val)
		}
	}
	binary.Write(&buf, le, uint32(0))
	buf.Write(bytes.Repeat([]byte{255}, int(min(row, 1<<16))))
	return buf.Bytes()
}

// craftPNG is a PNG header declaring w × h pixels of colour type ct (interlaced or not) and
// a few bytes of compressed rows.
func craftPNG(w, h uint32, ct byte, interlaced bool) []byte {
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
	ihdr[8], ihdr[9] = 8, ct
	if interlaced {
		ihdr[12] = 1
	}
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, 4096))
	zw.Flush()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return b.Bytes()
}

// craftedImage is one abuse case: a small file declaring a huge image, and what the refusal
// must say.
type craftedImage struct {
	name  string
	data  []byte
	frame int
	want  string // in the error
	large bool   // refused from the header (scan.ErrTooLarge)
}

// craftedImages: 20,000 × 20,000 pixels (400 megapixels: 400 MB of grey, 1.6 GB of colour,
// under scan.MaxPixels so the size alone does not refuse them) in every format OCR reads.
// Those a row decoder reads reduced are read until their data runs out (BMP and PNM, whose
// rows are not compressed, are refused at once for being shorter than their rows); the others
// are refused from their header, before leptonica would allocate a raster for them.
func craftedImages() []craftedImage {
	const n = 20000
	bmpHdr := func(bpp uint16, comp uint32) []byte {
		palette := 0
		if bpp <= 8 {
			palette = 4 << bpp
		}
		b := make([]byte, 54+palette)
		copy(b, "BM")
		binary.LittleEndian.PutUint32(b[2:], uint32(54+palette+16))
		binary.LittleEndian.PutUint32(b[10:], uint32(54+palette))
		binary.LittleEndian.PutUint32(b[14:], 40)
		binary.LittleEndian.PutUint32(b[18:], n)
		binary.LittleEndian.PutUint32(b[22:], n)
		binary.LittleEndian.PutUint16(b[26:], 1)
		binary.LittleEndian.PutUint16(b[28:], bpp)
		binary.LittleEndian.PutUint32(b[30:], comp)
		return append(b, make([]byte, 16)...)
	}
	gif := []byte("GIF89a")
	gif = binary.LittleEndian.AppendUint16(gif, n)
	gif = binary.LittleEndian.AppendUint16(gif, n)
	gif = append(gif, 0, 0, 0, ',', 0, 0, 0, 0)
	gif = binary.LittleEndian.AppendUint16(gif, n)
	gif = binary.LittleEndian.AppendUint16(gif, n)
	gif = append(gif, 0x80, 0, 0, 0, 255, 255, 255, 2, 2, 0x44, 0x01, 0, ';')
	webp := []byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\xfe\x3f\x00\xfe\x3f\x00")
	binary.LittleEndian.PutUint32(webp[4:], uint32(len(webp)-8))
	return []craftedImage{
		{"grey.jpg", craftJPEG(n, n, 1, nil, false, false, 10), -1, "truncated", false},
		{"colour.jpg", craftJPEG(n, n, 3, nil, false, false, 10), -1, "truncated", false},
		{"cmyk.jpg", craftJPEG(n, n, 4, nil, true, false, 10), -1, "truncated", false},
		{"progressive.jpg", craftJPEG(n, n, 1, nil, false, true, 10), -1, "progressive JPEG", true},
		{"grey.png", craftPNG(n, n, 0, false), -1, "cannot decode PNG", false},
		{"colour.png", craftPNG(n, n, 2, false), -1, "cannot decode PNG", false},
		{"interlaced.png", craftPNG(n, n, 2, true), -1, "interlaced PNG", true},
		{"colour.tiff", craftTIFF(n, n, 8, 3, 2, false), 0, "cannot decode TIFF", false},
		{"grey.tiff", craftTIFF(n, n, 8, 1, 1, false), 0, "cannot decode TIFF", false},
		{"bilevel.tiff", craftTIFF(n, n, 1, 1, 0, false), 0, "cannot decode image", false}, // 50 MB at 1 bit: leptonica may try
		{"tiled.tiff", craftTIFF(n, n, 8, 3, 2, true), 0, "24-bit TIFF", true},
		{"16-bit.tiff", craftTIFF(n, n, 16, 1, 1, false), 0, "16-bit TIFF", true},
		{"pages.tiff", framesTIFF([][2]uint32{{64, 64}, {n, n}}), 1, "cannot decode TIFF", false},
		{"colour.bmp", bmpHdr(24, 0), -1, "BMP data cut short", false},
		{"palette.bmp", bmpHdr(8, 0), -1, "BMP data cut short", false},
		{"rle.bmp", bmpHdr(8, 1), -1, "cannot decode image", false}, // run-length: no reader takes it
		{"huge.gif", gif, -1, "GIF", true},
		{"huge.webp", webp, -1, "WebP", true},
		{"huge.ppm", []byte("P6\n20000 20000\n255\n\xff\xff\xff"), -1, "PNM data cut short", false},
		{"huge.pgm", []byte("P5\n20000 20000\n255\n\xff\xff\xff"), -1, "PNM data cut short", false},
		{"text.ppm", []byte("P3\n20000 20000\n255\n255 255 255\n"), -1, "colour PNM", true},
		{"16-bit.pgm", []byte("P5\n20000 20000\n65535\n\xff\xff"), -1, "grey PNM", true},
	}
}

// TestCraftedHugeImages: small files declaring 400-megapixel images, one per format and
// kind OCR reads, each end in a clear error — the image's size and kind, or the data running
// out — within two seconds, in a child process where each adds at most one reduced page
// (100 MB) to the resident memory: the full-size grey page alone is 400 MB. Never a panic, a
// hang or an image filled with grey past the data.
func TestCraftedHugeImages(t *testing.T) {
	if os.Getenv("QUARRY_CRAFTED_CHILD") != "" {
		craftedChild()
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestCraftedHugeImages$", "-test.v")
	cmd.Env = append(os.Environ(), "QUARRY_CRAFTED_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	cases := craftedImages()
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CASE "); ok {
			name, rest, _ := strings.Cut(v, " ")
			got[name] = rest
		}
	}
	for _, c := range cases {
		r, ok := got[c.name]
		if !ok {
			t.Errorf("%s: no result from the child\n%s", c.name, out)
			continue
		}
		f := strings.SplitN(r, " ", 3)
		if len(f) < 3 {
			t.Fatalf("%s: %q", c.name, r)
		}
		took, msg := f[0], f[2]
		peak, _ := strconv.Atoi(f[1])
		t.Logf("%-16s %6d bytes  %5s  %4d MB  %s", c.name, len(c.data), took, peak>>10, msg)
		if d, err := time.ParseDuration(took); err != nil || d > 2*time.Second {
			t.Errorf("%s: took %s", c.name, took)
		}
		switch {
		case strings.HasPrefix(msg, "ok"):
			t.Errorf("%s: decoded without error (%s)", c.name, msg)
		case !strings.Contains(msg, c.want):
			t.Errorf("%s: error %q does not say %q", c.name, msg, c.want)
		case c.large && !strings.Contains(msg, "too large") || c.large && !strings.Contains(msg, "20000 × 20000") && !strings.Contains(msg, "16383 × 16383"):
			t.Errorf("%s: error %q is not a size refusal", c.name, msg)
		}
		// One reduced page (10,000 × 10,000 grey) is the most a case may hold; the full-size
		// grey page alone would be 400 MB.
		if peak > 110<<10 {
			t.Errorf("%s: peak %d MB over the baseline, more than one reduced page", c.name, peak>>10)
		}
	}
}

// craftedChild decodes every crafted image as an OCR page is read and prints each outcome,
// its time and the peak resident memory it added: the Go heap is returned to the system and
// the peak reset (clear_refs) before each, so that one case's pages do not count for the
// next.
func craftedChild() {
	for _, c := range craftedImages() {
		debug.FreeOSMemory()
		_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
		base := procStatusKB("VmRSS:")
		start := time.Now()
		img, k, err := decodeGreyFit(c.data, c.frame, scan.MaxRenderPixels)
		took := time.Since(start).Round(time.Millisecond)
		peak := procStatusKB("VmHWM:") - base
		if err != nil {
			if errors.Is(err, scan.ErrTooLarge) && !strings.Contains(err.Error(), "too large") {
				err = fmt.Errorf("too large: %w", err)
			}
			fmt.Printf("CASE %s %v %d %v\n", c.name, took, peak, err)
			continue
		}
		fmt.Printf("CASE %s %v %d ok %v reduced by %d\n", c.name, took, peak, img.Bounds(), k)
	}
}

// procStatusKB reads a kB field of /proc/self/status (-1 when absent).
func procStatusKB(field string) int {
	status, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	return -1
}

// craftHEIC is a HEIC file's boxes declaring a w × h picture (tiles of 512 × 512 and the
// whole), without image data.
func craftHEIC(w, h uint32) []byte {
	box := func(typ string, body []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
		return append(append(b, typ...), body...)
	}
	var ipco []byte
	for _, s := range [][2]uint32{{512, 512}, {w, h}} {
		body := binary.BigEndian.AppendUint32(make([]byte, 4), s[0])
		ipco = append(ipco, box("ispe", binary.BigEndian.AppendUint32(body, s[1]))...)
	}
	meta := append(make([]byte, 4), box("hdlr", append(make([]byte, 8), "pict\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"...))...)
	meta = append(meta, box("iprp", box("ipco", ipco))...)
	return append(box("ftyp", []byte("heic\x00\x00\x00\x00mif1heic")), box("meta", meta)...)
}

// TestCraftedImagePageNamed: through the engine, a refused image is a 422 whose message says
// why, and in a multi-page TIFF which page.
func TestCraftedImagePageNamed(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       []string
	}{
		{"pages.tiff", string(framesTIFF([][2]uint32{{64, 64}, {64, 64}, {20000, 20000}})), []string{"page 3 of 3", "cannot decode TIFF"}},
		{"colour.bmp", string(craftedImages()[13].data), []string{"20000 × 20000", "BMP data cut short"}},
		{"grey.jpg", string(craftJPEG(20000, 20000, 1, nil, false, false, 10)), []string{"truncated"}},
		// heif-convert would decode it whole: refused from its header before it runs.
		{"photo.heic", string(craftHEIC(20000, 20000)), []string{"HEIC", "20000 × 20000", "decodes whole"}},
	} {
		opts := engine.DefaultOptions()
		opts.Strategy = "ocr_only"
		_, err := engine.Partition(t.Context(), engine.NewDocument(c.name, []byte(c.data)), opts)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable {
			t.Errorf("%s: err = %v, want a 422", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(ee.Msg, w) {
				t.Errorf("%s: %q does not say %q", c.name, ee.Msg, w)
			}
		}
	}
}

// TestCMYKJPEGLikeLeptonica: CMYK JPEGs (with Adobe's inverted samples and without) decoded
// scanline by scanline give exactly leptonica's grey pixels, at full size, and the block
// means when reduced; each component its own level, so a channel mixed up shows.
func TestCMYKJPEGLikeLeptonica(t *testing.T) {
	const w, h = 37, 21
	for _, adobe := range []bool{false, true} {
		data := craftJPEG(w, h, 4, []int{200, -150, 136, -240}, adobe, false, -1)
		got, ok, err := decodeJPEGGrey(data)
		if !ok || err != nil {
			t.Fatalf("adobe %v: not decoded (ok=%v, err=%v)", adobe, ok, err)
		}
		want, err := decodeLeptonica(data, -1)
		if err != nil {
			t.Fatal(err)
		}
		if got.Bounds() != want.Bounds() || !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("adobe %v: scanline decoder %v and leptonica %v differ", adobe, got.Pix[:4], want.Pix[:4])
		}
		small, k, err := decodeGreyFit(data, -1, float64((w+2)/3*((h+2)/3)))
		if err != nil || k != 3 || !bytes.Equal(small.Pix, scan.Shrink(want, 3).Pix) {
			t.Errorf("adobe %v: reduced by %d (err %v), not the block means", adobe, k, err)
		}
	}
}

// deflateTIFF is a w × h TIFF of spp 8-bit samples (1 grey, 3 RGB) in deflated strips of
// period rows, each row row(y) for y < period: the image repeats every period rows (h is a
// multiple of it), so one strip is compressed and every strip entry points at it — the file
// is small and quick to make, and the decoder still inflates every row.
func deflateTIFF(t *testing.T, w, h, period uint32, spp uint16, row func(y int, buf []byte)) []byte {
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	line := make([]byte, int(w)*int(spp))
	for y := range int(period) {
		row(y, line)
		zw.Write(line)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	strips := h / period
	var buf bytes.Buffer
	le := binary.LittleEndian
	buf.Write([]byte{'I', 'I', 42, 0, 8, 0, 0, 0})
	const n = 10
	arrays := uint32(8 + 2 + n*12 + 4) // StripOffsets, then StripByteCounts
	dataAt := arrays + 8*strips
	photo := uint32(1)
	if spp == 3 {
		photo = 2
	}
	binary.Write(&buf, le, uint16(n))
	for _, e := range [][4]uint32{{256, 4, 1, w}, {257, 4, 1, h}, {258, 3, 1, 8}, {259, 3, 1, 8}, {262, 3, 1, photo},
		{273, 4, strips, arrays}, {277, 3, 1, uint32(spp)}, {278, 4, 1, period}, {279, 4, strips, arrays + 4*strips}, {284, 3, 1, 1}} {
		binary.Write(&buf, le, uint16(e[0]))
		binary.Write(&buf, le, uint16(e[1]))
		binary.Write(&buf, le, e[2])
		if e[1] == 3 {
			binary.Write(&buf, le, uint16(e[3]))
			binary.Write(&buf, le, uint16(0))
		} else {
			binary.Write(&buf, le, e[3])
		}
	}
	binary.Write(&buf, le, uint32(0))
	for range strips {
		binary.Write(&buf, le, dataAt)
	}
	for range strips {
		binary.Write(&buf, le, uint32(z.Len()))
	}
	buf.Write(z.Bytes())
	return buf.Bytes()
}

// TestLargeImagesReadReduced: whole, valid images of 168 megapixels (14,000 × 12,000: over
// scan.MaxRenderPixels, so read at half size) — JPEGs in grey, colour and CMYK, a colour and a
// grey TIFF in deflated strips of 1,000 rows — are decoded in a child process adding at most the reduced
// page (42 MB) and 40 MB of working memory to its resident size, never the 168 MB of the
// full-size grey page (held before for grey JPEGs and TIFFs, with leptonica's or the strip
// reader's copies beside it).
func TestLargeImagesReadReduced(t *testing.T) {
	if os.Getenv("QUARRY_CRAFTED_CHILD") != "" {
		return // the child of TestCraftedHugeImages
	}
	if path := os.Getenv("QUARRY_DECODE_CHILD"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		debug.FreeOSMemory()
		_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
		base := procStatusKB("VmRSS:")
		img, k, err := decodeGreyFit(data, -1, scan.MaxRenderPixels)
		if err != nil {
			t.Fatal(err)
		}
		// Dark rows were drawn every 1,000 rows from row 500: the reduced page shows them.
		dark := 0
		for y := 0; y < img.Bounds().Dy(); y++ {
			if img.GrayAt(img.Bounds().Dx()/2, y).Y < 128 {
				dark++
			}
		}
		fmt.Printf("RESULT %d %v %d %d\n", procStatusKB("VmHWM:")-base, img.Bounds().Size(), k, dark)
		return
	}
	if testing.Short() {
		t.Skip("168-megapixel images")
	}
	const w, h = 14000, 12000
	row := func(spp int) func(y int, b []byte) {
		return func(y int, b []byte) {
			v := byte(255)
			if y%1000 >= 500 && y%1000 < 508 {
				v = 20
			}
			for i := range b {
				b[i] = v
			}
			if spp == 3 && v < 255 {
				for i := 0; i+2 < len(b); i += 3 {
					b[i+1] = v / 2 // tinted
				}
			}
		}
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data func() []byte
		dark bool // the test image has the dark rows
	}{
		{"grey.jpg", func() []byte { return craftJPEG(w, h, 1, []int{200}, false, false, -1) }, false},
		{"colour.jpg", func() []byte { return craftJPEG(w, h, 3, []int{200, -150, 136}, false, false, -1) }, false},
		{"cmyk.jpg", func() []byte { return craftJPEG(w, h, 4, []int{200, -150, 136, -240}, true, false, -1) }, false},
		{"colour.tiff", func() []byte { return deflateTIFF(t, w, h, 1000, 3, row(3)) }, true},
		{"grey.tiff", func() []byte { return deflateTIFF(t, w, h, 1000, 1, row(1)) }, true},
	} {
		path := filepath.Join(dir, c.name)
		data := c.data()
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "-test.run=^TestLargeImagesReadReduced$", "-test.v")
		cmd.Env = append(os.Environ(), "QUARRY_DECODE_CHILD="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: child: %v\n%s", c.name, err, out)
		}
		var peak, k, dark, rw, rh int
		i := bytes.Index(out, []byte("RESULT "))
		if i < 0 {
			t.Fatalf("%s: no result\n%s", c.name, out)
		}
		if _, err := fmt.Sscanf(string(out[i:]), "RESULT %d (%d,%d) %d %d", &peak, &rw, &rh, &k, &dark); err != nil {
			t.Fatalf("%s: %v in %q", c.name, err, out[i:])
		}
		t.Logf("%-12s %6d KB  read as %d × %d (reduced by %d)  peak +%d MB", c.name, len(data)>>10, rw, rh, k, peak>>10)
		if k != 2 || rw != w/2 || rh != h/2 {
			t.Errorf("%s: read as %d × %d reduced by %d, want %d × %d by 2", c.name, rw, rh, k, w/2, h/2)
		}
		if c.dark && dark != h/1000*4 {
			t.Errorf("%s: %d dark rows in the reduced page, want %d", c.name, dark, h/1000*4)
		}
		if limit := (w/2*h/2)>>10 + 40<<10; peak > limit {
			t.Errorf("%s: peak +%d MB, more than the reduced page and 40 MB (%d MB)", c.name, peak>>10, limit>>10)
		}
	}
}

// TestPDFHugeEmbeddedImage: a scanned page whose picture is 20,000 × 20,000 grey pixels (400
// megapixels in a 0.5 MB PDF: Flate-compressed, a block of text drawn 8 times its size) goes to
// OCR by rendering the page, never by decoding the picture: pdftoppm draws it scaled to the
// page's 300 DPI, so the reading process holds the page (8 MP), not the picture (400 MB), and
// the text is read. The peak bound is the 40-megapixel page's (maxPeakKB).
func TestPDFHugeEmbeddedImage(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a 400-megapixel picture")
	}
	const n, scale = 20000, 8
	page := textPage(t, osdLines)
	pb := page.Bounds()
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]byte, n)
	for y := range n {
		for i := range row {
			row[i] = 255
		}
		if py := (y - 2000) / scale; y >= 2000 && py < pb.Dy() {
			for px := range min(pb.Dx()*scale, n-2000) {
				row[2000+px] = page.GrayAt(px/scale, py).Y
			}
		}
		zw.Write(row)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	doc := pdftest.Doc{
		Pages: []pdftest.Page{{Content: "q 612 0 0 792 0 0 cm /Im1 Do Q", Resources: fmt.Sprintf("<< /XObject << /Im1 %d 0 R >> >>", pdftest.FirstExtra(1))}},
		Extra: []string{pdftest.Stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", n, n), z.String())},
	}
	data := doc.Bytes()
	peak, pages := largeImagePeak(t, "scan.pdf", data)
	t.Logf("%d KB PDF of a %d × %d picture: text read on %d page(s), peak %d MB", len(data)>>10, n, n, pages, peak>>10)
	if pages != 1 {
		t.Errorf("text read on %d pages, want 1", pages)
	}
	if peak > maxPeakKB {
		t.Errorf("peak %d MB, more than %d MB", peak>>10, maxPeakKB>>10)
	}
}
