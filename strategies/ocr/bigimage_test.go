//go:build cgo

package ocr

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/quarrydocs/quarry/engine"
)

// maxPeakKB is the resident-memory ceiling for reading a 40-megapixel colour scan.
const maxPeakKB = 300 << 10

// TestLargeImageMemory reads generated 40-megapixel colour PNGs (10,973 × 3,570, the size of
// a wide engineering scan) in a fresh process, the way the OCR plugin does, and bounds that
// process's peak resident memory (VmHWM): the page must not be held as several full-size
// copies (a 32-bit colour raster alone is 157 MB), nor Tesseract's working memory grow with
// the whole page. "sparse" has five lines of text; "dense" is covered with text edge to edge
// (about 4,000 words), where Tesseract's own structures dominate; "sparse tiff" is the sparse
// page as a deflated RGB TIFF.
func TestLargeImageMemory(t *testing.T) {
	if path := os.Getenv("QUARRY_BIGIMAGE_CHILD"); path != "" {
		largeImageChild(t, path)
		return
	}
	if testing.Short() {
		t.Skip("40-megapixel OCR")
	}
	page := textPage(t, osdLines)
	for _, c := range []struct {
		name        string
		dense, tiff bool
		ruled       bool
	}{{"sparse", false, false, false}, {"dense", true, false, false}, {"sparse tiff", false, true, false}, {"ruled", false, false, true}} {
		name, dense := c.name, c.dense
		t.Run(name, func(t *testing.T) {
			const w, h = 10973, 3570
			img := image.NewNRGBA(image.Rect(0, 0, w, h))
			for i := range img.Pix {
				img.Pix[i] = 255
			}
			if c.ruled {
				drawTable(t, img, image.Rect(300, 1200, w-300, h-200), 10, 24)
			}
			pb := page.Bounds()
			at := []image.Point{{400, 600}}
			if dense {
				at = nil
				for y := 20; y+pb.Dy() <= h; y += pb.Dy() - 60 {
					for x := 20; x+pb.Dx() <= w; x += pb.Dx() {
						at = append(at, image.Pt(x, y))
					}
				}
			}
			for _, o := range at {
				for y := 0; y < pb.Dy(); y++ {
					for x := 0; x < pb.Dx(); x++ {
						v := page.GrayAt(x, y).Y
						if v < 255 {
							img.SetNRGBA(x+o.X, y+o.Y, color.NRGBA{v, v / 2, v, 255}) // dark text on white, tinted
						}
					}
				}
			}
			file, data := "wide.tiff", []byte(nil)
			if c.tiff {
				data = colourTIFF(t, []*image.NRGBA{img})
			} else {
				var buf bytes.Buffer
				if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
					t.Fatal(err)
				}
				file, data = "wide.png", buf.Bytes()
			}
			img = nil
			peak, _ := largeImagePeak(t, file, data)
			t.Logf("peak resident memory reading a %d×%d colour image (%s): %d MB", w, h, name, peak>>10)
			if peak > maxPeakKB {
				t.Errorf("peak %d MB, more than %d MB", peak>>10, maxPeakKB>>10)
			}
		})
	}
}

// largeImagePeak reads a document with hi_res in a child process and returns the child's peak
// resident memory in KB and the number of pages on which it read the test text.
func largeImagePeak(t *testing.T, name string, data []byte, env ...string) (peakKB, pages int) {
	peakKB, pages, _ = largeImageRun(t, name, data, env...)
	return peakKB, pages
}

// largeImageRun is largeImagePeak that also returns the layout size of the page the text was
// read on, as the elements' coordinates give it ("W×H").
func largeImageRun(t *testing.T, name string, data []byte, env ...string) (peakKB, pages int, layout string) {
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestLargeImageMemory$", "-test.v")
	cmd.Env = append(append(os.Environ(), env...), "QUARRY_BIGIMAGE_CHILD="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	peakKB, pages = -1, -1
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(l, "PEAK_KB="); ok {
			peakKB, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(l, "PAGES_READ="); ok {
			pages, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(l, "LAYOUT="); ok {
			layout = v
		}
	}
	if peakKB < 0 {
		t.Fatalf("child reported no peak:\n%s", out)
	}
	return peakKB, pages, layout
}

// TestMultiPageTIFFMemory: a multi-page colour TIFF is decoded a page at a time (a scanline
// at a time), and the pages in flight are bounded by the workers, not the document: with one
// worker, reading ten 8-megapixel colour pages (a 300 DPI scan) peaks within four grey pages
// (33 MB: the collector's timing moves the peak by about two) of reading two, where holding
// every page would add 66 MB of grey (264 MB of 32-bit colour).
func TestMultiPageTIFFMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-page OCR")
	}
	page := textPage(t, osdLines)
	const w, h = 3300, 2500
	frame := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range frame.Pix {
		frame.Pix[i] = 255
	}
	pb := page.Bounds()
	for y := 0; y < pb.Dy(); y++ {
		for x := 0; x < pb.Dx(); x++ {
			if v := page.GrayAt(x, y).Y; v < 255 {
				frame.SetNRGBA(x+300, y+400, color.NRGBA{v, v / 2, v, 255})
			}
		}
	}
	peaks := map[int]int{}
	for _, n := range []int{2, 10} {
		frames := make([]*image.NRGBA, n)
		for i := range frames {
			frames[i] = frame
		}
		peak, pages := largeImagePeak(t, "pages.tiff", colourTIFF(t, frames), "QUARRY_OCR_WORKERS=1")
		if pages != n {
			t.Errorf("%d frames: text read on %d pages", n, pages)
		}
		peaks[n] = peak
		t.Logf("%d colour frames of %d×%d: peak %d MB", n, w, h, peak>>10)
	}
	if grew := peaks[10] - peaks[2]; grew > 4*(w*h)>>10 {
		t.Errorf("ten pages peak %d MB above two: more than four grey pages (%d MB)", grew>>10, 4*(w*h)>>20)
	}
	if peaks[10] > maxPeakKB {
		t.Errorf("ten pages peak %d MB", peaks[10]>>10)
	}
}

// colourTIFF writes frames as one deflate-compressed 8-bit RGB TIFF, 16 rows a strip.
func colourTIFF(t *testing.T, frames []*image.NRGBA) []byte {
	var buf bytes.Buffer
	le := binary.LittleEndian
	buf.Write([]byte{'I', 'I', 42, 0, 8, 0, 0, 0})
	const rowsPerStrip = 16
	for f, img := range frames {
		w, h := img.Bounds().Dx(), img.Bounds().Dy()
		var strips [][]byte
		row := make([]byte, 3*w)
		for y0 := 0; y0 < h; y0 += rowsPerStrip {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			for y := y0; y < min(y0+rowsPerStrip, h); y++ {
				for x := range w {
					copy(row[3*x:], img.Pix[y*img.Stride+4*x:][:3])
				}
				zw.Write(row)
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			strips = append(strips, z.Bytes())
		}
		// Layout: IFD, BitsPerSample values, strip offsets, strip byte counts, strip data.
		const entries = 10
		ifdAt := buf.Len()
		bpsAt := ifdAt + 2 + entries*12 + 4
		offsAt := bpsAt + 6
		countsAt := offsAt + 4*len(strips)
		dataAt := countsAt + 4*len(strips)
		size := 0
		for _, s := range strips {
			size += len(s)
		}
		next := 0
		if f < len(frames)-1 {
			next = dataAt + size
		}
		e := func(tag, typ uint16, count, val uint32) {
			binary.Write(&buf, le, tag)
			binary.Write(&buf, le, typ)
			binary.Write(&buf, le, count)
			binary.Write(&buf, le, val)
		}
		binary.Write(&buf, le, uint16(entries))
		e(256, 4, 1, uint32(w))                          // ImageWidth
		e(257, 4, 1, uint32(h))                          // ImageLength
		e(258, 3, 3, uint32(bpsAt))                      // BitsPerSample: 8, 8, 8
		e(259, 3, 1, 8)                                  // Compression: deflate
		e(262, 3, 1, 2)                                  // Photometric: RGB
		e(273, 4, uint32(len(strips)), uint32(offsAt))   // StripOffsets
		e(277, 3, 1, 3)                                  // SamplesPerPixel
		e(278, 4, 1, rowsPerStrip)                       // RowsPerStrip
		e(279, 4, uint32(len(strips)), uint32(countsAt)) // StripByteCounts
		e(284, 3, 1, 1)                                  // PlanarConfiguration: contiguous
		binary.Write(&buf, le, uint32(next))
		binary.Write(&buf, le, [3]uint16{8, 8, 8})
		at := dataAt
		for _, s := range strips {
			binary.Write(&buf, le, uint32(at))
			at += len(s)
		}
		for _, s := range strips {
			binary.Write(&buf, le, uint32(len(s)))
		}
		for _, s := range strips {
			buf.Write(s)
		}
	}
	return buf.Bytes()
}

func largeImageChild(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.DefaultOptions()
	opts.Strategy = "hi_res"
	opts.Coordinates = true
	els, err := engine.Partition(t.Context(), engine.NewDocument(filepath.Base(path), data), opts)
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	pages := map[int]bool{}
	for _, e := range els {
		text = append(text, e.Text)
		if strings.Contains(e.Text, "warehouse inventory") && e.Metadata.PageNumber != nil {
			if !pages[*e.Metadata.PageNumber] && e.Metadata.Coordinates != nil {
				c := e.Metadata.Coordinates
				fmt.Printf("LAYOUT=%v×%v at %v,%v\n", c.LayoutWidth, c.LayoutHeight, c.Points[0][0], c.Points[0][1])
			}
			pages[*e.Metadata.PageNumber] = true
		}
	}
	if all := strings.Join(text, " "); !strings.Contains(all, "warehouse inventory") {
		t.Errorf("text not read: %q", all)
	}
	os.Stdout.WriteString("PAGES_READ=" + strconv.Itoa(len(pages)) + "\n")
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc")
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			os.Stdout.WriteString("PEAK_KB=" + strconv.Itoa(kb) + "\n")
		}
	}
}

// drawTable draws a ruled table of rows × cols cells filling r on img, each cell holding a
// short word, so that the page has ruling for rule removal and aligned words for table
// detection (the ruled-table path of hi_res).
func drawTable(t *testing.T, img *image.NRGBA, r image.Rectangle, cols, rows int) {
	t.Helper()
	data, err := os.ReadFile(dejaVu)
	if err != nil {
		t.Skipf("font: %v", err)
	}
	f, err := opentype.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 28, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	defer face.Close()
	cw, ch := r.Dx()/cols, r.Dy()/rows
	black := color.NRGBA{0, 0, 0, 255}
	for i := 0; i <= cols; i++ {
		for y := r.Min.Y; y <= r.Min.Y+rows*ch; y++ {
			for k := range 3 {
				img.SetNRGBA(r.Min.X+i*cw+k, y, black)
			}
		}
	}
	for j := 0; j <= rows; j++ {
		for x := r.Min.X; x <= r.Min.X+cols*cw+2; x++ {
			for k := range 3 {
				img.SetNRGBA(x, r.Min.Y+j*ch+k, black)
			}
		}
	}
	d := &font.Drawer{Dst: img, Src: image.NewUniform(black), Face: face}
	for j := range rows {
		for i := range cols {
			d.Dot = fixed.P(r.Min.X+i*cw+20, r.Min.Y+j*ch+ch/2+10)
			d.DrawString(fmt.Sprintf("item %d-%d", j+1, i+1))
		}
	}
}

// TestHugeImageReadReduced: an image over scan.MaxRenderPixels (a 192-megapixel grey PNG of a
// few hundred KB, 16,000 × 12,000, its text set twice the usual size, as a 400 DPI poster
// scan) is read at the resolution that fits, as an oversized PDF page is rendered: the text
// is read, the coordinates are in the image's own pixels (the layout is the full 16,000 ×
// 12,000 and the text's box where it was drawn), and the peak stays near the one decoded
// grey raster rather than the several full-size copies recognition made of it.
func TestHugeImageReadReduced(t *testing.T) {
	if testing.Short() {
		t.Skip("192-megapixel OCR")
	}
	const w, h, at, scale = 16000, 12000, 3000, 2
	page := textPage(t, osdLines)
	pb := page.Bounds()
	var buf bytes.Buffer
	buf.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&buf, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		crc.Write([]byte(typ))
		crc.Write(data)
		buf.WriteString(typ)
		buf.Write(data)
		binary.Write(&buf, binary.BigEndian, crc.Sum32())
	}
	hdr := make([]byte, 13)
	binary.BigEndian.PutUint32(hdr, w)
	binary.BigEndian.PutUint32(hdr[4:], h)
	hdr[8] = 8 // 8-bit grey
	chunk("IHDR", hdr)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	row := make([]byte, 1+w)
	for y := range h {
		for i := 1; i < len(row); i++ {
			row[i] = 255
		}
		if py := (y - at) / scale; y >= at && py < pb.Dy() {
			for px := range pb.Dx() * scale {
				row[1+at+px] = page.GrayAt(px/scale, py).Y
			}
		}
		zw.Write(row)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	t.Logf("%d×%d grey PNG: %d KB", w, h, buf.Len()>>10)
	peak, pages, layout := largeImageRun(t, "poster.png", buf.Bytes())
	t.Logf("peak %d MB, layout %s", peak>>10, layout)
	if pages != 1 {
		t.Fatalf("text read on %d pages", pages)
	}
	var lw, lh, x, y float64
	if _, err := fmt.Sscanf(layout, "%g×%g at %g,%g", &lw, &lh, &x, &y); err != nil || lw != w || lh != h {
		t.Errorf("layout %q, want the image's %d×%d", layout, w, h)
	}
	if x < at-200 || x > at+400 || y < at-200 || y > at+800 {
		t.Errorf("text box at %v,%v, want near where it was drawn (%d,%d)", x, y, at, at)
	}
	// The rows are reduced as they are decoded (a grey PNG through leptonica was held twice at
	// full size, 405 MB peak): the reduced page (46 MB), recognition's copies of it and
	// Tesseract peaked at 189 MB. Bounded at 1.25 full-size grey copies (229 MB).
	if limit := 5 * w * h / 4 >> 10; peak > limit {
		t.Errorf("peak %d MB, more than 1.25 full-size grey copies (%d MB)", peak>>10, limit>>10)
	}
}

// posterImage is a white w × h colour image with page (scaled by scale) drawn at (at, at) in a
// dark tint, computed pixel by pixel so that encoding it never holds the raster.
type posterImage struct {
	page          *image.Gray
	w, h, at, scl int
}

func (p posterImage) ColorModel() color.Model { return color.RGBAModel }
func (p posterImage) Bounds() image.Rectangle { return image.Rect(0, 0, p.w, p.h) }
func (p posterImage) At(x, y int) color.Color {
	px, py := (x-p.at)/p.scl, (y-p.at)/p.scl
	if x >= p.at && y >= p.at && image.Pt(px, py).In(p.page.Bounds()) {
		if v := p.page.GrayAt(px, py).Y; v < 255 {
			return color.RGBA{v, v / 2, v, 255}
		}
	}
	return color.RGBA{255, 255, 255, 255}
}

// TestHugeJPEGReadReduced: a 16,000 × 12,000 colour JPEG (192 MP) is decoded by libjpeg at
// half scale (DCT scaling), never at full size, and its text read with boxes in the image's
// own pixels.
func TestHugeJPEGReadReduced(t *testing.T) {
	if testing.Short() {
		t.Skip("192-megapixel OCR")
	}
	const w, h, at, scale = 16000, 12000, 3000, 2
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, posterImage{textPage(t, osdLines), w, h, at, scale}, &jpeg.Options{Quality: 40}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d×%d colour JPEG: %d KB", w, h, buf.Len()>>10)
	peak, pages, layout := largeImageRun(t, "poster.jpg", buf.Bytes())
	t.Logf("peak %d MB, layout %s", peak>>10, layout)
	if pages != 1 {
		t.Fatalf("text read on %d pages", pages)
	}
	var lw, lh, x, y float64
	if _, err := fmt.Sscanf(layout, "%g×%g at %g,%g", &lw, &lh, &x, &y); err != nil || lw != w || lh != h {
		t.Errorf("layout %q, want the image's %d×%d", layout, w, h)
	}
	if x < at-200 || x > at+400 || y < at-200 || y > at+800 {
		t.Errorf("text box at %v,%v, want near where it was drawn (%d,%d)", x, y, at, at)
	}
	// Decoded at full size and then reduced, the page peaked at 382 MB (the 183 MB full-size
	// grey copy beside the reduced one and recognition's); decoded at half scale, 198 MB.
	// Bounded, as the PNG, at 1.25 full-size grey copies (229 MB).
	if limit := 5 * w * h / 4 >> 10; peak > limit {
		t.Errorf("peak %d MB, more than 1.25 full-size grey copies (%d MB)", peak>>10, limit>>10)
	}
}
