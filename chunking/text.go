package chunking

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// isPySpace reports whether Python's str.isspace holds for r. The reference measures and
// normalises text with Python's whitespace rules, which also count the ASCII information
// separators U+001C…U+001F that Go's unicode.IsSpace does not.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// collapse joins the whitespace-separated words of s with single spaces (Python's
// " ".join(s.split())).
func collapse(s string) string {
	// Fast path: already normalised text (the common case) is returned without allocating.
	clean := true
	prevSpace := true
	for _, r := range s {
		sp := isPySpace(r)
		if sp && (r != ' ' || prevSpace) {
			clean = false
			break
		}
		prevSpace = sp
	}
	if clean && !prevSpace || s == "" {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, isPySpace), " ")
}

func trimPy(s string) string      { return strings.TrimFunc(s, isPySpace) }
func trimLeftPy(s string) string  { return strings.TrimLeftFunc(s, isPySpace) }
func trimRightPy(s string) string { return strings.TrimRightFunc(s, isPySpace) }

// runeLen is Python's len() of a str: the number of code points.
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// lastRunes returns the last n code points of s (all of s when it is shorter).
func lastRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

// splitter is the reference's text splitter (§10.5): it cuts a string longer than max at the
// last newline, else the last space, found in the window that leaves room for the overlap, and
// falls back to a cut at max characters.
type splitter struct {
	max, overlap int
}

var splitSeparators = [...]rune{'\n', ' '}

// split returns the next piece of s (at most max code points) and the remainder, which starts
// with the overlap taken from the end of the piece.
func (sp splitter) split(s string) (string, string) {
	if runeLen(s) <= sp.max {
		return s, ""
	}
	rs := []rune(s)
	for _, sep := range splitSeparators {
		piece, rest, ok := sp.splitAt(rs, sep)
		if !ok || piece == "" || runeLen(rest) >= len(rs) {
			continue
		}
		return piece, rest
	}
	piece := trimRightPy(string(rs[:sp.max]))
	rest := trimLeftPy(string(rs[sp.max-sp.overlap:]))
	return piece, rest
}

// splitAt finds the last sep starting in positions overlap+1 … max: a split earlier than the
// overlap would not make progress.
func (sp splitter) splitAt(rs []rune, sep rune) (string, string, bool) {
	lo, hi := sp.overlap+1, sp.max
	if hi >= len(rs) {
		hi = len(rs) - 1
	}
	at := -1
	for i := hi; i >= lo; i-- {
		if rs[i] == sep {
			at = i
			break
		}
	}
	if at < 0 {
		return "", "", false
	}
	piece := trimRightPy(string(rs[:at]))
	rest := trimLeftPy(string(rs[at+1:]))
	if sp.overlap <= 1 {
		return piece, rest, true
	}
	// The overlap is the piece's last overlap-1 characters plus one space standing for the
	// separator, so the overlap region is exactly `overlap` characters long.
	tail := trimLeftPy(lastRunes(piece, sp.overlap-1))
	return piece, tail + " " + rest, true
}

// splitAll cuts s into pieces of at most max code points.
func (sp splitter) splitAll(s string) []string {
	var out []string
	piece, rest := sp.split(s)
	out = append(out, piece)
	for rest != "" {
		piece, rest = sp.split(rest)
		out = append(out, piece)
	}
	return out
}
