package element

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// value is an ordered JSON tree. Elements are turned into values and then written by one writer
// whose knobs cover the reference's three dialects: compact UTF-8 (API output), Python's
// json.dumps with sorted keys and ASCII escapes (orig_elements), and Python repr (CSV cells).
type value interface{}

type member struct {
	key string
	val value
}

type (
	object []member
	array  []value
	number string // a JSON number literal, already formatted
	null   struct{}
)

// FormatFloat writes f as Python's repr does: shortest round-trip digits, always with a decimal
// point or exponent, scientific notation outside 1e-4 ≤ |f| < 1e16.
func FormatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	epos := strings.IndexByte(s, 'e')
	mant, exp := s[:epos], s[epos+1:]
	e, _ := strconv.Atoi(exp)
	digits := strings.Replace(mant, ".", "", 1)
	if e < -4 || e >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := strconv.Itoa(abs(e))
		if len(es) < 2 {
			es = "0" + es
		}
		if e < 0 {
			return sign + m + "e-" + es
		}
		return sign + m + "e+" + es
	}
	if e < 0 {
		return sign + "0." + strings.Repeat("0", -e-1) + digits
	}
	if len(digits) <= e+1 {
		return sign + digits + strings.Repeat("0", e+1-len(digits)) + ".0"
	}
	return sign + digits[:e+1] + "." + digits[e+1:]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func floatValue(f float64) value { return number(FormatFloat(f)) }
func intValue(n int) value       { return number(strconv.Itoa(n)) }

// dialect selects how a value tree is written.
type dialect struct {
	sortKeys   bool
	spaced     bool // Python's default separators ", " and ": "
	asciiOnly  bool // escape every non-ASCII rune as \uXXXX (surrogate pairs above the BMP)
	pythonRepr bool // Python repr: single-quoted strings, True/False/None
}

var (
	compactJSON = dialect{}
	pythonJSON  = dialect{sortKeys: true, spaced: true, asciiOnly: true}
	pythonRepr  = dialect{spaced: true, pythonRepr: true}
)

func (d dialect) write(b *bytes.Buffer, v value) {
	switch v := v.(type) {
	case nil, null:
		if d.pythonRepr {
			b.WriteString("None")
		} else {
			b.WriteString("null")
		}
	case bool:
		switch {
		case d.pythonRepr && v:
			b.WriteString("True")
		case d.pythonRepr:
			b.WriteString("False")
		case v:
			b.WriteString("true")
		default:
			b.WriteString("false")
		}
	case number:
		b.WriteString(string(v))
	case string:
		if d.pythonRepr {
			writePyRepr(b, v)
		} else {
			writeJSONString(b, v, d.asciiOnly)
		}
	case array:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				d.sep(b, ',')
			}
			d.write(b, e)
		}
		b.WriteByte(']')
	case object:
		members := v
		if d.sortKeys {
			members = slices.Clone(v)
			slices.SortStableFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
		}
		b.WriteByte('{')
		for i, m := range members {
			if i > 0 {
				d.sep(b, ',')
			}
			d.write(b, m.key)
			d.sep(b, ':')
			d.write(b, m.val)
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("element: unexpected JSON value %T", v))
	}
}

func (d dialect) sep(b *bytes.Buffer, c byte) {
	b.WriteByte(c)
	if d.spaced {
		b.WriteByte(' ')
	}
}

const hexDigits = "0123456789abcdef"

func writeJSONString(b *bytes.Buffer, s string, asciiOnly bool) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				if c < 0x20 || (asciiOnly && c == 0x7f) {
					writeU(b, rune(c))
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case asciiOnly && r > 0xffff:
			r -= 0x10000
			writeU(b, 0xd800+(r>>10))
			writeU(b, 0xdc00+(r&0x3ff))
		case asciiOnly:
			writeU(b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

func writeU(b *bytes.Buffer, r rune) {
	b.WriteString(`\u`)
	b.WriteByte(hexDigits[r>>12&0xf])
	b.WriteByte(hexDigits[r>>8&0xf])
	b.WriteByte(hexDigits[r>>4&0xf])
	b.WriteByte(hexDigits[r&0xf])
}

// writePyRepr writes s as Python's repr(str) does.
func writePyRepr(b *bytes.Buffer, s string) {
	quote := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
}

// maxJSONDepth bounds nesting when parsing foreign JSON, so hostile input cannot exhaust the stack.
const maxJSONDepth = 512

// parseValue reads one JSON value keeping object key order and number literals.
func parseValue(dec *json.Decoder, depth int) (value, error) {
	if depth > maxJSONDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var o object
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o = append(o, member{k, v})
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			if o == nil {
				o = object{}
			}
			return o, nil
		case '[':
			a := array{}
			for dec.More() {
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	case json.Number:
		return normalizeNumber(t), nil
	case nil:
		return null{}, nil
	default:
		return t, nil // string or bool
	}
}

// normalizeNumber rewrites a float literal in Python's repr so re-serialization matches.
func normalizeNumber(n json.Number) value {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		return number(s)
	}
	f, err := n.Float64()
	if err != nil {
		return number(s)
	}
	return floatValue(f)
}

func parseRaw(raw []byte) (value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON value")
	}
	return v, nil
}

// marshalValue writes a value in the given dialect.
func marshalValue(v value, d dialect) []byte {
	var b bytes.Buffer
	d.write(&b, v)
	return b.Bytes()
}
