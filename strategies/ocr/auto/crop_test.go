package auto

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/internal/pdftest"
)

// jbig2Black is an embedded JBIG2 stream (the PDF profile: segments without a file header) of
// a w x h page, all black: a page information segment and an immediate generic region coded
// with MMR (CCITT G4), hand-assembled since no JBIG2 encoder is packaged for Debian. Its first
// row is a horizontal-mode code (white run 0, black run 8: w must be 8), every next row two V0
// codes against the black row above.
func jbig2Black(h int) string {
	const w = 8
	var b bytes.Buffer
	seg := func(num uint32, typ byte, data []byte) {
		binary.Write(&b, binary.BigEndian, num)
		b.WriteByte(typ)
		b.WriteByte(0) // no referred-to segments
		b.WriteByte(1) // page 1
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.Write(data)
	}
	u32 := func(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
	page := append(append(append(append(u32(w), u32(uint32(h))...), u32(0)...), u32(0)...), 0, 0, 0)
	seg(0, 48, page)
	bits := "001" + "00110101" + "000101" + strings.Repeat("11", h-1) + "000000000001000000000001"
	for len(bits)%8 != 0 {
		bits += "0"
	}
	var mmr []byte
	for i := 0; i < len(bits); i += 8 {
		var v byte
		for _, c := range bits[i : i+8] {
			v = v<<1 | byte(c-'0')
		}
		mmr = append(mmr, v)
	}
	region := append(append(append(append(u32(w), u32(uint32(h))...), u32(0)...), u32(0)...), 0)
	region = append(region, 1) // generic region flags: MMR
	seg(1, 38, append(region, mmr...))
	return b.String()
}

func noiseJPEG(w, h int) string {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 37 % 251)
	}
	var b bytes.Buffer
	jpeg.Encode(&b, img, nil)
	return b.String()
}

func deflated(n int) string {
	var b bytes.Buffer
	z := zlib.NewWriter(&b)
	z.Write(make([]byte, n))
	z.Close()
	return b.String()
}

// The pictures the image decoder refuses still get image_base64 when extract_image_block_types
// asks for them: JPEG 2000 (made by OpenJPEG's encoder), JBIG2, an image over the decoder's
// pixel bound and a truncated JPEG are rendered from the page as the reference renders every
// crop, and so is a table. Each is a JPEG of the element's box at 200 dpi, with the colours the
// picture has; the truncated JPEG is warned about, naming its page.
func TestRefusedPicturesAreRenderedFromThePage(t *testing.T) {
	if _, err := exec.LookPath(pdftoppmBin); err != nil {
		t.Skip("pdftoppm (poppler-utils) not installed")
	}
	jp2, err := os.ReadFile(filepath.Join("testdata", "two.jp2"))
	if err != nil {
		t.Fatal(err)
	}
	bad := noiseJPEG(64, 64)
	images := []string{
		pdftest.Stream("/Type /XObject /Subtype /Image /Width 40 /Height 30 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /JPXDecode", string(jp2)),
		pdftest.Stream("/Type /XObject /Subtype /Image /Width 8 /Height 8 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /JBIG2Decode", jbig2Black(8)),
		pdftest.Stream("/Type /XObject /Subtype /Image /Width 6000 /Height 5000 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", deflated(6000*5000)),
		pdftest.Stream("/Type /XObject /Subtype /Image /Width 64 /Height 64 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", bad[:len(bad)*2/3]),
	}
	n := len(images) + 1
	f := pdftest.FirstExtra(n)
	d := pdftest.Doc{Extra: append([]string{pdftest.Helvetica}, images...)}
	for i := range images {
		d.Pages = append(d.Pages, pdftest.Page{
			Content:   pdftest.Text("F1", 11, 72, 720, fmt.Sprintf("Page %d shows one picture below this sentence.", i+1)) + "q 216 0 0 144 72 400 cm /Im1 Do Q",
			Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> /XObject << /Im1 %d 0 R >> >>", f, f+1+i),
		})
	}
	// A ruled table of three rows and three columns.
	var tbl strings.Builder
	tbl.WriteString(pdftest.Text("F1", 11, 72, 720, "A ruled table follows this sentence."))
	for r := 0; r <= 3; r++ {
		fmt.Fprintf(&tbl, "72 %d m 372 %d l S\n", 600-20*r, 600-20*r)
	}
	for c := 0; c <= 3; c++ {
		fmt.Fprintf(&tbl, "%d 540 m %d 600 l S\n", 72+100*c, 72+100*c)
	}
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			tbl.WriteString(pdftest.Text("F1", 10, float64(78+100*c), float64(586-20*r), fmt.Sprintf("cell %d%d", r, c)))
		}
	}
	d.Pages = append(d.Pages, pdftest.Page{Content: tbl.String(), Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", f)})

	var logs bytes.Buffer
	opts := engine.DefaultOptions()
	opts.ExtractImageBlockTypes = []string{"Image", "Table"}
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	ocr.calls = nil
	els, err := engine.Partition(context.Background(), engine.NewDocument("refused.pdf", d.Bytes()), opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]image.Image{}
	for _, e := range els {
		if e.Type != element.Image && e.Type != element.Table {
			continue
		}
		p := *e.Metadata.PageNumber
		if e.Metadata.ImageBase64 == "" || e.Metadata.ImageMIMEType != "image/jpeg" {
			t.Errorf("page %d: %s without image_base64", p, e.Type)
			continue
		}
		b, _ := base64.StdEncoding.DecodeString(e.Metadata.ImageBase64)
		img, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("page %d: %v", p, err)
			continue
		}
		got[p] = img
	}
	if len(got) != n || len(ocr.calls) != 0 {
		t.Fatalf("crops of pages %v (want 1..%d), OCR calls %q", keys(got), n, ocr.calls)
	}
	// 216 x 144 points at 200 dpi.
	for p := 1; p <= 4; p++ {
		if b := got[p].Bounds(); b.Dx() < 598 || b.Dx() > 602 || b.Dy() < 398 || b.Dy() > 402 {
			t.Errorf("page %d: crop %v, want 600 x 400", p, b)
		}
	}
	rgb := func(p, x, y int) [3]int {
		r, g, b, _ := got[p].At(x, y).RGBA()
		return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
	}
	near := func(c, want [3]int) bool {
		for i := range c {
			if c[i] < want[i]-40 || c[i] > want[i]+40 {
				return false
			}
		}
		return true
	}
	if l, r := rgb(1, 150, 200), rgb(1, 450, 200); !near(l, [3]int{220, 20, 20}) || !near(r, [3]int{20, 20, 220}) {
		t.Errorf("JPEG 2000 crop: left %v right %v, want red and blue", l, r)
	}
	if c := rgb(2, 300, 200); !near(c, [3]int{0, 0, 0}) {
		t.Errorf("JBIG2 crop: %v, want black", c)
	}
	if c := rgb(3, 300, 200); !near(c, [3]int{0, 0, 0}) {
		t.Errorf("over-the-bound crop: %v, want black (zero samples)", c)
	}
	if b := got[n].Bounds(); b.Dx() < 800 || b.Dy() < 150 {
		t.Errorf("table crop %v, want about 834 x 167", b)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "page=4") {
		t.Errorf("no warning for the truncated JPEG on page 4:\n%s", logs.String())
	}
}

func keys[V any](m map[int]V) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Where the page cannot be rendered, the element goes on without image_base64 and a warning
// names the page, the type and the reason: a renderer that is missing, that fails, or that
// hangs (stopped at its deadline), and crops past the document's rendering budget. Nothing
// fails the request.
func TestCropFailuresAreWarned(t *testing.T) {
	dir := t.TempDir()
	hang := filepath.Join(dir, "hang")
	fail := filepath.Join(dir, "fail")
	os.WriteFile(hang, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755)
	os.WriteFile(fail, []byte("#!/bin/sh\necho 'Syntax Error: broken page' >&2\nexit 1\n"), 0o755)
	pic := element.Element{Type: element.Image, Metadata: element.Metadata{PageNumber: element.Int(1), Coordinates: &element.Coordinates{
		Points: []element.Point{{72, 72}, {72, 144}, {144, 144}, {144, 72}}}}}
	for _, c := range []struct {
		name, bin string
		budget    time.Duration
		want      string
	}{
		{"missing", filepath.Join(dir, "none"), time.Minute, "install poppler-utils"},
		{"fails", fail, time.Minute, "Syntax Error: broken page"},
		{"hangs", hang, time.Minute, "rendering took over"},
		{"budget spent", fail, 0, "budget"},
	} {
		var logs bytes.Buffer
		ctx := contract.WithLogger(context.Background(), slog.New(slog.NewTextHandler(&logs, nil)))
		cr := newCropper(contract.NewDocument("x.pdf", []byte("%PDF-1.4\n")))
		cr.bin, cr.timeout, cr.budget = c.bin, 300*time.Millisecond, c.budget
		els := []element.Element{pic}
		start := time.Now()
		err := cr.fillCrops(ctx, 1, els, map[element.Type]bool{element.Image: true}, 0, 612, 792, []error{fmt.Errorf("pdf: image 5: JPXDecode data is not decoded here")})
		cr.close()
		if err != nil || els[0].Metadata.ImageBase64 != "" {
			t.Errorf("%s: err %v, image_base64 %q", c.name, err, els[0].Metadata.ImageBase64)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("%s: took %v", c.name, el)
		}
		l := logs.String()
		if !strings.Contains(l, "level=WARN") || !strings.Contains(l, "page=1") || !strings.Contains(l, c.want) || !strings.Contains(l, "JPXDecode") {
			t.Errorf("%s: log does not say page, reason %q and the decoder's refusal:\n%s", c.name, c.want, l)
		}
	}
	// Past the budget, the first element is warned about with its page and the rest counted
	// once, not one warning each.
	var logs bytes.Buffer
	ctx := contract.WithLogger(context.Background(), slog.New(slog.NewTextHandler(&logs, nil)))
	cr := newCropper(contract.NewDocument("x.pdf", []byte("%PDF-1.4\n")))
	cr.budget = 0
	for page := 1; page <= 50; page++ {
		if err := cr.fillCrops(ctx, page, []element.Element{pic, pic}, map[element.Type]bool{element.Image: true}, 0, 612, 792, nil); err != nil {
			t.Fatal(err)
		}
	}
	cr.summary(ctx)
	if n := strings.Count(logs.String(), "level=WARN"); n != 2 || !strings.Contains(logs.String(), "elements=100") {
		t.Errorf("%d warnings for 100 crops over the budget:\n%s", n, logs.String())
	}
}

// cropBox renders at 200 dpi, lowers the resolution for a box over the pixel bound before
// anything renders, and cuts the box to the page.
func TestCropBox(t *testing.T) {
	if dpi, x, y, w, h, ok := cropBox(72, 36, 144, 72, 612, 792); !ok || dpi != 200 || x != 200 || y != 100 || w != 200 || h != 100 {
		t.Errorf("got %d %d %d %d %d %v", dpi, x, y, w, h, ok)
	}
	dpi, _, _, w, h, ok := cropBox(0, 0, 14400, 14400, 14400, 14400)
	if !ok || dpi >= 200 || int64(w)*int64(h) > maxCropPixels*11/10 {
		t.Errorf("poster: %d dpi, %d x %d", dpi, w, h)
	}
	if _, _, _, _, _, ok := cropBox(700, 0, 800, 10, 612, 792); ok {
		t.Error("a box off the page was cropped")
	}
}

// The crop is taken where the element is on the page as shown: on a page turned by /Rotate 90
// and on one whose MediaBox does not start at the origin, the crop of a red-and-blue JPEG 2000
// picture holds red and blue and has the picture's shown size.
func TestCropOfTurnedAndOffsetPages(t *testing.T) {
	if _, err := exec.LookPath(pdftoppmBin); err != nil {
		t.Skip("pdftoppm (poppler-utils) not installed")
	}
	jp2, err := os.ReadFile(filepath.Join("testdata", "two.jp2"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		entries       string
		content       string
		width, height int // the crop's size in pixels at 200 dpi
	}{
		{"rotate 90", "/Rotate 90", "q 216 0 0 144 72 400 cm /Im1 Do Q", 400, 600},
		{"offset media box", "/CropBox [100 100 712 892]", "q 216 0 0 144 172 500 cm /Im1 Do Q", 600, 400},
	} {
		f := pdftest.FirstExtra(1)
		pg := pdftest.Page{
			Content:   pdftest.Text("F1", 11, 72, 720, "A sentence on the page with the picture.") + c.content,
			Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> /XObject << /Im1 %d 0 R >> >>", f, f+1),
			Entries:   c.entries,
		}
		d := pdftest.Doc{Pages: []pdftest.Page{pg}, Extra: []string{pdftest.Helvetica,
			pdftest.Stream("/Type /XObject /Subtype /Image /Width 40 /Height 30 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /JPXDecode", string(jp2))}}
		data := d.Bytes()
		if c.name == "offset media box" {
			data = bytes.Replace(data, []byte("/MediaBox [0 0 612 792]"), []byte("/MediaBox [100 100 712 892]"), 1)
			data = bytes.Replace(data, []byte("72 720 Td"), []byte("172 820 Td"), 1)
		}
		opts := engine.DefaultOptions()
		opts.ExtractImageBlockTypes = []string{"Image"}
		els, err := engine.Partition(context.Background(), engine.NewDocument("turned.pdf", data), opts)
		if err != nil {
			t.Fatal(err)
		}
		var img image.Image
		for _, e := range els {
			if e.Type == element.Image && e.Metadata.ImageBase64 != "" {
				b, _ := base64.StdEncoding.DecodeString(e.Metadata.ImageBase64)
				img, _ = jpeg.Decode(bytes.NewReader(b))
			}
		}
		if img == nil {
			t.Errorf("%s: no crop", c.name)
			continue
		}
		if b := img.Bounds(); b.Dx() < c.width-3 || b.Dx() > c.width+3 || b.Dy() < c.height-3 || b.Dy() > c.height+3 {
			t.Errorf("%s: crop %v, want %d x %d", c.name, b, c.width, c.height)
		}
		red, blue := 0, 0
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 10 {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 10 {
				r, g, b, _ := img.At(x, y).RGBA()
				switch {
				case r>>8 > 180 && g>>8 < 60 && b>>8 < 60:
					red++
				case b>>8 > 180 && r>>8 < 60 && g>>8 < 60:
					blue++
				}
			}
		}
		if total := (img.Bounds().Dx() / 10) * (img.Bounds().Dy() / 10); red < total/3 || blue < total/3 {
			t.Errorf("%s: %d red and %d blue samples of %d: the crop is not the picture", c.name, red, blue, total)
		}
	}
}

// shownBox undoes pdf.Page.TurnUpright's map for every quadrant: a box on the page as shown,
// turned as TurnUpright turns points and put in the turned frame's top-left coordinates, comes
// back where it was.
func TestShownBoxUndoesTheTurn(t *testing.T) {
	const W, H = 612.0, 792.0
	turn := func(q uint8, x, y float64) (float64, float64) { // pdf/upright.go's pt
		switch q {
		case 1:
			return y, W - x
		case 3:
			return H - y, x
		}
		return W - x, H - y
	}
	// The box (top-left origin on the shown page): x 100..250, y 50..120.
	x0, y0, x1, y1 := 100.0, 50.0, 250.0, 120.0
	for _, q := range []uint8{1, 2, 3} {
		ht := H
		if q%2 == 1 {
			ht = W
		}
		ax, ay := turn(q, x0, H-y0)
		bx, by := turn(q, x1, H-y1)
		tx0, tx1 := min(ax, bx), max(ax, bx)
		ty0, ty1 := ht-max(ay, by), ht-min(ay, by)
		gx0, gy0, gx1, gy1 := shownBox(q, W, H, tx0, ty0, tx1, ty1)
		if math.Abs(gx0-x0)+math.Abs(gy0-y0)+math.Abs(gx1-x1)+math.Abs(gy1-y1) > 1e-9 {
			t.Errorf("q=%d: %v %v %v %v, want %v %v %v %v", q, gx0, gy0, gx1, gy1, x0, y0, x1, y1)
		}
	}
}

// extract_image_block_types may name any element type, in any case, as the reference's does:
// the text elements named get a crop of their box, the others none.
func TestAnyTypeIsCropped(t *testing.T) {
	if _, err := exec.LookPath(pdftoppmBin); err != nil {
		t.Skip("pdftoppm (poppler-utils) not installed")
	}
	f := pdftest.FirstExtra(1)
	d := pdftest.Doc{
		Pages: []pdftest.Page{{
			Content: pdftest.Text("F2", 20, 72, 720, "A Title Set Large") +
				pdftest.Text("F1", 11, 72, 690, "A paragraph of body text that runs on for a while, as paragraphs do.") +
				pdftest.Text("F1", 11, 72, 676, "It has a second line, which ends the paragraph here."),
			Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R /F2 %d 0 R >> >>", f, f+1),
		}},
		Extra: []string{pdftest.Helvetica, pdftest.HelveticaBold},
	}
	opts := engine.DefaultOptions()
	opts.ExtractImageBlockTypes = []string{"narrativetext"}
	els, err := engine.Partition(context.Background(), engine.NewDocument("text.pdf", d.Bytes()), opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[element.Type]bool{}
	for _, e := range els {
		got[e.Type] = got[e.Type] || e.Metadata.ImageBase64 != ""
	}
	if !got[element.NarrativeText] || got[element.Title] {
		t.Errorf("crops by type %v, want NarrativeText only", got)
	}
}
