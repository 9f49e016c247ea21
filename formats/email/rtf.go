package email

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/text/encoding"
)

// rtfPrebuf is the dictionary's initial content for compressed RTF ([MS-OXRTFCP] 2.1.3.1.1).
const rtfPrebuf = "{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par \\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx"

const (
	rtfCompressed   = 0x75465A4C // "LZFu"
	rtfUncompressed = 0x414C454D // "MELA"
	maxRTF          = 64 << 20
)

// decompressRTF expands a PidTagRtfCompressed value ([MS-OXRTFCP]).
func decompressRTF(b []byte) ([]byte, error) {
	if len(b) < 16 {
		return nil, errors.New("compressed rtf: short header")
	}
	compSize := binary.LittleEndian.Uint32(b[0:])
	rawSize := binary.LittleEndian.Uint32(b[4:])
	kind := binary.LittleEndian.Uint32(b[8:])
	data := b[16:]
	if n := int64(compSize) - 12; n >= 0 && n < int64(len(data)) {
		data = data[:n]
	}
	switch kind {
	case rtfUncompressed:
		if int64(rawSize) < int64(len(data)) {
			data = data[:rawSize]
		}
		return data, nil
	case rtfCompressed:
	default:
		return nil, fmt.Errorf("compressed rtf: unknown type %#x", kind)
	}
	if rawSize > maxRTF {
		return nil, fmt.Errorf("compressed rtf: raw size %d too large", rawSize)
	}
	var dict [4096]byte
	copy(dict[:], rtfPrebuf)
	w := len(rtfPrebuf)
	out := make([]byte, 0, rawSize)
	put := func(c byte) {
		out = append(out, c)
		dict[w] = c
		w = (w + 1) & 4095
	}
	for i := 0; i < len(data); {
		ctrl := data[i]
		i++
		for bit := 0; bit < 8 && i < len(data); bit++ {
			if ctrl&(1<<bit) == 0 {
				put(data[i])
				i++
				continue
			}
			if i+1 >= len(data) {
				return out, nil
			}
			ref := int(data[i])<<8 | int(data[i+1])
			i += 2
			off, n := ref>>4, ref&15+2
			if off == w {
				return out, nil // the end marker
			}
			for k := 0; k < n; k++ {
				put(dict[(off+k)&4095])
			}
			if len(out) > maxRTF {
				return nil, errors.New("compressed rtf: output too large")
			}
		}
	}
	return out, nil
}

// htmlFromRTF de-encapsulates HTML from RTF written with \fromhtml1 ([MS-OXRTFEX]): the text
// of \*\htmltag destinations and the text outside \htmlrtf blocks is the original HTML.
// ok is false when the RTF does not encapsulate HTML.
func htmlFromRTF(rtf []byte) (string, bool) {
	head := rtf
	if len(head) > 1024 {
		head = head[:1024]
	}
	if !strings.Contains(string(head), "\\fromhtml") {
		return "", false
	}
	p := rtfParser{src: rtf}
	p.run()
	return p.out.String(), true
}

type rtfGroup struct {
	skip    bool // an ignorable destination whose text is not HTML
	htmltag bool // inside {\*\htmltag…}
	htmlrtf bool // inside \htmlrtf … \htmlrtf0
	uc      int
}

type rtfParser struct {
	src   []byte
	i     int
	out   strings.Builder
	stack []rtfGroup
	cur   rtfGroup
	cp    encoding.Encoding
	bytes []byte // pending \'hh bytes, decoded together for multi-byte code pages
}

func (p *rtfParser) emitting() bool {
	return !p.cur.skip && (p.cur.htmltag || !p.cur.htmlrtf)
}

func (p *rtfParser) flushBytes() {
	if len(p.bytes) == 0 {
		return
	}
	b := p.bytes
	p.bytes = p.bytes[:0]
	if p.cp != nil {
		if s, err := p.cp.NewDecoder().Bytes(b); err == nil {
			p.out.Write(s)
			return
		}
	}
	p.out.WriteString(strings.ToValidUTF8(string(b), "\uFFFD"))
}

func (p *rtfParser) text(s string) {
	if p.emitting() {
		p.flushBytes()
		p.out.WriteString(s)
	}
}

func (p *rtfParser) run() {
	p.cur.uc = 1
	depth := 0
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch c {
		case '{':
			p.flushBytes()
			p.i++
			if depth < 4096 {
				p.stack = append(p.stack, p.cur)
			}
			depth++
		case '}':
			p.flushBytes()
			p.i++
			if depth > 0 {
				depth--
				if depth < 4096 && len(p.stack) > 0 {
					p.cur = p.stack[len(p.stack)-1]
					p.stack = p.stack[:len(p.stack)-1]
				}
			}
		case '\\':
			p.control(depth)
		case '\r', '\n':
			p.i++
		default:
			start := p.i
			for p.i < len(p.src) {
				c := p.src[p.i]
				if c == '{' || c == '}' || c == '\\' || c == '\r' || c == '\n' {
					break
				}
				p.i++
			}
			p.text(string(p.src[start:p.i]))
		}
	}
	p.flushBytes()
}

// control handles a control word or symbol at p.i.
func (p *rtfParser) control(depth int) {
	p.i++ // backslash
	if p.i >= len(p.src) {
		return
	}
	c := p.src[p.i]
	if !isASCIILetter(c) {
		p.i++
		switch c {
		case '\'':
			if p.i+2 <= len(p.src) {
				if v, err := strconv.ParseUint(string(p.src[p.i:p.i+2]), 16, 8); err == nil {
					if p.emitting() {
						p.bytes = append(p.bytes, byte(v))
					}
				}
				p.i += 2
			}
		case '*':
			// An ignorable destination: skipped unless it is one the HTML lives in.
			if !p.peekWord("htmltag") {
				p.cur.skip = true
			}
		case '\\', '{', '}':
			p.text(string(c))
		case '~':
			p.text("\u00a0")
		case '\r', '\n':
			p.text("\r\n")
		}
		return
	}
	start := p.i
	for p.i < len(p.src) && isASCIILetter(p.src[p.i]) {
		p.i++
	}
	word := string(p.src[start:p.i])
	numStart := p.i
	if p.i < len(p.src) && p.src[p.i] == '-' {
		p.i++
	}
	for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		p.i++
	}
	param, hasParam := 0, p.i > numStart
	if hasParam {
		param, _ = strconv.Atoi(string(p.src[numStart:p.i]))
	}
	if p.i < len(p.src) && p.src[p.i] == ' ' {
		p.i++
	}
	switch word {
	case "htmltag":
		p.cur.htmltag, p.cur.skip = true, false
	case "htmlrtf":
		p.cur.htmlrtf = !hasParam || param != 0
	case "fonttbl", "colortbl", "stylesheet", "info", "pict", "mhtmltag":
		p.cur.skip = true
	case "ansicpg":
		p.cp = codepageEncoding(uint32(param))
	case "par", "line":
		p.text("\r\n")
	case "tab":
		p.text("\t")
	case "uc":
		p.cur.uc = param
	case "u":
		if param < 0 {
			param += 65536
		}
		p.text(string(rune(param)))
		// Skip the fallback characters that follow a \u value.
		for k := 0; k < p.cur.uc && p.i < len(p.src); k++ {
			if p.src[p.i] == '\\' && p.i+3 < len(p.src) && p.src[p.i+1] == '\'' {
				p.i += 4
				continue
			}
			if p.src[p.i] == '{' || p.src[p.i] == '}' {
				break
			}
			p.i++
		}
	}
}

func (p *rtfParser) peekWord(w string) bool {
	j := p.i
	for j < len(p.src) && (p.src[j] == ' ' || p.src[j] == '\r' || p.src[j] == '\n') {
		j++
	}
	return j < len(p.src) && p.src[j] == '\\' && strings.HasPrefix(string(p.src[j+1:min(len(p.src), j+1+len(w))]), w)
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
