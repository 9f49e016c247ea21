package docx

import (
	"strconv"
	"strings"
	"unicode"
)

// Word writes a character inserted from a symbol font as w:sym: the font and a code, mostly in
// the private-use range F000–F0FF that maps the font's byte c to U+F000+c. python-docx reads
// no w:sym, so a μ, °, ± or ticked box was lost from the text. symbolRune gives the Unicode
// character for the Symbol font (its standard encoding) and for the check marks and boxes of
// Wingdings (Unicode's mapping of the font); a code outside the private-use range is the
// character itself. Other fonts' private-use codes have no agreed meaning and stay out.
func symbolRune(font, code string) (rune, bool) {
	v, err := strconv.ParseUint(code, 16, 32)
	if err != nil || v == 0 {
		return 0, false
	}
	r := rune(v)
	if r < 0xf000 || r > 0xf0ff {
		if r > unicode.MaxRune || unicode.In(r, unicode.Co, unicode.Cc, unicode.Cs) {
			return 0, false
		}
		return r, true
	}
	c := byte(r - 0xf000)
	switch strings.ToLower(strings.TrimSpace(font)) {
	case "symbol":
		if u, ok := symbolFont[c]; ok {
			return u, true
		}
		if c >= 0x20 && c < 0x7f {
			return rune(c), true // digits and punctuation the font draws as ASCII
		}
	case "wingdings":
		if u, ok := wingdings[c]; ok {
			return u, true
		}
	}
	return 0, false
}

// symbolFont is the Symbol font's encoding where it differs from ASCII (Greek letters, maths,
// arrows).
var symbolFont = map[byte]rune{
	0x22: '∀', 0x24: '∃', 0x27: '∋', 0x2a: '∗', 0x2d: '−', 0x40: '≅', 0x5c: '∴', 0x5e: '⊥', 0x60: '‾', 0x7e: '∼',
	'A': 'Α', 'B': 'Β', 'C': 'Χ', 'D': 'Δ', 'E': 'Ε', 'F': 'Φ', 'G': 'Γ', 'H': 'Η', 'I': 'Ι', 'J': 'ϑ',
	'K': 'Κ', 'L': 'Λ', 'M': 'Μ', 'N': 'Ν', 'O': 'Ο', 'P': 'Π', 'Q': 'Θ', 'R': 'Ρ', 'S': 'Σ', 'T': 'Τ',
	'U': 'Υ', 'V': 'ς', 'W': 'Ω', 'X': 'Ξ', 'Y': 'Ψ', 'Z': 'Ζ',
	'a': 'α', 'b': 'β', 'c': 'χ', 'd': 'δ', 'e': 'ε', 'f': 'φ', 'g': 'γ', 'h': 'η', 'i': 'ι', 'j': 'ϕ',
	'k': 'κ', 'l': 'λ', 'm': 'μ', 'n': 'ν', 'o': 'ο', 'p': 'π', 'q': 'θ', 'r': 'ρ', 's': 'σ', 't': 'τ',
	'u': 'υ', 'v': 'ϖ', 'w': 'ω', 'x': 'ξ', 'y': 'ψ', 'z': 'ζ',
	0xa1: 'ϒ', 0xa2: '′', 0xa3: '≤', 0xa4: '⁄', 0xa5: '∞', 0xa6: 'ƒ', 0xa7: '♣', 0xa8: '♦', 0xa9: '♥',
	0xaa: '♠', 0xab: '↔', 0xac: '←', 0xad: '↑', 0xae: '→', 0xaf: '↓', 0xb0: '°', 0xb1: '±', 0xb2: '″',
	0xb3: '≥', 0xb4: '×', 0xb5: '∝', 0xb6: '∂', 0xb7: '•', 0xb8: '÷', 0xb9: '≠', 0xba: '≡', 0xbb: '≈',
	0xbc: '…', 0xc0: 'ℵ', 0xc1: 'ℑ', 0xc2: 'ℜ', 0xc3: '℘', 0xc4: '⊗', 0xc5: '⊕', 0xc6: '∅', 0xc7: '∩',
	0xc8: '∪', 0xc9: '⊃', 0xca: '⊇', 0xcb: '⊄', 0xcc: '⊂', 0xcd: '⊆', 0xce: '∈', 0xcf: '∉', 0xd0: '∠',
	0xd1: '∇', 0xd2: '®', 0xd3: '©', 0xd4: '™', 0xd5: '∏', 0xd6: '√', 0xd7: '⋅', 0xd8: '¬', 0xd9: '∧',
	0xda: '∨', 0xdb: '⇔', 0xdc: '⇐', 0xdd: '⇑', 0xde: '⇒', 0xdf: '⇓', 0xe0: '◊', 0xe1: '〈', 0xe2: '®',
	0xe3: '©', 0xe4: '™', 0xe5: '∑', 0xf1: '〉', 0xf2: '∫',
}

// wingdings are the Wingdings check marks and boxes forms use.
var wingdings = map[byte]rune{0xa8: '◻', 0xfb: '✘', 0xfc: '✔', 0xfd: '☒', 0xfe: '☑', 0x6f: '□', 0x78: '⌧', 0x6e: '■'}
