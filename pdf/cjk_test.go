package pdf

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font/sfnt"
)

// cidFontPDF is a one-page document showing hex string show with a Type0 font of the given
// /Encoding and descendant (no ToUnicode map), plus extra objects from 7 on.
func cidFontPDF(encoding, descendant, show string, extra ...string) []byte {
	font := "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding " + encoding + " /DescendantFonts [6 0 R] >>"
	return onePage("<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td <"+show+"> Tj ET",
		append([]string{font, descendant}, extra...)...)
}

func cidDescendant(registry, ordering string) string {
	return fmt.Sprintf("<< /Type /Font /Subtype /CIDFontType0 /BaseFont /X /DW 1000 "+
		"/CIDSystemInfo << /Registry (%s) /Ordering (%s) /Supplement 0 >> >>", registry, ordering)
}

// CJK fonts without ToUnicode: CIDs through the Adobe collections' UCS2 CMaps (poppler-data),
// national encodings through their decoders. Expected texts are pdftotext's (poppler-data
// installed) on the same files.
func TestCJKWithoutToUnicode(t *testing.T) {
	for _, tc := range []struct {
		name, encoding, ordering, show, want string
	}{
		{"Identity-H Adobe-Japan1", "/Identity-H", "Japan1", "0CD4 0E8A 07A0 0226 03C2 03A9 03B5 03C4", "日本語のテキスト"},
		{"Identity-H Adobe-GB1", "/Identity-H", "GB1", "11CF 0ED3 0ED3 0427", "中文文本"},
		{"Identity-H Adobe-CNS1", "/Identity-H", "CNS1", "143F 1717 0295 02D6", "繁體中文"},
		{"Identity-H Adobe-Korea1", "/Identity-H", "Korea1", "0CE0 04B4 09AF", "한국어"},
		{"90ms-RKSJ-H (Shift-JIS)", "/90ms-RKSJ-H", "Japan1", "93FA967B8CEA82CC8365834C8358836720414243", "日本語のテキスト ABC"},
		{"GBK-EUC-H", "/GBK-EUC-H", "GB1", "D6D0CEC4CEC4B1BE20414243", "中文文本 ABC"},
		{"B5pc-H (Big5)", "/B5pc-H", "CNS1", "C163C5E9A4A4A4E520414243", "繁體中文 ABC"},
		{"KSCms-UHC-H", "/KSCms-UHC-H", "Korea1", "C7D1B1B9BEEE20C5D8BDBAC6AE20414243", "한국어 텍스트 ABC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := cidFontPDF(tc.encoding, cidDescendant("Adobe", tc.ordering), tc.show)
			dumpFixture(t, data)
			p := readPage(t, data)
			got := strings.Join(boxTexts(p), "|")
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// An Identity-H TrueType font without ToUnicode (Adobe-Identity) reads through its embedded
// program's cmap; the glyph IDs here come from that cmap. The word is drawn in visual order
// (its last letter leftmost) and reads in logical order.
func TestIdentityHEmbeddedTrueType(t *testing.T) {
	ttf, err := os.ReadFile("testdata/fonts/NotoSansHebrew-Regular.ttf")
	if err != nil {
		t.Fatal(err)
	}
	f, err := sfnt.Parse(ttf)
	if err != nil {
		t.Fatal(err)
	}
	var show strings.Builder
	for _, r := range "םולש" {
		g, err := f.GlyphIndex(nil, r)
		if err != nil || g == 0 {
			t.Fatalf("no glyph for %q", r)
		}
		fmt.Fprintf(&show, "%04X", int(g))
	}
	desc := "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /NotoSansHebrew /DW 600 /CIDToGIDMap /Identity " +
		"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 7 0 R >>"
	fd := "<< /Type /FontDescriptor /FontName /NotoSansHebrew /Flags 4 /Descent -250 /FontFile2 8 0 R >>"
	for _, withMap := range []bool{false, true} {
		d := desc
		extra := []string{fd, stream("", string(ttf))}
		if withMap {
			// A CIDToGIDMap stream: CID n draws glyph map[n]; the text uses CIDs 1..4.
			var m strings.Builder
			m.WriteString("\x00\x00")
			for i := 0; i < len(show.String()); i += 4 {
				var g int
				fmt.Sscanf(show.String()[i:i+4], "%04X", &g)
				m.WriteString(string([]byte{byte(g >> 8), byte(g)}))
			}
			d = strings.Replace(desc, "/CIDToGIDMap /Identity", "/CIDToGIDMap 9 0 R", 1)
			extra = append(extra, stream("", m.String()))
		}
		s := show.String()
		if withMap {
			s = "0001000200030004"
		}
		data := cidFontPDF("/Identity-H", d, s, extra...)
		dumpFixture(t, data, fmt.Sprint("_map_", withMap))
		p := readPage(t, data)
		if got := strings.Join(boxTexts(p), "|"); got != "שלום" {
			t.Errorf("CIDToGIDMap stream %v: got %q, want שלום", withMap, got)
		}
	}
}

// cffProgram writes a minimal bare CFF font whose glyphs 1.. are named names (standard strings
// or custom ones); with ros the font is CID-keyed with that registry and ordering.
func cffProgram(names []string, ros [2]string) []byte {
	var custom []string
	sid := func(s string) int {
		for i, n := range cffStandardStrings {
			if n == s {
				return i
			}
		}
		for i, n := range custom {
			if n == s {
				return len(cffStandardStrings) + i
			}
		}
		custom = append(custom, s)
		return len(cffStandardStrings) + len(custom) - 1
	}
	var sids []int
	for _, n := range names {
		sids = append(sids, sid(n))
	}
	var rosOps []byte
	if ros[0] != "" {
		r, o := sid(ros[0]), sid(ros[1])
		rosOps = []byte{28, byte(r >> 8), byte(r), 28, byte(o >> 8), byte(o), 139, 12, 30}
	}
	index := func(items ...string) []byte {
		if len(items) == 0 {
			return []byte{0, 0}
		}
		out := []byte{byte(len(items) >> 8), byte(len(items)), 2}
		off := 1
		var data []byte
		for _, it := range items {
			out = append(out, byte(off>>8), byte(off))
			off += len(it)
			data = append(data, it...)
		}
		out = append(out, byte(off>>8), byte(off))
		return append(out, data...)
	}
	i32 := func(v int) []byte { return []byte{29, byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)} }
	top := func(charset, charStrings int) string {
		d := append(append([]byte{}, rosOps...), i32(charset)...)
		d = append(append(append(d, 15), i32(charStrings)...), 17)
		return string(d)
	}
	head := append([]byte{1, 0, 4, 1}, index("Test")...)
	// Offsets depend on the Top DICT's length, which is fixed by the 5-byte integers.
	fixed := len(head) + len(index(top(0, 0))) + len(index(custom...)) + 2
	charset := []byte{0}
	for _, s := range sids {
		charset = append(charset, byte(s>>8), byte(s))
	}
	glyphs := make([]string, len(names)+1)
	for i := range glyphs {
		glyphs[i] = "\x0e" // endchar
	}
	b := append(head, index(top(fixed, fixed+len(charset)))...)
	b = append(b, index(custom...)...)
	b = append(b, 0, 0)
	b = append(b, charset...)
	return append(b, index(glyphs...)...)
}

// An Identity-H CIDFontType0 without ToUnicode whose embedded CFF program is name-keyed reads
// its glyph names through the Adobe Glyph List (CIDs are glyph IDs); a CID-keyed one naming
// Adobe-Japan1 reads through that collection.
func TestIdentityHEmbeddedCFF(t *testing.T) {
	desc := "<< /Type /Font /Subtype /CIDFontType0 /BaseFont /Test /DW 600 " +
		"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 7 0 R >>"
	fd := "<< /Type /FontDescriptor /FontName /Test /Flags 4 /Descent -250 /FontFile3 8 0 R >>"
	prog := cffProgram([]string{"H", "e", "l", "o", "uni05D0", "f_i"}, [2]string{})
	data := cidFontPDF("/Identity-H", desc, "00010002000300030004 0005 0006", fd, stream("/Subtype /CIDFontType0C", string(prog)))
	dumpFixture(t, data, "_name-keyed")
	p := readPage(t, data)
	if got := strings.Join(boxTexts(p), "|"); got != "Helloאfi" {
		t.Errorf("name-keyed: got %q", got)
	}
	prog = cffProgram([]string{"a", "b"}, [2]string{"Adobe", "Japan1"})
	data = cidFontPDF("/Identity-H", desc, "0CD4 0E8A 07A0", fd, stream("/Subtype /CIDFontType0C", string(prog)))
	dumpFixture(t, data, "_cid-keyed")
	p = readPage(t, data)
	if got := strings.Join(boxTexts(p), "|"); got != "日本語" {
		t.Errorf("CID-keyed Adobe-Japan1: got %q", got)
	}
}

// A cmap table of 32,767 full-range format 4 segments is read within a bounded number of steps.
func TestHostileTrueTypeCmap(t *testing.T) {
	const segs = 0x7FFF
	font := make([]byte, 12+16+4+8+14+8*segs+2)
	put16 := func(o, v int) { font[o], font[o+1] = byte(v>>8), byte(v) }
	put32 := func(o, v int) { put16(o, v>>16); put16(o+2, v&0xFFFF) }
	put16(4, 1)
	copy(font[12:], "cmap")
	put32(12+8, 28)
	put16(28+2, 1)
	put16(28+4, 3)
	put16(28+6, 1)
	put32(28+8, 12)
	sub := 40
	put16(sub, 4)
	put16(sub+6, 2*segs)
	for s := 0; s < segs; s++ {
		put16(sub+14+2*s, 0xFFFE)        // end
		put16(sub+16+2*segs+2*s, 0x0020) // start
		put16(sub+16+4*segs+2*s, 1)      // delta
	}
	start := time.Now()
	if m := trueTypeUnicode(font); len(m) == 0 {
		t.Error("nothing read")
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("took %v", el)
	}
}

// A ToUnicode map that lacks a code is completed from the font's collection, where pdfminer
// would print "(cid:N)" and pdftotext reads the character.
func TestToUnicodeGapsFromCollection(t *testing.T) {
	tu := "begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfchar <0CD4> <65E5> endbfchar endcmap"
	font := "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>"
	p := readPage(t, onePage("<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td <0CD4 0E8A 07A0> Tj ET",
		font, cidDescendant("Adobe", "Japan1"), stream("", tu)))
	if got := strings.Join(boxTexts(p), "|"); got != "日本語" {
		t.Errorf("got %q", got)
	}
}

// A vertical font (WMode 1, here Identity-V) sets its glyphs down a column, as pdfminer does:
// same x, y falling by one em per glyph, each marked as running downwards.
func TestVerticalFontSetsAColumn(t *testing.T) {
	p := readPage(t, cidFontPDF("/Identity-V", cidDescendant("Adobe", "Japan1"), "0CD4 0E8A 07A0 0226"))
	if len(p.Glyphs) != 4 {
		t.Fatalf("glyphs %+v", p.Glyphs)
	}
	var text string
	for i, g := range p.Glyphs {
		text += g.Text
		if g.Dir != 3 || g.X0 != 72-6 || g.X1 != 72+6 {
			t.Errorf("glyph %d: %+v", i, g)
		}
		if i > 0 && p.Glyphs[i-1].Y0-g.Y0 != 12 {
			t.Errorf("glyph %d not one em below the last: %v then %v", i, p.Glyphs[i-1].Y0, g.Y0)
		}
	}
	if text != "日本語の" {
		t.Errorf("text %q", text)
	}
}
