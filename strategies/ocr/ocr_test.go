//go:build cgo

package ocr

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

func TestTesseractLanguages(t *testing.T) {
	cases := []struct {
		languages, ocr []string
		want           string
	}{
		{nil, nil, "eng"},
		{[]string{"eng"}, nil, "eng"},
		{[]string{"en"}, nil, "eng"},
		{[]string{"english", "german"}, nil, "eng+deu"},
		{[]string{"chi"}, nil, "chi_sim+chi_sim_vert+chi_tra+chi_tra_vert"},
		{[]string{"zh"}, nil, "chi_sim+chi_sim_vert+chi_tra+chi_tra_vert"},
		{[]string{"kor"}, nil, "kor+kor_vert"},
		{[]string{"ko"}, nil, "kor+kor_vert"},
		{[]string{"fre"}, nil, "fra"},
		{[]string{"chi_tra"}, nil, "chi_tra"},
		{[]string{"['eng']"}, nil, "eng"},
		{[]string{"eng", "en", "eng"}, nil, "eng"},
		{[]string{"xx"}, nil, "eng"},
		{nil, []string{"eng+deu"}, "eng+deu"},
		{[]string{""}, []string{"spa"}, "spa+spa_old"},
	}
	for _, c := range cases {
		if got := TesseractLanguages(c.languages, c.ocr); got != c.want {
			t.Errorf("TesseractLanguages(%q, %q) = %q, want %q", c.languages, c.ocr, got, c.want)
		}
	}
}

func TestMissingLanguagePack(t *testing.T) {
	opts := engine.DefaultOptions()
	opts.Strategy = "ocr_only"
	opts.Languages = []string{"tha"}
	data, _ := os.ReadFile(filepath.Join(refDir, "docs", "DA-1p.heic"))
	_, err := engine.Partition(context.Background(), engine.NewDocument("DA-1p.heic", data), opts)
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Kind != engine.KindBadRequest || !strings.Contains(ee.Msg, "tesseract-ocr-tha") {
		t.Fatalf("err = %v", err)
	}
}

func TestFastOnImageIsRefused(t *testing.T) {
	opts := engine.DefaultOptions()
	opts.Strategy = "fast"
	data, _ := os.ReadFile(filepath.Join(refDir, "docs", "example.jpg"))
	_, err := engine.Partition(context.Background(), engine.NewDocument("example.jpg", data), opts)
	if err == nil || err.Error() != "The fast strategy is not available for image files" {
		t.Fatalf("err = %v", err)
	}
}

func TestImageBlockCrops(t *testing.T) {
	opts := engine.DefaultOptions()
	opts.Strategy = "hi_res"
	opts.ExtractImageBlockTypes = []string{"Table"}
	opts.Coordinates = true
	els := partitionFile(t, filepath.Join(refDir, "docs", "table-multi-row-column-cells.png"), opts)
	found := false
	for _, e := range els {
		if e.Type != element.Table {
			if e.Metadata.ImageBase64 != "" {
				t.Errorf("%s has a crop", e.Type)
			}
			continue
		}
		found = true
		if e.Metadata.TextAsHTML == "" || !strings.HasPrefix(e.Metadata.TextAsHTML, "<table>") {
			t.Errorf("table without text_as_html: %+v", e.Metadata)
		}
		b, err := base64.StdEncoding.DecodeString(e.Metadata.ImageBase64)
		if err != nil || e.Metadata.ImageMIMEType != "image/jpeg" {
			t.Fatalf("crop: %v %q", err, e.Metadata.ImageMIMEType)
		}
		img, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		c := e.Metadata.Coordinates
		if c == nil || c.System != "PixelSpace" || img.Bounds().Dx() != int(c.Points[2][0]-c.Points[0][0]) {
			t.Errorf("crop %v does not match coordinates %+v", img.Bounds(), c)
		}
	}
	if !found {
		t.Fatal("no table")
	}
	// Table inference off: still a Table, without HTML.
	opts.SkipInferTableTypes = []string{"png"}
	for _, e := range partitionFile(t, filepath.Join(refDir, "docs", "table-multi-row-column-cells.png"), opts) {
		if e.Type == element.Table && e.Metadata.TextAsHTML != "" {
			t.Errorf("text_as_html with png skipped")
		}
	}
}

// Every frame of a TIFF is a page.
func TestTIFFFrames(t *testing.T) {
	_, err := decodeGrey(mustRead(t, filepath.Join(refDir, "docs", "DA-1p.heic")), -1)
	if err == nil {
		t.Fatal("leptonica decoded HEIC")
	}
	png := mustRead(t, filepath.Join(refDir, "docs", "table-multi-row-column-cells.png"))
	img, err := decodeGrey(png, -1)
	if err != nil {
		t.Fatal(err)
	}
	tiff := twoFrameTIFF(img.Pix, img.Bounds().Dx(), img.Bounds().Dy())
	if n, err := tiffFrames(tiff); err != nil || n != 2 {
		t.Fatalf("frames = %d, %v", n, err)
	}
	opts := engine.DefaultOptions()
	opts.Strategy = "ocr_only"
	opts.IncludePageBreaks = true
	els, err := engine.Partition(context.Background(), engine.NewDocument("two.tiff", tiff), opts)
	if err != nil {
		t.Fatal(err)
	}
	var pages, breaks []int
	for _, e := range els {
		if e.Type == element.PageBreak {
			breaks = append(breaks, *e.Metadata.PageNumber)
		} else if strings.Contains(e.Text, "Dexterity") {
			pages = append(pages, *e.Metadata.PageNumber)
		}
	}
	if len(pages) != 2 || pages[0] != 1 || pages[1] != 2 || len(breaks) != 2 {
		t.Errorf("pages with the text %v, page breaks %v", pages, breaks)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// twoFrameTIFF writes the same 8-bit grey image twice as an uncompressed little-endian TIFF.
func twoFrameTIFF(pix []byte, w, h int) []byte {
	var buf bytes.Buffer
	le := binary.LittleEndian
	buf.Write([]byte{'I', 'I', 42, 0, 8, 0, 0, 0})
	const entries = 8
	ifdSize := 2 + entries*12 + 4
	for f := 0; f < 2; f++ {
		ifdAt := buf.Len()
		dataAt := ifdAt + ifdSize
		next := 0
		if f == 0 {
			next = dataAt + len(pix)
		}
		e := func(tag, typ uint16, val uint32) {
			binary.Write(&buf, le, tag)
			binary.Write(&buf, le, typ)
			binary.Write(&buf, le, uint32(1))
			binary.Write(&buf, le, val)
		}
		binary.Write(&buf, le, uint16(entries))
		e(256, 4, uint32(w))        // ImageWidth
		e(257, 4, uint32(h))        // ImageLength
		e(258, 3, 8)                // BitsPerSample
		e(259, 3, 1)                // Compression: none
		e(262, 3, 1)                // Photometric: black is zero
		e(273, 4, uint32(dataAt))   // StripOffsets
		e(278, 4, uint32(h))        // RowsPerStrip
		e(279, 4, uint32(len(pix))) // StripByteCounts
		binary.Write(&buf, le, uint32(next))
		buf.Write(pix)
	}
	return buf.Bytes()
}

// Warm makes one initialised client that the first page uses (no second client), and Close
// waits for it.
func TestWarm(t *testing.T) {
	o := New(Config{Workers: 2})
	o.Warm("eng")
	o.Warm("eng") // once only
	first := o.client()
	if first.langs != "eng" {
		t.Errorf("warm client languages %q", first.langs)
	}
	o.mu.Lock()
	idle := len(o.idle)
	o.mu.Unlock()
	if idle != 0 {
		t.Errorf("%d clients left idle after taking the warm one", idle)
	}
	o.release(first)
	opts := engine.DefaultOptions()
	data := mustRead(t, filepath.Join(refDir, "docs", "table-multi-row-column-cells.png"))
	doc := engine.NewDocument("t.png", data)
	doc.MIMEType = "image/png"
	var n int
	if err := o.OCROnly(context.Background(), doc, opts.Keys(), func(element.Element) error { n++; return nil }); err != nil || n == 0 {
		t.Fatalf("%d elements, %v", n, err)
	}
	o.Close()

	cold := New(Config{Workers: 1})
	cold.Warm("eng")
	cold.Close() // before the warm-up ends: waits, then frees it
}
