package pdf

import (
	"fmt"
	"os"
	"strings"
	"testing"

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
			p := readPage(t, cidFontPDF(tc.encoding, cidDescendant("Adobe", tc.ordering), tc.show))
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
		p := readPage(t, cidFontPDF("/Identity-H", d, s, extra...))
		if got := strings.Join(boxTexts(p), "|"); got != "שלום" {
			t.Errorf("CIDToGIDMap stream %v: got %q, want שלום", withMap, got)
		}
	}
}
