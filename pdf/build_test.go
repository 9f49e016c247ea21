package pdf

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// buildPDF writes a minimal valid PDF whose objects are given in order as bodies ("<<...>>" or
// a stream written as "<<...>>\nstream\n...\nendstream"); object 1 must be the catalog.
func buildPDF(objs ...string) []byte { return pdftest.File(objs...) }

func stream(dict, data string) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// onePage builds a one-page document with the given content and extra objects (numbered from 4;
// the page's resources dictionary is res).
func onePage(res, content string, extra ...string) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources " + res + " /Contents 4 0 R >>",
		stream("", content),
	}
	return buildPDF(append(objs, extra...)...)
}

func readPage(t *testing.T, data []byte) *Page {
	t.Helper()
	d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.Page(context.Background(), 1, DefaultLAParams())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func boxTexts(p *Page) []string {
	var out []string
	for _, b := range p.Boxes {
		out = append(out, strings.TrimRight(b.Text(), "\n"))
	}
	return out
}

const helv = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

func TestOperators(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"Tj and Td", "BT /F1 12 Tf 72 700 Td (Hello world) Tj ET", []string{"Hello world"}},
		{"TJ kerning makes a word gap", "BT /F1 12 Tf 72 700 Td [(Hello) -400 (world)] TJ ET", []string{"Hello world"}},
		{"TJ small kerning keeps the word", "BT /F1 12 Tf 72 700 Td [(Hel) -20 (lo)] TJ ET", []string{"Hello"}},
		{"T* and TL make two lines of one box", "BT /F1 12 Tf 14 TL 72 700 Td (one line) Tj T* (two line) Tj ET", []string{"one line\ntwo line"}},
		{"quote operators", "BT /F1 12 Tf 14 TL 72 700 Td (a first) Tj (a second) ' 0 0 (a third) \" ET", []string{"a first\na second\na third"}},
		{"far lines are separate boxes", "BT /F1 12 Tf 72 700 Td (top) Tj 0 -200 Td (bottom) Tj ET", []string{"top", "bottom"}},
		{"cm and q/Q", "q 1 0 0 1 100 100 cm BT /F1 12 Tf 0 0 Td (moved) Tj ET Q BT /F1 12 Tf 72 700 Td (fixed) Tj ET", []string{"fixed", "moved"}},
		{"Tz Tc Tw Ts Tr parse", "BT /F1 12 Tf 90 Tz 0.5 Tc 1 Tw 2 Ts 0 Tr 72 700 Td (state) Tj ET", []string{"state"}},
		{"inline image is skipped", "BI /W 2 /H 2 /BPC 8 /CS /G ID \x00EI\xff\x01 EI BT /F1 12 Tf 72 700 Td (after) Tj ET", []string{"after"}},
		{"escapes and octal", `BT /F1 12 Tf 72 700 Td (a\(b\)\101) Tj ET`, []string{"a(b)A"}},
		{"hex string", "BT /F1 12 Tf 72 700 Td <48 69> Tj ET", []string{"Hi"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := readPage(t, onePage("<< /Font << /F1 5 0 R >> >>", tc.content, helv))
			got := boxTexts(p)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestInvisibleAndActualText(t *testing.T) {
	p := readPage(t, onePage("<< /Font << /F1 5 0 R >> >>",
		"/Span << /ActualText (fi) >> BDC BT /F1 12 Tf 3 Tr 72 700 Td (x) Tj ET EMC", helv))
	if p.Invisible != 1 || len(p.ActualTexts) != 1 || p.ActualTexts[0].Text != "fi" || p.ActualTexts[0].End != 1 {
		t.Errorf("invisible=%d actual=%+v", p.Invisible, p.ActualTexts)
	}
	if p.HasText() {
		t.Errorf("a page with only invisible text has no usable text layer")
	}
}

func TestFormXObjectIsAFigure(t *testing.T) {
	p := readPage(t, onePage("<< /Font << /F1 5 0 R >> /XObject << /X1 6 0 R >> >>",
		"q 1 0 0 1 50 50 cm /X1 Do Q",
		helv,
		stream("/Type /XObject /Subtype /Form /BBox [0 0 100 20] /Resources << /Font << /F1 5 0 R >> >>",
			"BT /F1 10 Tf 0 5 Td (in form) Tj ET 0 0 m 10 10 l S BT /F1 10 Tf 0 5 Td (after path) Tj ET"),
	))
	if len(p.Figures) != 1 || len(p.Boxes) != 0 {
		t.Fatalf("figures=%d boxes=%d", len(p.Figures), len(p.Boxes))
	}
	f := p.Figures[0]
	var sb strings.Builder
	for _, it := range f.Items {
		if it.Glyph == nil {
			sb.WriteByte('|')
		} else {
			sb.WriteString(it.Glyph.Text)
		}
	}
	if sb.String() != "in form|after path" || f.X0 != 50 || f.Y1 != 70 {
		t.Errorf("figure %q at %v,%v-%v,%v", sb.String(), f.X0, f.Y0, f.X1, f.Y1)
	}
}

func TestSelfReferencingFormTerminates(t *testing.T) {
	p := readPage(t, onePage("<< /Font << /F1 5 0 R >> /XObject << /X1 6 0 R >> >>", "/X1 Do", helv,
		stream("/Type /XObject /Subtype /Form /BBox [0 0 100 20] /Resources << /Font << /F1 5 0 R >> /XObject << /X1 6 0 R >> >>",
			"BT /F1 10 Tf 0 5 Td (x) Tj ET /X1 Do")))
	if len(p.Figures) != 1 || len(p.Figures[0].Items) != 1 {
		t.Errorf("figures=%d items=%d", len(p.Figures), len(p.Figures[0].Items))
	}
}

func TestSimpleEncodingDifferences(t *testing.T) {
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Custom /FirstChar 65 /LastChar 67 /Widths [500 500 500] " +
		"/Encoding << /BaseEncoding /WinAnsiEncoding /Differences [65 /fi /uni00E9 /g33] >> >>"
	p := readPage(t, onePage("<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td (ABCD) Tj ET", font))
	got := boxTexts(p)
	if len(got) != 1 || got[0] != "ﬁéCD" {
		t.Errorf("got %q", got)
	}
}

func TestType0ToUnicode(t *testing.T) {
	cmap := `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0001> <0048> <0002> <D835DC00> endbfchar
2 beginbfrange <0010> <0012> <0061> <0020> <0021> [<0066 0069> <00E9>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`
	font := "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>"
	cid := "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /DW 500 /W [1 [600 700] 16 18 400] >>"
	p := readPage(t, onePage("<< /Font << /F1 5 0 R >> >>",
		"BT /F1 10 Tf 72 700 Td <0001 0002 0010 0011 0012 0020 0021 0099> Tj ET", font, cid, stream("", cmap)))
	got := boxTexts(p)
	if len(got) != 1 || got[0] != "H\U0001D400abcfié(cid:153)" {
		t.Errorf("got %q", got)
	}
	// Widths: CID 1 → 600, CID 2 → 700, 16..18 → 400, others DW 500; font size 10.
	wantAdv := []float64{6, 7, 4, 4, 4, 5, 5, 5}
	for i, g := range p.Glyphs {
		if i < len(wantAdv) && (g.Adv < wantAdv[i]-1e-9 || g.Adv > wantAdv[i]+1e-9) {
			t.Errorf("glyph %d %q adv %v, want %v", i, g.Text, g.Adv, wantAdv[i])
		}
	}
}

func TestUCS2CMap(t *testing.T) {
	font := "<< /Type /Font /Subtype /Type0 /BaseFont /STSong /Encoding /UniGB-UCS2-H /DescendantFonts [6 0 R] >>"
	cid := "<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong /DW 1000 >>"
	p := readPage(t, onePage("<< /Font << /F1 5 0 R >> >>", "BT /F1 10 Tf 72 700 Td <4E2D 6587> Tj ET", font, cid))
	if got := boxTexts(p); len(got) != 1 || got[0] != "中文" {
		t.Errorf("got %q", got)
	}
}

func TestEmbeddedCMapCodespaces(t *testing.T) {
	enc := `begincmap 2 begincodespacerange <00> <7F> <8140> <FEFE> endcodespacerange
1 begincidrange <20> <7E> 1 endcidrange 1 begincidchar <8140> 633 endcidchar endcmap`
	tu := `begincmap 2 begincodespacerange <00> <7F> <8140> <FEFE> endcodespacerange
1 beginbfrange <41> <42> <0041> endbfrange 1 beginbfchar <8140> <3000> endbfchar endcmap`
	font := "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding 6 0 R /DescendantFonts [7 0 R] /ToUnicode 8 0 R >>"
	cid := "<< /Type /Font /Subtype /CIDFontType0 /BaseFont /X /W [34 [250] 633 [1000]] >>"
	p := readPage(t, onePage("<< /Font << /F1 5 0 R >> >>", "BT /F1 10 Tf 72 700 Td <41 8140 42> Tj ET",
		font, stream("/Type /CMap", enc), cid, stream("", tu)))
	if len(p.Glyphs) != 3 || p.Glyphs[0].Text != "A" || p.Glyphs[1].Text != "\u3000" || p.Glyphs[2].Text != "B" {
		t.Fatalf("glyphs %+v", p.Glyphs)
	}
	if p.Glyphs[0].Adv != 2.5 || p.Glyphs[1].Adv != 10 {
		t.Errorf("advances %v %v, want 2.5 10 (CIDs 34 and 633)", p.Glyphs[0].Adv, p.Glyphs[1].Adv)
	}
}

func TestLinksAndFields(t *testing.T) {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R /Annots [6 0 R 7 0 R 8 0 R 9 0 R 10 0 R] >>",
		stream("", "BT /F1 12 Tf 72 700 Td (see the site) Tj ET"),
		helv,
		"<< /Type /Annot /Subtype /Link /Rect [70 695 200 715] /A << /S /URI /URI (https://example.com) >> >>",
		"<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /V (Jane Doe) /Rect [72 600 200 620] >>",
		// A FreeText annotation's words are on the page; hidden (F 2) ones and a markup's
		// popup note are not.
		"<< /Type /Annot /Subtype /FreeText /Contents (A typed note) /DA (/Helv 12 Tf 0 g) /Rect [72 500 300 520] >>",
		"<< /Type /Annot /Subtype /FreeText /F 2 /Contents (hidden note) /Rect [72 450 300 470] >>",
		"<< /Type /Annot /Subtype /Highlight /Contents (popup remark) /Rect [72 695 200 715] >>",
	}
	p := readPage(t, buildPDF(objs...))
	if len(p.Links) != 1 || p.Links[0].URI != "https://example.com" || p.Links[0].Y1 != 715 {
		t.Errorf("links %+v", p.Links)
	}
	if len(p.Fields) != 2 || p.Fields[0].Value != "Jane Doe" || p.Fields[0].Name != "name" ||
		p.Fields[1].Value != "A typed note" || p.Fields[1].Y0 != 500 {
		t.Errorf("fields %+v", p.Fields)
	}
}

func TestRotatedPageSize(t *testing.T) {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 600 800] /Rotate 90 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
		stream("", ""),
	}
	p := readPage(t, buildPDF(objs...))
	if p.Width != 800 || p.Height != 600 || p.Rotate != 90 {
		t.Errorf("size %vx%v rotate %d", p.Width, p.Height, p.Rotate)
	}
}

// The standard Symbol font (not embedded, no /Encoding) reads through its built-in encoding:
// Greek letters, operators and the bullet, as a viewer shows them (pdfminer reads them as
// StandardEncoding Latin letters, which is wrong text).
func TestSymbolFontBuiltInEncoding(t *testing.T) {
	sym := "<< /Type /Font /Subtype /Type1 /BaseFont /Symbol >>"
	p := readPage(t, onePage("<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td (abgp\"$\xb7\xa3) Tj ET", sym))
	var got string
	for _, g := range p.Glyphs {
		got += g.Text
	}
	if got != "αβγπ∀∃•≤" {
		t.Errorf("got %q", got)
	}
	// Word's SymbolMT, a TrueType font (WinAnsi by default) named otherwise, and a styled
	// Symbol read the same way; a font that merely starts with the word does not.
	for font, want := range map[string]string{
		"<< /Type /Font /Subtype /TrueType /BaseFont /SymbolMT >>":        "αβγπ∀∃•≤",
		"<< /Type /Font /Subtype /TrueType /BaseFont /ABCDEF+SymbolMT >>": "αβγπ∀∃•≤",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Symbol,Bold >>":        "αβγπ∀∃•≤",
		"<< /Type /Font /Subtype /TrueType /BaseFont /SymbolicSans >>":    "abgp\"$·£",
	} {
		p := readPage(t, onePage("<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td (abgp\"$\xb7\xa3) Tj ET", font))
		var got string
		for _, g := range p.Glyphs {
			got += g.Text
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", font, got, want)
		}
	}
}

// The standard ZapfDingbats font reads through its built-in encoding and the ITC Zapf
// Dingbats glyph list: check marks, crosses, circles, squares and arrow bullets are characters,
// not "(cid:N)" (code 0x34 ✔, 0x38 ✘, 0x6C ●, 0x6E ■, 0xE2 ➢, 0x2B ☞, 0xAC ①). An embedded
// subset with /Differences naming a-glyphs and a cut under another name read the same way.
func TestZapfDingbatsGlyphs(t *testing.T) {
	want := "✔✘●■➢☞①"
	show := "BT /F1 12 Tf 72 700 Td (48ln\342+\254) Tj ET"
	for name, font := range map[string]string{
		"standard":    "<< /Type /Font /Subtype /Type1 /BaseFont /ZapfDingbats >>",
		"differences": "<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+ZapfDingbatsITC /Encoding << /Differences [43 /a12 52 /a20 56 /a24 108 /a71 110 /a73 172 /a120 226 /a173] >> >>",
		"urw":         "<< /Type /Font /Subtype /Type1 /BaseFont /D050000L >>",
	} {
		p := readPage(t, onePage("<< /Font << /F1 5 0 R >> >>", show, font))
		var got string
		for _, g := range p.Glyphs {
			got += g.Text
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
}

// Signature fields, push buttons and rubber stamps show words only through their appearance
// streams (forms inside it included); check boxes and a stamp's note (its Contents) are not
// page text.
func TestAppearanceText(t *testing.T) {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Contents 4 0 R /Annots [6 0 R 7 0 R 8 0 R 9 0 R] >>",
		stream("", "BT ET"),
		helv,
		"<< /Type /Annot /Subtype /Widget /FT /Sig /T (sig) /Rect [72 600 300 650] /AP << /N 10 0 R >> >>",
		"<< /Type /Annot /Subtype /Stamp /Contents (reviewer note) /Rect [72 500 300 550] /AP << /N 11 0 R >> >>",
		"<< /Type /Annot /Subtype /Widget /FT /Btn /T (ok) /Rect [72 400 90 418] /AS /On /AP << /N << /On 12 0 R /Off 12 0 R >> >> >>",
		"<< /Type /Annot /Subtype /Stamp /Contents (only a note) /Rect [72 300 300 350] >>",
		// The signature draws its words through a form, as signing tools do (/FRM).
		stream("/Type /XObject /Subtype /Form /BBox [0 0 228 50] /Resources << /XObject << /FRM 13 0 R >> >>", "q /FRM Do Q"),
		stream("/Type /XObject /Subtype /Form /BBox [0 0 228 50] /Resources << /Font << /F1 5 0 R >> >>", "BT /F1 14 Tf 10 20 Td (APPROVED) Tj ET"),
		stream("/Type /XObject /Subtype /Form /BBox [0 0 18 18] /Resources << /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 2 4 Td (4) Tj ET"),
		stream("/Type /XObject /Subtype /Form /BBox [0 0 228 50] /Resources << /Font << /F1 5 0 R >> >>", "BT /F1 10 Tf 5 30 Td (Digitally signed by Jane Roe) Tj 0 -12 Td (Date: 2024.01.02) Tj ET"),
	}
	p := readPage(t, buildPDF(objs...))
	var got []string
	for _, f := range p.Fields {
		got = append(got, f.Value)
	}
	if want := []string{"Digitally signed by Jane Roe Date: 2024.01.02", "APPROVED"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fields %q, want %q", got, want)
	}
}
