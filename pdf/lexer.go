package pdf

import (
	"math"
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
		return boxNumber(parseNumber(l.b[start:l.pos])), true
	}
	start := l.pos
	for l.pos < len(l.b) && !isWhite(l.b[l.pos]) && !isDelim(l.b[l.pos]) {
		l.pos++
	}
	if l.pos == start {
		l.pos++
	}
	switch w := l.b[start:l.pos]; string(w) {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	default:
		return operator(w), true
	}
}

// operator returns the operator named w; the content-stream operators come from constants, so a
// page's tens of thousands of operators allocate nothing.
func operator(w []byte) any {
	switch string(w) {
	case "q":
		return pop("q")
	case "Q":
		return pop("Q")
	case "cm":
		return pop("cm")
	case "BT":
		return pop("BT")
	case "ET":
		return pop("ET")
	case "Tf":
		return pop("Tf")
	case "Tc":
		return pop("Tc")
	case "Tw":
		return pop("Tw")
	case "Tz":
		return pop("Tz")
	case "TL":
		return pop("TL")
	case "Tr":
		return pop("Tr")
	case "Ts":
		return pop("Ts")
	case "Td":
		return pop("Td")
	case "TD":
		return pop("TD")
	case "Tm":
		return pop("Tm")
	case "T*":
		return pop("T*")
	case "Tj":
		return pop("Tj")
	case "TJ":
		return pop("TJ")
	case "gs":
		return pop("gs")
	case "Do":
		return pop("Do")
	case "m":
		return pop("m")
	case "l":
		return pop("l")
	case "c":
		return pop("c")
	case "v":
		return pop("v")
	case "y":
		return pop("y")
	case "h":
		return pop("h")
	case "re":
		return pop("re")
	case "S":
		return pop("S")
	case "s":
		return pop("s")
	case "f":
		return pop("f")
	case "F":
		return pop("F")
	case "f*":
		return pop("f*")
	case "B":
		return pop("B")
	case "b":
		return pop("b")
	case "n":
		return pop("n")
	case "W":
		return pop("W")
	case "W*":
		return pop("W*")
	case "g":
		return pop("g")
	case "G":
		return pop("G")
	case "rg":
		return pop("rg")
	case "RG":
		return pop("RG")
	case "k":
		return pop("k")
	case "K":
		return pop("K")
	case "cs":
		return pop("cs")
	case "CS":
		return pop("CS")
	case "sc":
		return pop("sc")
	case "SC":
		return pop("SC")
	case "scn":
		return pop("scn")
	case "SCN":
		return pop("SCN")
	case "w":
		return pop("w")
	case "i":
		return pop("i")
	case "j":
		return pop("j")
	case "J":
		return pop("J")
	case "d":
		return pop("d")
	case "M":
		return pop("M")
	case "ri":
		return pop("ri")
	case "BMC":
		return pop("BMC")
	case "BDC":
		return pop("BDC")
	case "EMC":
		return pop("EMC")
	}
	return pop(w)
}

// smallInts are the integers -1024…1024 already boxed: most numbers in content streams are
// small integers (kerning in TJ arrays, coordinates), and boxing each would allocate.
var smallInts = func() (t [2049]any) {
	for i := range t {
		t[i] = float64(i - 1024)
	}
	return t
}()

func boxNumber(v float64) any {
	if i := int(v); float64(i) == v && i >= -1024 && i <= 1024 && !(v == 0 && math.Signbit(v)) {
		return smallInts[i+1024]
	}
	return v
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
	v, ok := fastDecimal(b[i:j])
	if !ok {
		var err error
		if v, err = strconv.ParseFloat(string(b[i:j]), 64); err != nil {
			v = 0
		}
	}
	if neg {
		v = -v
	}
	return v
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastDecimal converts digits with at most one dot when the digits fit in 2^53 and there are at
// most 22 after the dot: then mantissa ÷ 10^k is one correctly rounded IEEE division, the same
// value strconv.ParseFloat returns (Clinger's fast path), without its allocation.
func fastDecimal(b []byte) (float64, bool) {
	var m uint64
	frac, dot, digits := 0, false, 0
	for _, c := range b {
		if c == '.' {
			dot = true
			continue
		}
		m = m*10 + uint64(c-'0')
		digits++
		if dot {
			frac++
		}
		if digits > 15 {
			return 0, false
		}
	}
	if digits == 0 || frac >= len(pow10) {
		return 0, false
	}
	return float64(m) / pow10[frac], true
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
