package pdf

import (
	"fmt"
	"strings"
	"testing"
)

// rtlFontPDF draws visual (runes left to right, a space meaning a word gap rather than a glyph)
// with a Type0 font whose ToUnicode map gives each code its rune; leftwards draws the same
// glyphs in reverse order moving right to left, as writers that emit logical order do.
func rtlFontPDF(visual string, leftwards bool) []byte {
	codes := map[rune]int{}
	var bf strings.Builder
	var words [][]int
	word := []int{}
	for _, r := range visual {
		if r == ' ' {
			words = append(words, word)
			word = []int{}
			continue
		}
		c, ok := codes[r]
		if !ok {
			c = len(codes) + 1
			codes[r] = c
			u := []rune{r}
			fmt.Fprintf(&bf, "<%04X> <%s>\n", c, utf16Hex(u))
		}
		word = append(word, c)
	}
	words = append(words, word)
	var content strings.Builder
	content.WriteString("BT /F1 12 Tf ")
	if !leftwards {
		content.WriteString("72 700 Td [")
		for i, w := range words {
			if i > 0 {
				content.WriteString(" -600 ")
			}
			content.WriteString("<")
			for _, c := range w {
				fmt.Fprintf(&content, "%04X", c)
			}
			content.WriteString(">")
		}
		content.WriteString("] TJ")
	} else {
		// Each glyph placed with Tm, from the rightmost one leftwards (6 points per glyph, a
		// 7.2-point gap between words).
		x := 72.0
		var pos []float64
		var cs []int
		for i, w := range words {
			if i > 0 {
				x += 7.2
			}
			for _, c := range w {
				pos = append(pos, x)
				cs = append(cs, c)
				x += 6
			}
		}
		for i := len(cs) - 1; i >= 0; i-- {
			fmt.Fprintf(&content, "1 0 0 1 %.1f 700 Tm <%04X> Tj ", pos[i], cs[i])
		}
	}
	content.WriteString(" ET")
	cmap := "begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange\n" +
		fmt.Sprintf("%d beginbfchar\n%sendbfchar endcmap", len(codes), bf.String())
	font := "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>"
	desc := "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /DW 500 " +
		"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> >>"
	return onePage("<< /Font << /F1 5 0 R >> >>", content.String(), font, desc, stream("", cmap))
}

func utf16Hex(rs []rune) string {
	var b strings.Builder
	for _, r := range rs {
		if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(&b, "%04X%04X", 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			continue
		}
		fmt.Fprintf(&b, "%04X", r)
	}
	return b.String()
}

// Right-to-left lines come out in logical order whichever way the writer drew them.
func TestRightToLeftLogicalOrder(t *testing.T) {
	for _, tc := range []struct{ name, visual, want string }{
		{"Hebrew", "םלוע םולש", "שלום עולם"},
		{"Hebrew with a number", "םלוע 123 םולש", "שלום 123 עולם"},
		{"Hebrew word inside English", "Hello םולש world", "Hello שלום world"},
		{"English word inside Hebrew", "םולש Quarry הדות", "תודה Quarry שלום"},
		// Presentation forms (final meem, lam-alef, initial seen) read as the letters.
		{"Arabic presentation forms", "\uFEE1\uFEFC\uFEB3", "سلام"},
		{"Arabic words", "ملاعلا ابحرم", "مرحبا العالم"},
	} {
		for _, leftwards := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s leftwards=%v", tc.name, leftwards), func(t *testing.T) {
				data := rtlFontPDF(tc.visual, leftwards)
				dumpFixture(t, data)
				p := readPage(t, data)
				if got := strings.Join(boxTexts(p), "|"); got != tc.want {
					t.Errorf("got %q, want %q", got, tc.want)
				}
			})
		}
	}
}

// Left-to-right lines keep pdfminer's drawing order untouched, even when drawn leftwards.
func TestLeftToRightUntouched(t *testing.T) {
	p := readPage(t, rtlFontPDF("plain text", false))
	if got := strings.Join(boxTexts(p), "|"); got != "plain text" {
		t.Errorf("got %q", got)
	}
}
