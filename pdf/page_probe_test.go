package pdf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// PageHasText answers as Page(…).HasText() does, on every page of every fixture PDF (text,
// scans, CID fonts without a map, forms, invisible OCR layers, damaged files).
func TestPageHasTextAgreesWithPage(t *testing.T) {
	var files []string
	filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".pdf") {
			files = append(files, p)
		}
		return nil
	})
	for _, g := range []string{"../../shared/corpus/reference/*/*.pdf", "../layout/tables/testdata/*/*.pdf", "../ui/static/samples/*.pdf"} {
		more, _ := filepath.Glob(g)
		files = append(files, more...)
	}
	ctx := context.Background()
	pages, withText := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Open(ctx, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			continue // encrypted, broken: not a page question
		}
		for n := 1; n <= d.NumPages(); n++ {
			p, perr := d.Page(ctx, n, DefaultLAParams())
			has, herr := d.PageHasText(ctx, n)
			want := perr == nil && p.HasText()
			if has != want || (herr != nil) != (perr != nil) {
				t.Errorf("%s page %d: PageHasText %v (%v), Page %v (%v)", f, n, has, herr, want, perr)
			}
			pages++
			if want {
				withText++
			}
		}
	}
	t.Logf("%d files, %d pages, %d with text", len(files), pages, withText)
	if pages < 50 || withText == 0 || withText == pages {
		t.Errorf("%d pages, %d with text: the fixtures do not test both answers", pages, withText)
	}
}

// A page of 300,000 words (three million glyphs) is probed at the cost of its content stream:
// the probe stops at the first glyph and keeps none.
func TestPageHasTextKeepsNoGlyphs(t *testing.T) {
	var c strings.Builder
	c.WriteString("BT /F1 1 Tf\n")
	for i := 0; i < 300_000; i++ {
		c.WriteString("1 0 Td (abcdefghij) Tj\n")
	}
	c.WriteString("ET\n")
	data := onePage("<< /Font << /F1 5 0 R >> >>", c.String(), "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	has, err := d.PageHasText(context.Background(), 1)
	runtime.ReadMemStats(&after)
	if !has || err != nil {
		t.Fatalf("%v %v", has, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*uint64(len(data))+(8<<20) {
		t.Errorf("probe allocated %d MiB for a %d MiB file", alloc>>20, len(data)>>20)
	}
}

// The probe's answer on pages built for each case, against Page's.
func TestPageHasTextCases(t *testing.T) {
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
	form := stream("/Type /XObject /Subtype /Form /BBox [0 0 600 800] /Resources << /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td (in a form) Tj ET")
	img := stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8", "\x80")
	cases := []struct {
		name, res, content string
		extra              []string
		want               bool
	}{
		{"blank", "<< >>", "", nil, false},
		{"image only", "<< /XObject << /Im1 5 0 R >> >>", "q 600 0 0 800 0 0 cm /Im1 Do Q", []string{img}, false},
		{"invisible OCR layer", "<< /Font << /F1 5 0 R >> >>", "BT 3 Tr /F1 12 Tf 72 700 Td (hidden words) Tj ET", []string{font}, false},
		{"spaces", "<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td (   ) Tj ET", []string{font}, false},
		{"text", "<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td (words) Tj ET", []string{font}, true},
		{"text after invisible text", "<< /Font << /F1 5 0 R >> >>", "BT 3 Tr /F1 12 Tf 72 700 Td (hidden) Tj 0 Tr (shown) Tj ET", []string{font}, true},
		{"text in a form", "<< /XObject << /Fm1 6 0 R >> >>", "/Fm1 Do", []string{font, form}, true},
		// Glyphs pdfminer gives no width (a bare CMMI10: no /Widths, not a standard font) or
		// squeezed to nothing make no line of text: not a text layer, so auto OCRs the page.
		{"font without widths", "<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td (words) Tj ET", []string{"<< /Type /Font /Subtype /Type1 /BaseFont /CMMI10 >>"}, false},
		{"squeezed by 0 Tz", "<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 0 Tz 72 700 Td (words) Tj ET", []string{font}, false},
		{"font without widths beside text", "<< /Font << /F1 5 0 R /F2 6 0 R >> >>", "BT /F1 12 Tf 72 700 Td (words) Tj /F2 12 Tf (x) Tj ET", []string{"<< /Type /Font /Subtype /Type1 /BaseFont /CMMI10 >>", font}, true},
	}
	for _, c := range cases {
		data := onePage(c.res, c.content, c.extra...)
		d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		has, err := d.PageHasText(context.Background(), 1)
		p, perr := d.Page(context.Background(), 1, DefaultLAParams())
		if err != nil || perr != nil || has != c.want || p.HasText() != c.want || p.DrawsText() != (c.want || strings.Contains(c.name, "without widths") || strings.Contains(c.name, "Tz")) {
			t.Errorf("%s: PageHasText %v %v, Page.HasText %v %v, want %v", c.name, has, err, p.HasText(), perr, c.want)
		}
	}
}

// A /Contents array naming one stream over and over (each copy within the per-stream bound) is
// read up to the page's bound and no further, with an error saying so.
func TestPageContentBounded(t *testing.T) {
	var op strings.Builder
	for op.Len() < 1<<20 {
		op.WriteString("0 0 m 1 1 l S\n")
	}
	z := deflate([]byte(op.String()))
	refs := strings.Repeat("4 0 R ", 1000)
	data := onePage("<< >>", "", stream("/Filter /FlateDecode", z))
	// onePage's content stream is object 4; the page is made to list the extra stream (5)
	// a thousand times instead.
	data = bytes.Replace(data, []byte("/Contents 4 0 R"), []byte("/Contents ["+strings.ReplaceAll(refs, "4 0 R", "5 0 R")+"]"), 1)
	d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	pd := d.pages[0].dict
	b, err := d.pageContentUpTo(pd, 3<<20)
	if len(b) > 3<<20 || len(b) < 2<<20 || err == nil || !strings.Contains(err.Error(), "beyond") {
		t.Errorf("%d bytes, err %v", len(b), err)
	}
}
