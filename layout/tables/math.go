package tables

import (
	"regexp"
	"strings"
	"unicode"
)

// MathFont reports a font that sets mathematics: TeX's math italic, symbols and extension
// fonts (CMMI, CMSY, CMEX and their bold, AMS, Euler, Latin Modern, tx/px and MathTime
// cuts) and the OpenType math fonts (Cambria Math, STIX Two Math, XITS Math, Latin Modern
// Math, TeX Gyre … Math). A subset prefix ("BKSOJG+") is ignored.
func MathFont(name string) bool {
	if _, after, ok := strings.Cut(name, "+"); ok {
		name = after
	}
	n := strings.ToLower(name)
	for _, p := range []string{"cmmi", "cmsy", "cmex", "cmbsy", "msam", "msbm", "eufm", "eufb", "eurm", "eurb", "eusm", "eusb", "euex",
		"rsfs", "lmmathitalic", "lmmathsymbols", "lmmathextension", "lmmi", "lmsy", "lmex", "txmi", "txsy", "txex", "pxmi", "pxsy",
		"pxex", "mtmi", "mtsy", "mtex", "stixsize", "stixintegrals", "stixvariants", "stixnonunicode", "esint"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return strings.Contains(n, "math")
}

// mathRune reports a character that is mathematics wherever it is set: Greek letters,
// mathematical operators and arrows, the mathematical alphanumerics.
func mathRune(r rune) bool {
	switch {
	case unicode.Is(unicode.Greek, r), unicode.Is(unicode.Sm, r):
		return true
	case r >= 0x2190 && r <= 0x22FF, r >= 0x27C0 && r <= 0x27FF, r >= 0x2900 && r <= 0x2AFF, r >= 0x1D400 && r <= 0x1D7FF:
		return true
	}
	return false
}

// MathRune reports a character that is mathematics wherever it is set (mathRune), for the
// layout's display formulas.
func MathRune(r rune) bool { return mathRune(r) }

// EqNumber reports an equation's number as set at the right margin: (3), (2.4), (12a).
func EqNumber(s string) bool { return eqNumber.MatchString(strings.TrimSpace(s)) }

// countMath adds a word's characters (spaces left out) to runes, and those of a math font or
// mathematical in themselves to math.
func countMath(w Word, runes, math int) (int, int) {
	n, m := 0, 0
	for _, r := range w.Text {
		if unicode.IsSpace(r) {
			continue
		}
		n++
		if w.Math || mathRune(r) {
			m++
		}
	}
	// A word mixes fonts ("v(s)": the letters in math italic, the parentheses roman):
	// its glyphs of a math font count when they are more than its math characters.
	return runes + n, math + min(n, max(m, w.mathGlyphs))
}

// eqNumber is an equation's number at the right margin: (3), (2.4), (12a), (A.1).
var eqNumber = regexp.MustCompile(`^\((?:[A-Z]\.?)?[0-9]{1,3}(?:\.[0-9]{1,3})?[a-z]?\)$`)

// equation reports whether a table found by alignment is a displayed equation or a block of
// them, which TeX sets as columns of short pieces: aligned at their "=" signs, a matrix,
// cases. A cell is mathematics when two fifths of its characters are (glyphs of a math font,
// MathFont, or math characters: Greek, operators, arrows). The table is an equation when
//   - a last column holds nothing but equation numbers ("(3)", "(2.4a)") and a third of the
//     other filled cells are mathematics, or
//   - half its filled cells are mathematics, as are three tenths of its characters, and most
//     cells are short (three words at most); or two thirds of its cells and half its
//     characters are mathematics (long aligned lines of a derivation), or
//   - its first and last columns hold only pieces of delimiters in a math font (a matrix's
//     brackets, a determinant's bars: one or two glyphs a cell) and nearly all its cells
//     are short,
//
// unless it has a header row of words (a table of formulas or symbols is labelled). A table's
// figures are digits in a text font and its labels words: a column of symbols ("α", "β")
// beside figures and a "±" in a cell do not make it one.
func equation(t Table) bool {
	for _, c := range t.Cells {
		if c.Header && c.runes > 0 && 10*c.math < 4*c.runes && Letters(c.Text) >= 3 {
			return false
		}
	}
	isNum := func(c Cell) bool { return eqNumber.MatchString(strings.TrimSpace(c.Text)) }
	numbered, nums := t.Cols >= 2, 0
	first, last := true, true // the first and last columns hold delimiter pieces only
	firstN, lastN := 0, 0
	filled, mathCells, short, runes, math := 0, 0, 0, 0, 0
	for _, c := range t.Cells {
		if c.runes == 0 {
			continue
		}
		piece := c.runes <= 2 && c.math == c.runes
		if c.Col == 0 {
			first = first && piece
			firstN++
		}
		if c.Col+c.ColSpan == t.Cols {
			last = last && piece
			lastN++
			if c.Col > 0 && isNum(c) {
				nums++
				continue
			}
			numbered = false
		}
		filled++
		runes += c.runes
		math += c.math
		if 10*c.math >= 4*c.runes {
			mathCells++
		}
		if len(strings.Fields(c.Text)) <= 3 {
			short++
		}
	}
	if filled == 0 {
		return false
	}
	switch {
	case numbered && nums > 0 && 3*mathCells >= filled:
		return true
	case 2*mathCells >= filled && 10*math >= 3*runes && 10*short >= 7*filled,
		3*mathCells >= 2*filled && 2*math >= runes:
		return true
	case t.Cols >= 3 && first && firstN >= 2 && last && lastN >= 2 && 10*short >= 9*filled:
		return true
	}
	return false
}

// Letters counts the letters of s (a cell or line with words, not figures or symbols).
func Letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}
