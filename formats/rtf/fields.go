package rtf

import (
	"bytes"
	"strconv"
	"strings"
)

// pandoc's RTF reader (2.x) loses the text of most fields and every footnote a word processor
// writes: a field whose instruction is not itself a group ({\*\fldinst HYPERLINK "…"}, as
// LibreOffice writes links) or that is not a hyperlink (DATE, PAGE, REF, MERGEFIELD) vanishes
// with its shown result, and a footnote marked as an ignorable destination ({\*\footnote …}, as
// LibreOffice and Word write them) is skipped. normalizeFields rewrites those constructs into the
// forms pandoc reads before conversion: a hyperlink's instruction wrapped in a group, any other
// field replaced by its result group, {\*\footnote by {\footnote. Everything else is copied
// byte for byte; escapes and \bin data are stepped over, so braces inside them are not groups.

// maxFieldNesting bounds fields nested in fields' results that are rewritten; deeper ones are
// copied as they are.
const maxFieldNesting = 16

// normalizeFields returns the RTF with fields and footnotes rewritten (see above).
func normalizeFields(src []byte) []byte {
	if !bytes.Contains(src, []byte(`\field`)) && !bytes.Contains(src, []byte(`\*\footnote`)) {
		return src
	}
	var out bytes.Buffer
	out.Grow(len(src))
	rewrite(&out, src, 0)
	return out.Bytes()
}

// rewrite copies src to out, rewriting field groups and footnote destinations.
func rewrite(out *bytes.Buffer, src []byte, nesting int) {
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '\\':
			n := skipControl(src, i)
			out.Write(src[i:n])
			i = n
		case c == '{' && hasWord(src[i+1:], `\field`) && nesting < maxFieldNesting:
			end := groupEnd(src, i)
			field(out, inner(src, i, end), nesting)
			i = end
		case c == '{' && bytes.HasPrefix(src[i+1:], []byte(`\*\footnote`)) && !isLetter(src, i+1+len(`\*\footnote`)):
			out.WriteString(`{\footnote`)
			i += 1 + len(`\*\footnote`)
		default:
			out.WriteByte(c)
			i++
		}
	}
}

// field writes a field group's replacement; body is the group without its braces.
func field(out *bytes.Buffer, body []byte, nesting int) {
	var inst, result []byte
	for i := 0; i < len(body); {
		switch body[i] {
		case '\\':
			i = skipControl(body, i)
		case '{':
			end := groupEnd(body, i)
			g := inner(body, i, end)
			switch {
			case hasWord(g, `\*\fldinst`):
				inst = g[len(`\*\fldinst`):]
			case hasWord(g, `\fldrslt`):
				result = g[len(`\fldrslt`):]
			}
			i = end
		default:
			i++
		}
	}
	text := instructionText(inst)
	if strings.HasPrefix(strings.ToUpper(text), "HYPERLINK") {
		// pandoc reads a link whose instruction is a group.
		out.WriteString(`{\field{\*\fldinst{`)
		out.WriteString(escape(text))
		out.WriteString(`}}{\fldrslt{`)
		rewrite(out, result, nesting+1)
		out.WriteString(`}}}`)
		return
	}
	// Any other field reads as the text it shows.
	out.WriteByte('{')
	rewrite(out, result, nesting+1)
	out.WriteByte('}')
}

// instructionText is a field instruction's plain text: control words and group braces
// dropped, escaped characters kept.
func instructionText(inst []byte) string {
	var b strings.Builder
	for i := 0; i < len(inst); {
		switch c := inst[i]; c {
		case '\\':
			if i+1 < len(inst) && (inst[i+1] == '\\' || inst[i+1] == '{' || inst[i+1] == '}') {
				b.WriteByte(inst[i+1])
				i += 2
				continue
			}
			i = skipControl(inst, i)
		case '{', '}', '\r', '\n':
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `{`, `\{`, `}`, `\}`).Replace(s)
}

// hasWord reports whether b starts with the control word w (not a longer word).
func hasWord(b []byte, w string) bool {
	return bytes.HasPrefix(b, []byte(w)) && !isLetter(b, len(w))
}

func isLetter(b []byte, i int) bool {
	return i < len(b) && (b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z')
}

// skipControl returns the index after the control word, symbol or \bin data starting at i
// (src[i] is a backslash), its delimiting space included.
func skipControl(src []byte, i int) int {
	j := i + 1
	if j >= len(src) {
		return j
	}
	if !isLetter(src, j) {
		if src[j] == '\'' {
			return min(j+3, len(src)) // \'hh
		}
		return j + 1 // control symbol: \{ \} \\ \~ …
	}
	for isLetter(src, j) {
		j++
	}
	word := string(src[i+1 : j])
	k := j
	if k < len(src) && src[k] == '-' {
		k++
	}
	for k < len(src) && src[k] >= '0' && src[k] <= '9' {
		k++
	}
	param := string(src[j:k])
	if k < len(src) && src[k] == ' ' {
		k++
	}
	if word == "bin" {
		if n, err := strconv.Atoi(param); err == nil && n > 0 {
			k = min(k+n, len(src))
		}
	}
	return k
}

// inner is the content of the group src[i:end] without its braces (a group cut short at the
// end of the input has no closing one).
func inner(src []byte, i, end int) []byte {
	g := src[i+1 : end]
	if len(g) > 0 && g[len(g)-1] == '}' && end <= len(src) && (end < len(src) || src[end-1] == '}') {
		g = g[:len(g)-1]
	}
	return g
}

// groupEnd returns the index after the brace closing the group opened at i, or len(src) for a
// group cut short.
func groupEnd(src []byte, i int) int {
	depth := 0
	for j := i; j < len(src); {
		switch src[j] {
		case '\\':
			j = skipControl(src, j)
			continue
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
		j++
	}
	return len(src)
}
