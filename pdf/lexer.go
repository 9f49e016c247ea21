package pdf

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Content-stream operands. Strings stay raw bytes because their meaning depends on the font.
type (
	pname  string
	pstr   []byte
	parray []any
	pdict  map[string]any
	pop    string // an operator keyword
)

// lexer tokenizes a content stream. It never fails: malformed input yields whatever tokens can
// be recognised, and every loop advances at least one byte, so hostile streams terminate.
type lexer struct {
	b   []byte
	pos int
}

func isWhite(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		if isWhite(c) {
			l.pos++
			continue
		}
		if c == '%' {
			for l.pos < len(l.b) && l.b[l.pos] != '\n' && l.b[l.pos] != '\r' {
				l.pos++
			}
			continue
		}
		return
	}
}

// maxNesting bounds arrays and dictionaries in operands.
const maxNesting = 32

// next returns the next token: an operand value, a pop operator, or ok=false at the end.
func (l *lexer) next() (any, bool) {
	return l.nextDepth(0)
}

func (l *lexer) nextDepth(depth int) (any, bool) {
	l.skipSpace()
	if l.pos >= len(l.b) {
		return nil, false
	}
	c := l.b[l.pos]
	switch {
	case c == '/':
		l.pos++
		start := l.pos
		for l.pos < len(l.b) && !isWhite(l.b[l.pos]) && !isDelim(l.b[l.pos]) {
			l.pos++
		}
		return pname(decodeNameEscapes(l.b[start:l.pos])), true
	case c == '(':
		l.pos++
		return pstr(l.literalString()), true
	case c == '<':
		if l.pos+1 < len(l.b) && l.b[l.pos+1] == '<' {
			l.pos += 2
			return l.dict(depth), true
		}
		l.pos++
		return pstr(l.hexString()), true
	case c == '[':
		l.pos++
		var a parray
		for {
			l.skipSpace()
			if l.pos >= len(l.b) {
				return a, true
			}
			if l.b[l.pos] == ']' {
				l.pos++
				return a, true
			}
			if depth >= maxNesting {
				l.pos++
				continue
			}
			v, ok := l.nextDepth(depth + 1)
			if !ok {
				return a, true
			}
			if _, isOp := v.(pop); isOp {
				// Operators cannot live in arrays; a stray keyword means the array is broken.
				continue
			}
			a = append(a, v)
		}
	case c == ']' || c == '>' || c == ')' || c == '{' || c == '}':
		l.pos++
		return pop(string(c)), true
	case c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'):
		start := l.pos
		l.pos++
		for l.pos < len(l.b) {
			d := l.b[l.pos]
			if (d >= '0' && d <= '9') || d == '.' || d == '-' || d == '+' {
				l.pos++
				continue
			}
			break
		}
		return parseNumber(l.b[start:l.pos]), true
	}
	start := l.pos
	for l.pos < len(l.b) && !isWhite(l.b[l.pos]) && !isDelim(l.b[l.pos]) {
		l.pos++
	}
	if l.pos == start {
		l.pos++
	}
	switch w := string(l.b[start:l.pos]); w {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	default:
		return pop(w), true
	}
}

// parseNumber is lenient like real viewers: "--5", "5.", "1.2.3" give the longest valid prefix.
func parseNumber(b []byte) float64 {
	neg := false
	i := 0
	for i < len(b) && (b[i] == '+' || b[i] == '-') {
		if b[i] == '-' {
			neg = !neg
		}
		i++
	}
	j := i
	dot := false
	for j < len(b) {
		if b[j] == '.' {
			if dot {
				break
			}
			dot = true
		} else if b[j] < '0' || b[j] > '9' {
			break
		}
		j++
	}
	v, err := strconv.ParseFloat(string(b[i:j]), 64)
	if err != nil {
		v = 0
	}
	if neg {
		v = -v
	}
	return v
}

func (l *lexer) dict(depth int) pdict {
	d := pdict{}
	for {
		l.skipSpace()
		if l.pos >= len(l.b) {
			return d
		}
		if l.b[l.pos] == '>' {
			l.pos++
			if l.pos < len(l.b) && l.b[l.pos] == '>' {
				l.pos++
			}
			return d
		}
		k, ok := l.nextDepth(depth + 1)
		if !ok {
			return d
		}
		key, isName := k.(pname)
		if !isName {
			continue
		}
		if depth >= maxNesting {
			continue
		}
		v, ok := l.nextDepth(depth + 1)
		if !ok {
			return d
		}
		if _, isOp := v.(pop); isOp {
			continue
		}
		d[string(key)] = v
	}
}

func (l *lexer) literalString() []byte {
	var out []byte
	depth := 1
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
			out = append(out, c)
		case ')':
			depth--
			if depth == 0 {
				return out
			}
			out = append(out, c)
		case '\\':
			if l.pos >= len(l.b) {
				return out
			}
			e := l.b[l.pos]
			l.pos++
			switch e {
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case '\r':
				if l.pos < len(l.b) && l.b[l.pos] == '\n' {
					l.pos++
				}
			case '\n':
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.pos < len(l.b) && l.b[l.pos] >= '0' && l.b[l.pos] <= '7'; k++ {
						v = v*8 + int(l.b[l.pos]-'0')
						l.pos++
					}
					out = append(out, byte(v))
				} else {
					out = append(out, e)
				}
			}
		default:
			out = append(out, c)
		}
	}
	return out
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func (l *lexer) hexString() []byte {
	var out []byte
	var hi byte
	half := false
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		l.pos++
		if c == '>' {
			break
		}
		v, ok := unhex(c)
		if !ok {
			continue
		}
		if half {
			out = append(out, hi<<4|v)
			half = false
		} else {
			hi = v
			half = true
		}
	}
	if half {
		out = append(out, hi<<4)
	}
	return out
}

func decodeNameEscapes(b []byte) string {
	for i := 0; i < len(b); i++ {
		if b[i] == '#' {
			out := make([]byte, 0, len(b))
			for j := 0; j < len(b); j++ {
				if b[j] == '#' && j+2 < len(b) {
					h, ok1 := unhex(b[j+1])
					lo, ok2 := unhex(b[j+2])
					if ok1 && ok2 {
						out = append(out, h<<4|lo)
						j += 2
						continue
					}
				}
				out = append(out, b[j])
			}
			return string(out)
		}
	}
	return string(b)
}

// skipInlineImage moves past inline image data after the ID operator. The data is binary, so
// we look for "EI" delimited by white space, as viewers do; a missing EI consumes the rest.
func (l *lexer) skipInlineImage() {
	if l.pos < len(l.b) && isWhite(l.b[l.pos]) {
		l.pos++
	}
	for i := l.pos; i+1 < len(l.b); i++ {
		if l.b[i] == 'E' && l.b[i+1] == 'I' && (i == 0 || isWhite(l.b[i-1])) &&
			(i+2 >= len(l.b) || isWhite(l.b[i+2]) || isDelim(l.b[i+2])) {
			l.pos = i + 2
			return
		}
	}
	l.pos = len(l.b)
}

// decodeTextString decodes a PDF text string: UTF-16BE or UTF-8 with a BOM, else PDFDocEncoding.
func decodeTextString(b []byte) string {
	if len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF {
		return utf16BE(b[2:])
	}
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF && utf8.Valid(b[3:]) {
		return string(b[3:])
	}
	out := make([]rune, 0, len(b))
	for _, c := range b {
		if name := pdfDocEncoding[c]; name != "" {
			if s, ok := glyphToUnicode(name); ok {
				out = append(out, []rune(s)...)
				continue
			}
		}
		out = append(out, rune(c))
	}
	return string(out)
}

func utf16BE(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	return string(utf16.Decode(u))
}
