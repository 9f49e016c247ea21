package pdf

//go:generate go run gen_cmaps.go

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// Text for CID fonts without a ToUnicode map, in the order pdftotext and pdfminer try it:
// a legacy predefined encoding (Shift-JIS, EUC, GBK, Big5, UHC) whose codes are decoded as
// the encoding they name; the CID through the Adobe collection's UCS2 CMap when the font
// declares Adobe-Japan1, -GB1, -CNS1, -Korea1 or -KR; else the embedded font program's own
// Unicode cmap (TrueType) for the glyph the CID selects.

// collection is one Adobe character collection's CID → Unicode table.
type collection struct {
	runes []rune
	multi map[int]string // CIDs that map to several code points
}

var collections = sync.OnceValue(func() map[string]*collection {
	out := map[string]*collection{}
	zr, err := zlib.NewReader(bytes.NewReader(cid2unicodeData))
	if err != nil {
		return out
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return out
	}
	r := bytes.NewReader(raw)
	var names []string
	for range 5 {
		n, err := r.ReadByte()
		if err != nil {
			return out
		}
		name := make([]byte, n)
		io.ReadFull(r, name)
		var count uint32
		if binary.Read(r, binary.LittleEndian, &count) != nil || count > 1<<20 {
			return out
		}
		c := &collection{runes: make([]rune, count), multi: map[int]string{}}
		prev := int64(0)
		for i := range c.runes {
			d, err := binary.ReadVarint(r)
			if err != nil {
				return out
			}
			prev += d
			c.runes[i] = rune(prev)
		}
		out[string(name)] = c
		names = append(names, string(name))
	}
	var extras uint32
	if binary.Read(r, binary.LittleEndian, &extras) != nil {
		return out
	}
	for range extras {
		var coll, cid uint32
		binary.Read(r, binary.LittleEndian, &coll)
		binary.Read(r, binary.LittleEndian, &cid)
		n, _ := r.ReadByte()
		text := make([]byte, n)
		if _, err := io.ReadFull(r, text); err != nil || int(coll) >= len(names) {
			break
		}
		out[names[coll]].multi[int(cid)] = string(text)
	}
	return out
})

// collectionText maps a CID of an Adobe collection ("Japan1", "GB1", …) to text.
func collectionText(ordering string, cid int) (string, bool) {
	c := collections()[ordering]
	if c == nil || cid < 0 || cid >= len(c.runes) {
		return "", false
	}
	if s, ok := c.multi[cid]; ok {
		return s, true
	}
	if r := c.runes[cid]; r != 0 {
		return string(r), true
	}
	return "", false
}

// legacyEncoding is a predefined CMap whose codes are a national multi-byte encoding: its
// codespace splits strings into codes and the decoder turns a code into text.
type legacyEncoding struct {
	ordering string
	dec      encoding.Encoding
	cs       []csRange
	sevenBit bool // ISO-2022 row/cell bytes (the "H" CMaps): decoded as EUC after adding 0x80
}

func rng(lo, hi string) csRange {
	r := csRange{n: len(lo)}
	copy(r.lo[:], lo)
	copy(r.hi[:], hi)
	return r
}

var (
	csSJIS = []csRange{rng("\x00", "\x80"), rng("\xA0", "\xDF"), rng("\xFD", "\xFF"),
		rng("\x81\x40", "\x9F\xFC"), rng("\xE0\x40", "\xFC\xFC")}
	csEUCJP = []csRange{rng("\x00", "\x80"), rng("\x8E\xA0", "\x8E\xDF"), rng("\xA1\xA1", "\xFE\xFE"),
		rng("\x8F\xA1\xA1", "\x8F\xFE\xFE")}
	csGBK   = []csRange{rng("\x00", "\x80"), rng("\x81\x40", "\xFE\xFE")}
	csGB18K = []csRange{rng("\x00", "\x80"), rng("\x81\x30\x81\x30", "\xFE\x39\xFE\x39"), rng("\x81\x40", "\xFE\xFE")}
	csBig5  = []csRange{rng("\x00", "\x80"), rng("\x81\x40", "\xFE\xFE")}
	cs7Bit  = []csRange{rng("\x21\x21", "\x7E\x7E"), rng("\x00", "\xFF")}
)

// legacyEncodingFor returns the decoding of a predefined CMap name (without its -H/-V).
func legacyEncodingFor(name string) *legacyEncoding {
	base := strings.TrimSuffix(strings.TrimSuffix(name, "-H"), "-V")
	switch {
	case strings.Contains(base, "RKSJ"):
		return &legacyEncoding{ordering: "Japan1", dec: japanese.ShiftJIS, cs: csSJIS}
	case base == "EUC" || base == "78-EUC" || base == "Hojo-EUC":
		return &legacyEncoding{ordering: "Japan1", dec: japanese.EUCJP, cs: csEUCJP}
	case name == "H" || name == "V" || base == "78":
		return &legacyEncoding{ordering: "Japan1", dec: japanese.EUCJP, cs: cs7Bit, sevenBit: true}
	case base == "GBK2K":
		return &legacyEncoding{ordering: "GB1", dec: simplifiedchinese.GB18030, cs: csGB18K}
	case strings.HasPrefix(base, "GB") && strings.Contains(base, "EUC"):
		return &legacyEncoding{ordering: "GB1", dec: simplifiedchinese.GBK, cs: csGBK}
	case base == "GB" || base == "GBT":
		return &legacyEncoding{ordering: "GB1", dec: simplifiedchinese.GBK, cs: cs7Bit, sevenBit: true}
	case strings.Contains(base, "B5"):
		return &legacyEncoding{ordering: "CNS1", dec: traditionalchinese.Big5, cs: csBig5}
	case strings.HasPrefix(base, "KSC") && (strings.Contains(base, "EUC") || strings.Contains(base, "UHC")):
		return &legacyEncoding{ordering: "Korea1", dec: korean.EUCKR, cs: csGBK}
	case base == "KSC":
		return &legacyEncoding{ordering: "Korea1", dec: korean.EUCKR, cs: cs7Bit, sevenBit: true}
	}
	return nil
}

// text decodes one code of n bytes.
func (e *legacyEncoding) text(code uint32, n int) (string, bool) {
	b := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(code)
		code >>= 8
	}
	if e.sevenBit {
		if n != 2 {
			return "", false
		}
		b[0] |= 0x80
		b[1] |= 0x80
	}
	out, err := e.dec.NewDecoder().Bytes(b)
	if err != nil || len(out) == 0 || bytes.ContainsRune(out, utf8.RuneError) {
		return "", false
	}
	return string(out), true
}

// trueTypeUnicode inverts a TrueType font program's Unicode cmap subtable into glyph ID →
// text. It reads formats 4 and 12 of the Windows Unicode and Unicode-platform subtables and
// returns nil when the program has none (subset fonts often drop the table).
func trueTypeUnicode(font []byte) map[int]string {
	u16 := func(o int) int {
		if o < 0 || o+2 > len(font) {
			return -1
		}
		return int(binary.BigEndian.Uint16(font[o:]))
	}
	u32 := func(o int) int {
		if o < 0 || o+4 > len(font) {
			return -1
		}
		return int(binary.BigEndian.Uint32(font[o:]))
	}
	numTables := u16(4)
	cmapOff := -1
	for i := 0; i < numTables && i < 256; i++ {
		rec := 12 + 16*i
		if rec+16 > len(font) {
			break
		}
		if string(font[rec:rec+4]) == "cmap" {
			cmapOff = u32(rec + 8)
		}
	}
	if cmapOff < 0 || cmapOff >= len(font) {
		return nil
	}
	best, bestRank := -1, 0
	for i := 0; i < u16(cmapOff+2) && i < 64; i++ {
		rec := cmapOff + 4 + 8*i
		plat, enc, off := u16(rec), u16(rec+2), u32(rec+4)
		if off < 0 {
			break
		}
		rank := 0
		switch {
		case plat == 3 && enc == 10:
			rank = 4
		case plat == 0:
			rank = 3
		case plat == 3 && enc == 1:
			rank = 2
		}
		if rank > bestRank {
			best, bestRank = cmapOff+off, rank
		}
	}
	if best < 0 {
		return nil
	}
	out := map[int]string{}
	// budget bounds the code points visited: a hostile table of overlapping full-range
	// segments would otherwise cost billions of steps.
	budget := 1 << 18
	add := func(r rune, gid int) {
		budget--
		if gid <= 0 || r < 0x20 || r > utf8.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
			return
		}
		if _, ok := out[gid]; !ok {
			out[gid] = string(r)
		}
	}
	switch u16(best) {
	case 4:
		segX2 := u16(best + 6)
		if segX2 <= 0 {
			return nil
		}
		ends, starts := best+14, best+16+segX2
		deltas, ranges := starts+segX2, starts+2*segX2
		for s := 0; s < segX2/2; s++ {
			end, start := u16(ends+2*s), u16(starts+2*s)
			delta, ro := u16(deltas+2*s), u16(ranges+2*s)
			if end < 0 || start < 0 || delta < 0 || ro < 0 || start > end {
				continue
			}
			for c := start; c <= end && c != 0xFFFF && budget > 0; c++ {
				gid := 0
				if ro == 0 {
					gid = (c + delta) & 0xFFFF
				} else if g := u16(ranges + 2*s + ro + 2*(c-start)); g > 0 {
					gid = (g + delta) & 0xFFFF
				}
				add(rune(c), gid)
			}
		}
	case 12:
		n := u32(best + 12)
		for g := 0; g < n && g < 1<<16; g++ {
			rec := best + 16 + 12*g
			start, end, gid := u32(rec), u32(rec+4), u32(rec+8)
			if start < 0 || end < start || end-start > 1<<16 || gid < 0 {
				break
			}
			for c := start; c <= end && budget > 0; c++ {
				add(rune(c), gid+c-start)
			}
		}
	default:
		return nil
	}
	return out
}

// cffCharset reads a bare CFF font program (FontFile3) far enough to name its glyphs: for a
// CID-keyed font the registry-ordering of its ROS (CIDs then are the collection's), else
// each glyph ID's name through the charset, as text by the Adobe Glyph List.
func cffCharset(b []byte) (ordering string, gidText map[int]string) {
	if len(b) < 4 {
		return "", nil
	}
	// index returns the items of the INDEX at off and the offset after it.
	index := func(off int) ([][]byte, int, bool) {
		if off+2 > len(b) {
			return nil, 0, false
		}
		count := int(binary.BigEndian.Uint16(b[off:]))
		if count == 0 {
			return nil, off + 2, true
		}
		if off+3 > len(b) {
			return nil, 0, false
		}
		osz := int(b[off+2])
		if osz < 1 || osz > 4 {
			return nil, 0, false
		}
		offs := off + 3
		data := offs + (count+1)*osz - 1
		if data >= len(b) {
			return nil, 0, false
		}
		at := func(i int) int {
			v := 0
			for k := range osz {
				v = v<<8 | int(b[offs+i*osz+k])
			}
			return v
		}
		items := make([][]byte, count)
		for i := range count {
			s, e := data+at(i), data+at(i+1)
			if s > e || e > len(b) {
				return nil, 0, false
			}
			items[i] = b[s:e]
		}
		return items, data + at(count), true
	}
	_, next, ok := index(int(b[2]))
	if !ok {
		return "", nil
	}
	tops, next, ok := index(next)
	if !ok || len(tops) == 0 {
		return "", nil
	}
	strs, _, ok := index(next)
	if !ok {
		return "", nil
	}
	// The Top DICT: operands before each operator; we want charset (15), CharStrings (17) and
	// ROS (12 30).
	var ops []int
	charset, charStrings := 0, 0
	var ros []int
	d := tops[0]
	for i := 0; i < len(d); {
		c := d[i]
		switch {
		case c <= 21:
			op := int(c)
			i++
			if c == 12 && i < len(d) {
				op = 1200 + int(d[i])
				i++
			}
			switch op {
			case 15:
				if len(ops) > 0 {
					charset = ops[len(ops)-1]
				}
			case 17:
				if len(ops) > 0 {
					charStrings = ops[len(ops)-1]
				}
			case 1230:
				ros = append([]int(nil), ops...)
			}
			ops = ops[:0]
		case c == 28 && i+2 < len(d):
			ops = append(ops, int(int16(binary.BigEndian.Uint16(d[i+1:]))))
			i += 3
		case c == 29 && i+4 < len(d):
			ops = append(ops, int(int32(binary.BigEndian.Uint32(d[i+1:]))))
			i += 5
		case c == 30:
			i++
			for i < len(d) && d[i]&0x0F != 0x0F && d[i]>>4 != 0x0F {
				i++
			}
			i++
			ops = append(ops, 0)
		case c >= 32 && c <= 246:
			ops = append(ops, int(c)-139)
			i++
		case c >= 247 && c <= 250 && i+1 < len(d):
			ops = append(ops, (int(c)-247)*256+int(d[i+1])+108)
			i += 2
		case c >= 251 && c <= 254 && i+1 < len(d):
			ops = append(ops, -(int(c)-251)*256-int(d[i+1])-108)
			i += 2
		default:
			i++
		}
	}
	sid := func(s int) string {
		if s >= 0 && s < len(cffStandardStrings) {
			return cffStandardStrings[s]
		}
		if k := s - len(cffStandardStrings); k >= 0 && k < len(strs) {
			return string(strs[k])
		}
		return ""
	}
	if len(ros) >= 2 {
		if sid(ros[0]) == "Adobe" {
			if _, ok := collections()[sid(ros[1])]; ok {
				return sid(ros[1]), nil
			}
		}
		return "", nil // CID-keyed without a known collection: the charset holds CIDs
	}
	if charStrings <= 0 || charset <= 2 || charset >= len(b) {
		return "", nil // the predefined charsets name Latin glyphs the encoding already covers
	}
	glyphs, _, ok := index(charStrings)
	if !ok || len(glyphs) < 2 {
		return "", nil
	}
	n := len(glyphs)
	gidText = map[int]string{}
	add := func(gid, s int) {
		if t, ok := glyphToUnicode(sid(s)); ok {
			gidText[gid] = t
		}
	}
	p := charset + 1
	switch b[charset] {
	case 0:
		for gid := 1; gid < n && p+2 <= len(b); gid, p = gid+1, p+2 {
			add(gid, int(binary.BigEndian.Uint16(b[p:])))
		}
	case 1, 2:
		wide := b[charset] == 2
		for gid := 1; gid < n; {
			if p+3 > len(b) || (wide && p+4 > len(b)) {
				break
			}
			first := int(binary.BigEndian.Uint16(b[p:]))
			left := int(b[p+2])
			p += 3
			if wide {
				left = int(binary.BigEndian.Uint16(b[p-1:]))
				p++
			}
			for k := 0; k <= left && gid < n; k++ {
				add(gid, first+k)
				gid++
			}
		}
	}
	if len(gidText) == 0 {
		return "", nil
	}
	return "", gidText
}

// openTypeCFF returns the 'CFF ' table of an OpenType font program, or nil.
func openTypeCFF(font []byte) []byte {
	if len(font) < 12 || string(font[:4]) != "OTTO" {
		return nil
	}
	n := int(binary.BigEndian.Uint16(font[4:]))
	for i := 0; i < n && 12+16*i+16 <= len(font); i++ {
		rec := font[12+16*i:]
		if string(rec[:4]) == "CFF " {
			off, l := int(binary.BigEndian.Uint32(rec[8:])), int(binary.BigEndian.Uint32(rec[12:]))
			if off >= 0 && l >= 0 && off+l <= len(font) {
				return font[off : off+l]
			}
		}
	}
	return nil
}
