package rtf

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
)

// pandoc's RTF reader (2.x) decodes every \'hh escape as Windows-1252, whatever the document's
// code page (\ansicpgN) or the font's character set (\fcharsetN): a Russian, Greek, Polish or
// Turkish document written by Word or WordPad came out as mojibake ("Ïðèâåò" for "Привет"). It
// also drops the character after a \uN control word when the fallback that follows it is a
// literal character ("\u1090?." lost its "."). normalizeText rewrites the text escapes into the
// form pandoc reads right: a \'hh of a non-1252 code page becomes \uN with a \'3f fallback per
// \ucN, and every \uN gets a space delimiter. Fallbacks of existing \uN are left alone, \bin
// data is stepped over, and a 1252 document without \u keeps its bytes.

// rtfState is the part of a group's state the rewrite needs.
type rtfState struct {
	font int // current font number, -1 when none was selected
	uc   int // fallback characters after \uN
}

// normalizeText returns src with its text escapes rewritten for pandoc (see above).
func normalizeText(src []byte) []byte {
	if !bytes.Contains(src, []byte(`\'`)) && !bytes.Contains(src, []byte(`\u`)) {
		return src
	}
	fonts, ansi, deff := fontTable(src)
	var out bytes.Buffer
	out.Grow(len(src) + len(src)/8)
	st := rtfState{font: deff, uc: 1}
	var stack []rtfState
	skip := 0 // fallback characters still to copy as they are
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '{':
			stack = append(stack, st)
			out.WriteByte(c)
			i++
		case c == '}':
			if n := len(stack); n > 0 {
				st, stack = stack[n-1], stack[:n-1]
			}
			skip = 0
			out.WriteByte(c)
			i++
		case c == '\\' && i+1 < len(src) && src[i+1] == '\'':
			end := min(i+4, len(src))
			if skip > 0 {
				skip--
				out.Write(src[i:end])
				i = end
				continue
			}
			cp := ansi
			if f, ok := fonts[st.font]; ok && f != 0 {
				cp = f
			}
			r, n := decodeEscape(src[i:], cp)
			if n == 0 {
				out.Write(src[i:end])
				i = end
				continue
			}
			writeUnicode(&out, r, st.uc)
			i += n
		case c == '\\':
			n := skipControl(src, i)
			word, param, hasParam := controlWord(src[i:n])
			switch word {
			case "u":
				if hasParam {
					out.Write(bytes.TrimRight(src[i:n], " "))
					out.WriteByte(' ')
					skip = st.uc
					i = n
					continue
				}
			case "uc":
				if hasParam && param >= 0 && param < 16 {
					st.uc = param
				}
			case "f":
				if hasParam {
					st.font = param
				}
			case "plain":
				st.font = deff
			}
			out.Write(src[i:n])
			i = n
		default:
			if skip > 0 && c != '\r' && c != '\n' {
				skip--
			}
			out.WriteByte(c)
			i++
		}
	}
	return out.Bytes()
}

// controlWord splits a control word ("\f12 ") into its name and parameter.
func controlWord(b []byte) (word string, param int, hasParam bool) {
	if len(b) < 2 || !isLetter(b, 1) {
		return "", 0, false
	}
	j := 1
	for isLetter(b, j) {
		j++
	}
	p, err := strconv.Atoi(string(bytes.TrimRight(b[j:], " ")))
	return string(b[1:j]), p, err == nil
}

// writeUnicode writes r as \uN (RTF's signed 16-bit parameter) with uc fallbacks of "?".
func writeUnicode(out *bytes.Buffer, r rune, uc int) {
	n := int(r)
	if n > 0x7fff {
		n -= 0x10000
	}
	out.WriteString(`\u`)
	out.WriteString(strconv.Itoa(n))
	out.WriteByte(' ')
	for range uc {
		out.WriteString(`\'3f`)
	}
}

// decodeEscape decodes the \'hh escape (two for a double-byte code page's lead byte) at the
// start of b in code page cp. It returns 0 bytes consumed when the escape is to stay as it is:
// ASCII, Windows-1252 (what pandoc assumes), the symbol character set, an unknown code page.
func decodeEscape(b []byte, cp int) (rune, int) {
	if cp == 1252 || cp == 0 || len(b) < 4 {
		return 0, 0
	}
	hi, ok := hexByte(b[2], b[3])
	if !ok || hi < 0x80 {
		return 0, 0
	}
	enc := codepage(cp)
	if enc == nil {
		return 0, 0
	}
	raw, n := []byte{hi}, 4
	if dbcsLead(cp, hi) {
		if len(b) < 8 || b[4] != '\\' || b[5] != '\'' {
			return 0, 0
		}
		lo, ok := hexByte(b[6], b[7])
		if !ok {
			return 0, 0
		}
		raw, n = append(raw, lo), 8
	}
	dec, err := enc.NewDecoder().Bytes(raw)
	if err != nil {
		return 0, 0
	}
	r, size := utf8.DecodeRune(dec)
	if r == utf8.RuneError || size != len(dec) {
		return 0, 0
	}
	return r, n
}

func hexByte(a, b byte) (byte, bool) {
	v, err := strconv.ParseUint(string([]byte{a, b}), 16, 8)
	return byte(v), err == nil
}

// dbcsLead reports whether c starts a two-byte character in the double-byte code page cp.
func dbcsLead(cp int, c byte) bool {
	switch cp {
	case 932:
		return c >= 0x81 && c <= 0x9f || c >= 0xe0 && c <= 0xfc
	case 936, 949, 950:
		return c >= 0x81 && c <= 0xfe
	}
	return false
}

// codepage returns the decoder of a Windows code page (nil when unknown).
func codepage(cp int) encoding.Encoding {
	name := "windows-" + strconv.Itoa(cp)
	switch cp {
	case 932:
		name = "Shift_JIS"
	case 936:
		name = "GBK"
	case 949:
		name = "EUC-KR"
	case 950:
		name = "Big5"
	case 437, 850, 852, 855, 857, 860, 861, 862, 863, 865, 866:
		name = "IBM" + strconv.Itoa(cp)
	case 10000:
		name = "macintosh"
	}
	e, err := ianaindex.IANA.Encoding(name)
	if err != nil {
		return nil
	}
	return e
}

// charsetCodepages maps \fcharsetN to the Windows code page of its text; 0 (ANSI) and 1
// (default) follow the document's \ansicpg, 2 (symbol) is left to pandoc.
var charsetCodepages = map[int]int{
	77: 10000, 128: 932, 129: 949, 134: 936, 136: 950, 161: 1253, 162: 1254, 163: 1258,
	177: 1255, 178: 1256, 186: 1257, 204: 1251, 222: 874, 238: 1250, 254: 437, 255: 850,
}

// fontTable reads the font table's code pages (by \fcharsetN, or \cpgN when given), the
// document's \ansicpgN (1252 when absent) and its default font \deffN.
func fontTable(src []byte) (fonts map[int]int, ansi, deff int) {
	ansi, deff = 1252, -1
	head := src[:min(len(src), 512)]
	if j := bytes.Index(head, []byte(`\ansicpg`)); j >= 0 {
		if _, p, ok := controlWord(src[j:skipControl(src, j)]); ok && p > 0 {
			ansi = p
		}
	}
	if j := bytes.Index(head, []byte(`\deff`)); j >= 0 {
		if w, p, ok := controlWord(src[j:skipControl(src, j)]); ok && w == "deff" {
			deff = p
		}
	}
	fonts = map[int]int{}
	start := bytes.Index(src, []byte(`{\fonttbl`))
	if start < 0 {
		return fonts, ansi, deff
	}
	end := groupEnd(src, start)
	cur := -1
	for i := start + 1; i < end; {
		if src[i] != '\\' {
			i++
			continue
		}
		n := skipControl(src, i)
		w, p, ok := controlWord(src[i:n])
		switch {
		case !ok:
		case w == "f":
			cur = p
		case w == "fcharset" && cur >= 0:
			if cp, known := charsetCodepages[p]; known {
				fonts[cur] = cp
			}
		case w == "cpg" && cur >= 0 && p > 0:
			fonts[cur] = p
		}
		i = n
	}
	return fonts, ansi, deff
}
