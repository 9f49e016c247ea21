package pdf

//go:generate go run gen_afm.go

import (
	"fmt"
	"strings"
	"sync"

	pdffont "github.com/pdfcpu/pdfcpu/pkg/font"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// font is what the interpreter needs from a PDF font: how to split strings into codes, the text
// of a code, its advance width and the vertical metrics pdfminer uses for glyph boxes.
type font struct {
	name     string
	subtype  string
	cidFont  bool
	vertical bool
	// encCMap splits Type0 strings (embedded CMap); nil means fixed 2-byte codes.
	encCMap *cmap
	// ucs2 marks predefined Uni*-UCS2/UTF16 CMaps, whose codes are themselves UTF-16.
	ucs2 bool
	// Without a ToUnicode map a CID font's text comes from, in order: legacy (a predefined
	// national-encoding CMap, decoded as that encoding), ordering (the CIDSystemInfo's Adobe
	// collection) or gidText (the embedded TrueType program's cmap, by glyph ID through
	// cidToGID, nil meaning identity); see cidtext.go.
	legacy   *legacyEncoding
	ordering string
	gidText  map[int]string
	cidToGID []byte
	// fallback reads ordering, gidText and cidToGID once, when first needed.
	fallback  func()
	toUnicode *cmap
	// encoding maps simple-font codes to glyph names.
	encoding [256]string
	// widths (simple fonts) in glyph units, indexed by code-firstChar.
	firstChar int
	widths    []float64
	hasWidths bool
	// cidW holds per-CID widths from /W; cidWRanges the c1 c2 w form; dw is /DW.
	cidW       map[int]float64
	cidWRanges []cidWidthRange
	dw         float64
	missing    float64
	// avgWidth and fixedPitch are the FontDescriptor's /AvgWidth and FixedPitch flag, and
	// family the standard-14 font whose metrics fit the base name, for substituteWidth.
	avgWidth   float64
	fixedPitch bool
	embedded   bool // the descriptor holds a font program (FontFile, FontFile2, FontFile3)
	family     string
	descent    float64 // glyph units, negative
	hscale     float64 // glyph units → text space (0.001, or FontMatrix for Type3)
	vscale     float64
	core14     string
	// dingbats: the glyph names are the ZapfDingbats font's (a1 … a191), read through the
	// ITC Zapf Dingbats glyph list rather than the Adobe Glyph List.
	dingbats bool
	// simple caches text and width per code of a simple font, where both depend on the
	// one-byte code alone; it is filled as codes are first shown.
	simple *[256]simpleGlyph
}

type simpleGlyph struct {
	text  string
	width float64
	ok    bool
}

// glyph returns the text and the width (glyph units scaled to text space) of one code.
func (f *font) glyph(dc decodedCode) (string, float64) {
	if f.cidFont || dc.n != 1 || dc.code > 255 {
		text := f.text(dc)
		return text, f.width(dc, text)
	}
	if f.simple == nil {
		f.simple = new([256]simpleGlyph)
	}
	g := &f.simple[dc.code]
	if !g.ok {
		g.text = f.text(dc)
		g.width, g.ok = f.width(dc, g.text), true
	}
	return g.text, g.width
}

type cidWidthRange struct {
	lo, hi int
	w      float64
}

var core14Names = map[string]string{
	"Courier": "Courier", "Courier-Bold": "Courier-Bold", "Courier-Oblique": "Courier-Oblique",
	"Courier-BoldOblique": "Courier-BoldOblique", "Helvetica": "Helvetica",
	"Helvetica-Bold": "Helvetica-Bold", "Helvetica-Oblique": "Helvetica-Oblique",
	"Helvetica-BoldOblique": "Helvetica-BoldOblique", "Times-Roman": "Times-Roman",
	"Times-Bold": "Times-Bold", "Times-Italic": "Times-Italic", "Times-BoldItalic": "Times-BoldItalic",
	"Symbol": "Symbol", "ZapfDingbats": "ZapfDingbats",
	// Common aliases of the standard 14 (PDF 1.7 Annex H / Acrobat behaviour).
	"Arial": "Helvetica", "Arial,Bold": "Helvetica-Bold", "Arial,Italic": "Helvetica-Oblique",
	"Arial,BoldItalic": "Helvetica-BoldOblique", "TimesNewRoman": "Times-Roman",
	"TimesNewRoman,Bold": "Times-Bold", "TimesNewRoman,Italic": "Times-Italic",
	"TimesNewRoman,BoldItalic": "Times-BoldItalic", "CourierNew": "Courier",
	"CourierNew,Bold": "Courier-Bold",
}

// core14Descent is the AFM Descender of each base family, used when a core font has no
// FontDescriptor (pdfminer takes it from the AFM metrics).
var core14Descent = map[string]float64{
	"Courier": -157, "Helvetica": -207, "Times": -217, "Symbol": 0, "ZapfDingbats": 0,
}

// loadFont returns the decoded font for a font resource, cached by object number.
func (d *Document) loadFont(o types.Object) (*font, error) {
	objNr := -1
	if ir, ok := o.(types.IndirectRef); ok {
		objNr = ir.ObjectNumber.Value()
		if f, ok := d.fonts[objNr]; ok {
			return f, nil
		}
	}
	fd := d.dict(o)
	if fd == nil {
		return nil, fmt.Errorf("font is not a dictionary")
	}
	f := d.buildFont(fd)
	if objNr >= 0 {
		d.fonts[objNr] = f
	}
	return f, nil
}

func (d *Document) buildFont(fd types.Dict) *font {
	f := &font{hscale: 0.001, vscale: 0.001, dw: 1000}
	f.subtype = d.name(fd["Subtype"])
	f.name = d.name(fd["BaseFont"])
	if tu, ok := fd.Find("ToUnicode"); ok {
		if data, _, err := d.streamData(tu); err == nil && len(data) > 0 {
			f.toUnicode = parseCMap(data)
		}
	}
	if f.subtype == "Type0" {
		d.buildType0(f, fd)
		return f
	}
	base := f.name
	if i := strings.IndexByte(base, '+'); i == 6 {
		base = base[i+1:]
	}
	f.core14 = core14Names[base]
	f.family = standardFamily(base)
	f.dingbats = f.core14 == "ZapfDingbats" || isDingbatsFont(base)
	desc := d.dict(fd["FontDescriptor"])
	if desc != nil {
		f.descent, _ = d.number(desc["Descent"])
		f.missing, _ = d.number(desc["MissingWidth"])
		f.avgWidth, _ = d.number(desc["AvgWidth"])
		flags, _ := d.number(desc["Flags"])
		f.fixedPitch = int(flags)&1 != 0
		f.embedded = hasFontProgram(desc)
	} else if f.core14 != "" {
		fam := f.core14
		if i := strings.IndexByte(fam, '-'); i > 0 {
			fam = fam[:i]
		}
		f.descent = core14Descent[fam]
	}
	if f.descent > 0 {
		f.descent = -f.descent
	}
	if f.subtype == "Type3" {
		if m := d.array(fd["FontMatrix"]); len(m) == 6 {
			a, _ := d.number(m[0])
			dd, _ := d.number(m[3])
			if a != 0 {
				f.hscale = a
			}
			if dd != 0 {
				f.vscale = dd
			}
		}
		if desc == nil {
			if bb, ok := d.rect(fd["FontBBox"]); ok {
				f.descent = bb[1]
			}
		}
	}
	if w := d.array(fd["Widths"]); w != nil {
		fc, _ := d.number(fd["FirstChar"])
		f.firstChar = int(fc)
		f.widths = make([]float64, len(w))
		for i := range w {
			f.widths[i], _ = d.number(w[i])
		}
		f.hasWidths = true
	}
	// Encoding: base table, then /Differences.
	switch {
	case f.core14 == "Symbol" || isSymbolFont(base):
		for c, n := range symbolEncoding {
			f.encoding[c] = n
		}
	case f.dingbats:
		// The font's built-in encoding, unless an embedded program or /Encoding says
		// otherwise below. Without it, codes read as StandardEncoding letters ("l" for ●).
		for c, n := range zapfDingbatsEncoding {
			f.encoding[c] = n
		}
	default:
		f.encoding = standardEncoding
		if f.subtype == "TrueType" {
			// Non-symbolic TrueType fonts without an encoding are read as WinAnsi by viewers.
			f.encoding = winAnsiEncoding
		}
	}
	encObj, hasEnc := fd.Find("Encoding")
	if !hasEnc && desc != nil {
		// Like pdfminer, a Type1 font without /Encoding uses the built-in encoding of its
		// embedded program (the "dup <code> /<name> put" lines of the clear-text header).
		if ff, ok := desc.Find("FontFile"); ok {
			if data, sd, err := d.streamData(ff); err == nil {
				if n, ok := d.number(sd["Length1"]); ok && int(n) > 0 && int(n) < len(data) {
					data = data[:int(n)]
				}
				for code, name := range type1Encoding(data) {
					f.encoding[code] = name
				}
			}
		}
	}
	if hasEnc {
		switch e := d.resolve(encObj).(type) {
		case types.Name:
			if t, ok := namedEncoding(string(e)); ok {
				f.encoding = t
			}
		case types.Dict:
			if t, ok := namedEncoding(d.name(e["BaseEncoding"])); ok {
				f.encoding = t
			}
			code := 0
			for _, it := range d.array(e["Differences"]) {
				switch v := d.resolve(it).(type) {
				case types.Integer:
					code = int(v)
				case types.Float:
					code = int(v)
				case types.Name:
					// Like pdfminer, a name without a Unicode mapping leaves the base
					// encoding's entry in place.
					if _, ok := f.glyphText(string(v)); ok && code >= 0 && code < 256 {
						f.encoding[code] = string(v)
					}
					code++
				}
			}
		}
	}
	return f
}

// isSymbolFont reports whether a font's base name (subset prefix removed) is a cut of the
// Symbol font under another name: Monotype's SymbolMT that Word embeds or names, with a style
// suffix ("Symbol,Bold", "Symbol-Italic"). Its codes are the Symbol font's (0xB7 the bullet
// Word's lists use, "a" alpha), not WinAnsi's (0xB7 a middle dot).
func isSymbolFont(base string) bool {
	rest, ok := strings.CutPrefix(base, "Symbol")
	return ok && (rest == "MT" || strings.HasPrefix(rest, ",") || strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "MT,") || strings.HasPrefix(rest, "MT-"))
}

// isDingbatsFont reports whether a font's base name (subset prefix removed) is a version of
// ZapfDingbats that is not spelled as the standard 14 name: ITC's and URW's (D050000L) cuts.
func isDingbatsFont(base string) bool {
	return strings.Contains(strings.ToLower(base), "dingbats") || strings.HasPrefix(base, "D050000L")
}

// glyphText is the Unicode text of a glyph name in this font: a dingbats font's a-names
// through the ITC Zapf Dingbats list, everything else through the Adobe Glyph List.
func (f *font) glyphText(name string) (string, bool) {
	if f.dingbats {
		base, _, _ := strings.Cut(name, ".")
		if s, ok := zapfDingbatsGlyphs[base]; ok {
			return s, true
		}
	}
	return glyphToUnicode(name)
}

func namedEncoding(n string) ([256]string, bool) {
	switch n {
	case "WinAnsiEncoding":
		return winAnsiEncoding, true
	case "MacRomanEncoding":
		return macRomanEncoding, true
	case "StandardEncoding":
		return standardEncoding, true
	case "PDFDocEncoding":
		return pdfDocEncoding, true
	case "MacExpertEncoding":
		return [256]string{}, false
	}
	return [256]string{}, false
}

func (d *Document) buildType0(f *font, fd types.Dict) {
	f.cidFont = true
	base := f.name
	if i := strings.IndexByte(base, '+'); i == 6 {
		base = base[i+1:]
	}
	f.family = standardFamily(base)
	encObj := fd["Encoding"]
	switch e := d.resolve(encObj).(type) {
	case types.Name:
		name := string(e)
		f.vertical = strings.HasSuffix(name, "-V")
		if strings.HasPrefix(name, "Uni") && (strings.Contains(name, "UCS2") || strings.Contains(name, "UTF16")) {
			f.ucs2 = true
		} else if le := legacyEncodingFor(name); le != nil {
			f.legacy = le
			f.encCMap = &cmap{codespace: le.cs}
		}
	case types.StreamDict:
		if data, _, err := d.streamData(encObj); err == nil {
			f.encCMap = parseCMap(data)
		}
		if wm, ok := d.number(e.Dict["WMode"]); ok && wm == 1 {
			f.vertical = true
		}
	}
	desc := d.array(fd["DescendantFonts"])
	if len(desc) == 0 {
		return
	}
	cf := d.dict(desc[0])
	if cf == nil {
		return
	}
	fdesc := d.dict(cf["FontDescriptor"])
	if fdesc != nil {
		f.embedded = hasFontProgram(fdesc)
		f.avgWidth, _ = d.number(fdesc["AvgWidth"])
		flags, _ := d.number(fdesc["Flags"])
		f.fixedPitch = int(flags)&1 != 0
		f.descent, _ = d.number(fdesc["Descent"])
		if f.descent > 0 {
			f.descent = -f.descent
		}
	}
	if !f.ucs2 && f.legacy == nil {
		// Read when a code is first missing from the ToUnicode map (or at once without one):
		// most fonts with a map never need it, and the embedded program is parsed only then.
		f.fallback = func() {
			if si := d.dict(cf["CIDSystemInfo"]); si != nil {
				if reg, _ := d.stringBytes(si["Registry"]); string(reg) == "Adobe" {
					ord, _ := d.stringBytes(si["Ordering"])
					if _, ok := collections()[string(ord)]; ok {
						f.ordering = string(ord)
					}
				}
			}
			if f.ordering == "" && fdesc != nil {
				d.embeddedCIDText(f, cf, fdesc)
			}
		}
	}
	if dw, ok := d.number(cf["DW"]); ok {
		f.dw = dw
	}
	w := d.array(cf["W"])
	f.cidW = map[int]float64{}
	for i := 0; i < len(w); {
		c1, ok := d.number(w[i])
		if !ok {
			i++
			continue
		}
		if i+1 < len(w) {
			if arr := d.array(w[i+1]); arr != nil {
				for k := range arr {
					if len(f.cidW) > maxCMapEntries {
						break
					}
					v, _ := d.number(arr[k])
					f.cidW[int(c1)+k] = v
				}
				i += 2
				continue
			}
		}
		if i+2 < len(w) {
			c2, ok1 := d.number(w[i+1])
			v, ok2 := d.number(w[i+2])
			if ok1 && ok2 {
				f.cidWRanges = append(f.cidWRanges, cidWidthRange{int(c1), int(c2), v})
			}
			i += 3
			continue
		}
		break
	}
}

// decodeCode is one code of a shown string: its bytes' value, byte length, CID and text.
type decodedCode struct {
	code uint32
	n    int
	cid  int
}

// codes splits a shown string into character codes.
func (f *font) codes(s []byte, out []decodedCode) []decodedCode {
	out = out[:0]
	for len(s) > 0 {
		var dc decodedCode
		switch {
		case !f.cidFont:
			dc = decodedCode{code: uint32(s[0]), n: 1, cid: int(s[0])}
		case f.encCMap != nil:
			dc.code, dc.n = f.encCMap.nextCode(s, 2)
			if c, ok := f.encCMap.lookupCID(dc.code, dc.n); ok {
				dc.cid = c
			} else {
				dc.cid = int(dc.code)
			}
		default:
			n := 2
			if f.ucs2 && len(s) >= 4 && s[0] >= 0xD8 && s[0] <= 0xDB {
				n = 4
			}
			dc.code, dc.n = bytesToCode(s[:min(n, len(s))]), min(n, len(s))
			dc.cid = int(dc.code)
		}
		if dc.n <= 0 {
			dc.n = 1
		}
		out = append(out, dc)
		s = s[dc.n:]
	}
	return out
}

// text returns the Unicode text of a code, or pdfminer's "(cid:N)" when none is known.
func (f *font) text(dc decodedCode) string {
	if s, ok := f.toUnicode.lookupUnicode(dc.code, dc.n); ok {
		return s
	}
	if f.cidFont {
		if f.fallback != nil {
			// Also for a code a ToUnicode map lacks, where pdfminer prints "(cid:N)" and
			// pdftotext looks further, as here.
			load := f.fallback
			f.fallback = nil
			load()
		}
		switch {
		case f.ucs2:
			if dc.n == 4 {
				return utf16BE([]byte{byte(dc.code >> 24), byte(dc.code >> 16), byte(dc.code >> 8), byte(dc.code)})
			}
			return utf16BE([]byte{byte(dc.code >> 8), byte(dc.code)})
		case f.legacy != nil:
			if s, ok := f.legacy.text(dc.code, dc.n); ok {
				return s
			}
		case f.ordering != "":
			if s, ok := collectionText(f.ordering, dc.cid); ok {
				return s
			}
		case f.gidText != nil:
			gid := dc.cid
			if f.cidToGID != nil {
				if 2*gid+1 >= len(f.cidToGID) {
					break
				}
				gid = int(f.cidToGID[2*gid])<<8 | int(f.cidToGID[2*gid+1])
			}
			if s, ok := f.gidText[gid]; ok {
				return s
			}
		}
		return fmt.Sprintf("(cid:%d)", dc.cid)
	}
	if dc.code < 256 {
		if name := f.encoding[dc.code]; name != "" {
			if s, ok := f.glyphText(name); ok {
				return s
			}
		}
	}
	return fmt.Sprintf("(cid:%d)", dc.cid)
}

// width returns the advance of a code in text space units per unit font size.
func (f *font) width(dc decodedCode, text string) float64 {
	if f.cidFont {
		if w, ok := f.cidW[dc.cid]; ok {
			return w * f.hscale
		}
		for _, r := range f.cidWRanges {
			if dc.cid >= r.lo && dc.cid <= r.hi {
				return r.w * f.hscale
			}
		}
		return f.dw * f.hscale
	}
	if f.hasWidths {
		i := int(dc.code) - f.firstChar
		if i >= 0 && i < len(f.widths) {
			return f.widths[i] * f.hscale
		}
		return f.missing * f.hscale
	}
	if f.core14 != "" {
		if w, ok := standardWidth(f.core14, dc, text); ok {
			return w * f.hscale
		}
	}
	return f.missing * f.hscale
}

// standardWidth is the AFM width (glyph units) of a code of a standard-14 font, found by its
// text through WinAnsi for the Latin fonts.
func standardWidth(std string, dc decodedCode, text string) (float64, bool) {
	code := dc.code
	if std != "Symbol" && std != "ZapfDingbats" {
		c, ok := winAnsiCode(text)
		if !ok && dc.code > 255 {
			return 0, false
		}
		if ok {
			code = uint32(c)
		}
	}
	w, err := pdffont.CharWidth(std, rune(code))
	if err != nil {
		return 0, false
	}
	return float64(w), true
}

// defaultAdvance is the advance, in ems, substituteWidth gives when nothing better is known:
// an average Latin glyph.
const defaultAdvance = 0.5

// substituteWidth is the advance (text space per unit font size) the layout gives a code the
// font declares no width for — a simple font without /Widths (a non-embedded CMMI10 or
// Calibri; embedded too, when viewers take the program's widths), and in a font that is not
// embedded /Widths all zero or too short for the code, and no /MissingWidth; a CID font whose
// /DW is 0 and /W has no width — where pdfminer's width is 0 and its lines of zero-width glyphs
// come out empty. In order: the descriptor's /MissingWidth, then its /AvgWidth; the standard-14 metrics of a font
// whose name is a standard family's (Courier for a fixed-pitch font); half an em. A code the
// font does give a width of 0 (a combining mark, while other codes have widths) keeps it: 0 is
// returned. Type 3 fonts, whose widths must be given, get none either.
func (f *font) substituteWidth(dc decodedCode, text string) float64 {
	if f.subtype == "Type3" || !f.widthless(dc) {
		return 0
	}
	if f.missing > 0 {
		return f.missing * f.hscale
	}
	if f.avgWidth > 0 {
		return f.avgWidth * f.hscale
	}
	std := f.family
	if std == "" && f.fixedPitch {
		std = "Courier"
	}
	if std != "" {
		if w, ok := standardWidth(std, dc, text); ok && w > 0 {
			return w * f.hscale
		}
	}
	return defaultAdvance
}

// widthless reports whether the font declares no width for a code (see substituteWidth).
func (f *font) widthless(dc decodedCode) bool {
	if f.cidFont {
		if _, ok := f.cidW[dc.cid]; ok {
			return !f.anyCIDWidth() && !f.embedded
		}
		for _, r := range f.cidWRanges {
			if dc.cid >= r.lo && dc.cid <= r.hi {
				return !f.anyCIDWidth() && !f.embedded
			}
		}
		return f.dw == 0 && !f.embedded
	}
	if !f.hasWidths {
		return true
	}
	// Widths an embedded font's dictionary gives, zero or missing, are the ones viewers draw it
	// with (a code past the table takes /MissingWidth, 0 by default): zero-advance diagram
	// glyphs such as XY-pic's arrow tips, codes outside a subset. They are kept.
	if f.embedded {
		return false
	}
	i := int(dc.code) - f.firstChar
	for _, w := range f.widths {
		if w != 0 {
			return i < 0 || i >= len(f.widths)
		}
	}
	return true
}

// hasFontProgram reports whether a font descriptor embeds the font's program.
func hasFontProgram(desc types.Dict) bool {
	for _, k := range []string{"FontFile", "FontFile2", "FontFile3"} {
		if _, ok := desc.Find(k); ok {
			return true
		}
	}
	return false
}

// anyCIDWidth reports whether a CID font's /W gives any glyph a width.
func (f *font) anyCIDWidth() bool {
	for _, w := range f.cidW {
		if w != 0 {
			return true
		}
	}
	for _, r := range f.cidWRanges {
		if r.w != 0 {
			return true
		}
	}
	return false
}

// standardFamily is the standard-14 font whose metrics stand in for a font of this base name
// (subset prefix removed) that declares no widths: the name itself or an alias of one, else a
// Helvetica, Arial, Times or Courier cut by its family name and weight ("TimesNewRomanPS-BoldMT").
func standardFamily(base string) string {
	if s := core14Names[base]; s != "" {
		return s
	}
	var fam string
	switch lower := strings.ToLower(base); {
	case strings.HasPrefix(lower, "helvetica"), strings.HasPrefix(lower, "arial"):
		fam = "Helvetica"
	case strings.HasPrefix(lower, "times"):
		fam = "Times"
	case strings.HasPrefix(lower, "courier"):
		fam = "Courier"
	default:
		return ""
	}
	if strings.Contains(strings.ToLower(base), "bold") {
		return fam + "-Bold"
	}
	if fam == "Times" {
		return "Times-Roman"
	}
	return fam
}

var winAnsiReverse = func() map[string]byte {
	m := map[string]byte{}
	for c, n := range winAnsiEncoding {
		if n == "" {
			continue
		}
		if s, ok := glyphToUnicode(n); ok {
			if _, dup := m[s]; !dup {
				m[s] = byte(c)
			}
		}
	}
	return m
}

var winAnsiRev = sync.OnceValue(winAnsiReverse)

func winAnsiCode(text string) (byte, bool) {
	c, ok := winAnsiRev()[text]
	return c, ok
}

// type1Encoding reads the built-in encoding of a Type1 font program's clear-text part.
func type1Encoding(data []byte) map[int]string {
	out := map[int]string{}
	l := &lexer{b: data}
	var prev [3]any
	for n := 0; n < 1<<20; n++ {
		tok, ok := l.next()
		if !ok {
			break
		}
		if op, isOp := tok.(pop); isOp && op == "put" {
			if d, ok := prev[0].(pop); ok && d == "dup" {
				code, ok1 := prev[1].(float64)
				name, ok2 := prev[2].(pname)
				if ok1 && ok2 && code >= 0 && code < 256 {
					out[int(code)] = string(name)
				}
			}
		}
		if op, isOp := tok.(pop); isOp && op == "eexec" {
			break
		}
		prev[0], prev[1], prev[2] = prev[1], prev[2], tok
	}
	return out
}

// embeddedCIDText reads the Unicode cmap of a CIDFontType2's embedded TrueType program and its
// CIDToGIDMap, or the charset of a CIDFontType0's CFF program, for fonts that declare no usable
// collection (Adobe-Identity).
func (d *Document) embeddedCIDText(f *font, cf, fdesc types.Dict) {
	ff, ok := fdesc.Find("FontFile2")
	if !ok {
		// A CFF program (CIDFontType0C or OpenType): a CID-keyed one may name its
		// collection; a name-keyed one names its glyphs, and CIDs are glyph IDs.
		if ff3, ok := fdesc.Find("FontFile3"); ok {
			if data, _, err := d.streamData(ff3); len(data) > 0 && (err == nil || len(data) > 4) {
				if f.gidText = trueTypeUnicode(data); f.gidText != nil {
					return // an OpenType program's own Unicode cmap
				}
				if otf := openTypeCFF(data); otf != nil {
					data = otf
				}
				f.ordering, f.gidText = cffCharset(data)
			}
		}
		return
	}
	data, _, err := d.streamData(ff)
	if err != nil && len(data) == 0 {
		return
	}
	f.gidText = trueTypeUnicode(data)
	if f.gidText == nil {
		return
	}
	if m, ok := cf.Find("CIDToGIDMap"); ok && d.name(m) != "Identity" {
		if b, _, err := d.streamData(m); err == nil {
			f.cidToGID = b
		}
	}
}
