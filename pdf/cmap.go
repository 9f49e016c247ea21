package pdf

import (
	"strings"
	"sync"
	"unicode/utf16"
)

// codeKey identifies a character code together with its byte length, since <01> and <0001> are
// different codes in a CMap with mixed-length codespaces.
type codeKey uint64

func mkKey(code uint32, n int) codeKey { return codeKey(uint64(n)<<32 | uint64(code)) }

type csRange struct {
	n      int
	lo, hi [4]byte
}

type uniRange struct {
	n      int
	lo, hi uint32
	dst    []uint16 // first destination as UTF-16; the last unit is incremented along the range
	arr    []string // array form: one destination per code
}

type cidRange struct {
	n      int
	lo, hi uint32
	cid    int
}

// cmap is a parsed CMap: codespace ranges for splitting byte strings into codes, and either
// code→Unicode (ToUnicode: bfchar/bfrange) or code→CID (cidchar/cidrange) mappings.
type cmap struct {
	codespace []csRange
	uni       map[codeKey]string
	uniRanges []uniRange
	cid       map[codeKey]int
	cidRanges []cidRange
}

// maxCMapEntries bounds what a hostile CMap can make us allocate.
const maxCMapEntries = 1 << 20

// parseCMap reads the bf*/cid* sections of a CMap program. It ignores everything else
// (PostScript dictionaries, usecmap of predefined maps) and never fails.
func parseCMap(data []byte) *cmap {
	cm := &cmap{uni: map[codeKey]string{}, cid: map[codeKey]int{}}
	l := &lexer{b: data}
	var stack []any
	entries := 0
	for entries < maxCMapEntries {
		tok, ok := l.next()
		if !ok {
			break
		}
		op, isOp := tok.(pop)
		if !isOp {
			if len(stack) < 4096 {
				stack = append(stack, tok)
			}
			continue
		}
		switch op {
		case "endcodespacerange":
			for i := 0; i+1 < len(stack); i += 2 {
				lo, ok1 := stack[i].(pstr)
				hi, ok2 := stack[i+1].(pstr)
				if !ok1 || !ok2 || len(lo) == 0 || len(lo) > 4 || len(lo) != len(hi) {
					continue
				}
				var r csRange
				r.n = len(lo)
				copy(r.lo[:], lo)
				copy(r.hi[:], hi)
				cm.codespace = append(cm.codespace, r)
			}
		case "endbfchar":
			for i := 0; i+1 < len(stack); i += 2 {
				src, ok := stack[i].(pstr)
				if !ok || len(src) == 0 || len(src) > 4 {
					continue
				}
				switch dst := stack[i+1].(type) {
				case pstr:
					cm.uni[mkKey(bytesToCode(src), len(src))] = utf16BE(dst)
				case pname:
					if s, ok := glyphToUnicode(string(dst)); ok {
						cm.uni[mkKey(bytesToCode(src), len(src))] = s
					}
				}
				entries++
			}
		case "endbfrange":
			for i := 0; i+2 < len(stack); i += 3 {
				lo, ok1 := stack[i].(pstr)
				hi, ok2 := stack[i+1].(pstr)
				if !ok1 || !ok2 || len(lo) == 0 || len(lo) > 4 || len(hi) != len(lo) {
					continue
				}
				r := uniRange{n: len(lo), lo: bytesToCode(lo), hi: bytesToCode(hi)}
				if r.hi < r.lo {
					continue
				}
				switch dst := stack[i+2].(type) {
				case pstr:
					u := make([]uint16, 0, len(dst)/2)
					for k := 0; k+1 < len(dst); k += 2 {
						u = append(u, uint16(dst[k])<<8|uint16(dst[k+1]))
					}
					if len(dst) == 1 {
						u = append(u, uint16(dst[0]))
					}
					if len(u) == 0 {
						continue
					}
					r.dst = u
				case parray:
					for _, a := range dst {
						if s, ok := a.(pstr); ok {
							r.arr = append(r.arr, utf16BE(s))
						} else {
							r.arr = append(r.arr, "")
						}
					}
				default:
					continue
				}
				cm.uniRanges = append(cm.uniRanges, r)
				entries++
			}
		case "endcidchar":
			for i := 0; i+1 < len(stack); i += 2 {
				src, ok1 := stack[i].(pstr)
				c, ok2 := stack[i+1].(float64)
				if ok1 && ok2 && len(src) > 0 && len(src) <= 4 {
					cm.cid[mkKey(bytesToCode(src), len(src))] = int(c)
					entries++
				}
			}
		case "endcidrange":
			for i := 0; i+2 < len(stack); i += 3 {
				lo, ok1 := stack[i].(pstr)
				hi, ok2 := stack[i+1].(pstr)
				c, ok3 := stack[i+2].(float64)
				if ok1 && ok2 && ok3 && len(lo) > 0 && len(lo) <= 4 && len(lo) == len(hi) {
					cm.cidRanges = append(cm.cidRanges, cidRange{n: len(lo), lo: bytesToCode(lo), hi: bytesToCode(hi), cid: int(c)})
					entries++
				}
			}
		}
		stack = stack[:0]
	}
	return cm
}

func bytesToCode(b []byte) uint32 {
	var v uint32
	for _, c := range b {
		v = v<<8 | uint32(c)
	}
	return v
}

// nextCode splits the next code off s using the codespace ranges; without ranges it takes
// defaultLen bytes. An unmatched byte sequence consumes the shortest codespace length, as the
// PDF spec recommends, so decoding always advances.
func (cm *cmap) nextCode(s []byte, defaultLen int) (code uint32, n int) {
	if cm != nil && len(cm.codespace) > 0 {
		shortest := 4
		for _, r := range cm.codespace {
			if r.n < shortest {
				shortest = r.n
			}
			if r.n > len(s) {
				continue
			}
			match := true
			for k := 0; k < r.n; k++ {
				if s[k] < r.lo[k] || s[k] > r.hi[k] {
					match = false
					break
				}
			}
			if match {
				return bytesToCode(s[:r.n]), r.n
			}
		}
		n = min(shortest, len(s))
		return bytesToCode(s[:n]), n
	}
	n = min(defaultLen, len(s))
	return bytesToCode(s[:n]), n
}

func (cm *cmap) lookupUnicode(code uint32, n int) (string, bool) {
	if cm == nil {
		return "", false
	}
	if s, ok := cm.uni[mkKey(code, n)]; ok {
		return s, true
	}
	for i := len(cm.uniRanges) - 1; i >= 0; i-- {
		r := &cm.uniRanges[i]
		if r.n != n || code < r.lo || code > r.hi {
			continue
		}
		off := code - r.lo
		if r.arr != nil {
			if int(off) < len(r.arr) {
				return r.arr[off], true
			}
			return "", false
		}
		if len(r.dst) == 0 {
			return "", false // a bfrange with an empty destination maps nothing
		}
		u := make([]uint16, len(r.dst))
		copy(u, r.dst)
		u[len(u)-1] += uint16(off)
		return string(utf16.Decode(u)), true
	}
	return "", false
}

func (cm *cmap) lookupCID(code uint32, n int) (int, bool) {
	if cm == nil {
		return 0, false
	}
	if c, ok := cm.cid[mkKey(code, n)]; ok {
		return c, true
	}
	for i := len(cm.cidRanges) - 1; i >= 0; i-- {
		r := &cm.cidRanges[i]
		if r.n == n && code >= r.lo && code <= r.hi {
			return r.cid + int(code-r.lo), true
		}
	}
	return 0, false
}

var agl = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, 4500)
	for line := range strings.SplitSeq(aglData, "\n") {
		name, text, ok := strings.Cut(line, ";")
		if ok {
			m[name] = text
		}
	}
	return m
})

// glyphToUnicode maps an Adobe glyph name to text: the Adobe Glyph List, uniXXXX[XXXX…],
// uXXXX[XX], ligature names joined by '_', and variant suffixes after '.'.
func glyphToUnicode(name string) (string, bool) {
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	if strings.Contains(name, "_") {
		var b strings.Builder
		for part := range strings.SplitSeq(name, "_") {
			s, ok := glyphToUnicode(part)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		}
		return b.String(), true
	}
	if s, ok := agl()[name]; ok {
		return s, true
	}
	if strings.HasPrefix(name, "uni") && len(name) >= 7 && (len(name)-3)%4 == 0 {
		var rs []rune
		for i := 3; i < len(name); i += 4 {
			v, ok := parseHex(name[i : i+4])
			if !ok || (v >= 0xD800 && v <= 0xDFFF) {
				return "", false
			}
			rs = append(rs, rune(v))
		}
		return string(rs), true
	}
	if strings.HasPrefix(name, "u") && len(name) >= 5 && len(name) <= 7 {
		v, ok := parseHex(name[1:])
		if ok && v <= 0x10FFFF && (v < 0xD800 || v > 0xDFFF) {
			return string(rune(v)), true
		}
	}
	return "", false
}

func parseHex(s string) (uint32, bool) {
	var v uint32
	for i := 0; i < len(s); i++ {
		h, ok := unhex(s[i])
		if !ok || (s[i] >= 'a' && s[i] <= 'f') {
			// Glyph-name hex digits are upper case only (AGL specification).
			return 0, false
		}
		v = v<<4 | uint32(h)
	}
	return v, true
}
