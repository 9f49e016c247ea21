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
	if r < 0x80 {
		return r == ' ' || (r >= '\t' && r <= '\r') || (r >= 0x1c && r <= 0x1f)
	}
	return unicode.IsSpace(r)
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
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	for i, r := range s {
		if isPySpace(r) {
			pending = b.Len() > 0
			continue
		}
		if pending {
			b.WriteByte(' ')
			pending = false
		}
		// Copy the source bytes, not r, so invalid UTF-8 passes through unchanged.
		_, size := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+size])
	}
	return b.String()
}

func trimPy(s string) string { return strings.TrimFunc(s, isPySpace) }

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
// falls back to a cut at max characters. first, when set, is the size of the first piece.
type splitter struct {
	max, overlap int
	first        int
	// most, when positive, stops splitAll after most+1 pieces: the caller, which counts its
	// chunks, then fails instead of holding a piece per character of a huge text.
	most int
}

func (sp splitter) limit(k int) int {
	if k == 0 && sp.first > 0 {
		return sp.first
	}
	return sp.max
}

// splitAll cuts s into pieces of at most max code points. The remainder is never copied: it
// is the short overlap prefix plus a slice of the original, so long texts split in linear time.
func (sp splitter) splitAll(s string) []string {
	var out []string
	r := rstr{body: []rune(s)}
	for k := 0; ; k++ {
		limit := sp.limit(k)
		if r.len() <= limit {
			return append(out, r.String())
		}
		var piece string
		piece, r = sp.next(r, limit)
		out = append(out, piece)
		if r.len() == 0 || sp.most > 0 && len(out) > sp.most {
			return out
		}
	}
}

var splitSeparators = [...]rune{'\n', ' '}

// next splits r, which is longer than max.
func (sp splitter) next(r rstr, limit int) (string, rstr) {
	n := r.len()
	for _, sep := range splitSeparators {
		// The separator must start in positions overlap+1 … max: a split earlier than the
		// overlap would not make progress.
		at := -1
		for i := min(limit, n-1); i >= sp.overlap+1; i-- {
			if r.at(i) == sep {
				at = i
				break
			}
		}
		if at < 0 {
			continue
		}
		piece := trimRightRunes(r.prefix(at))
		rest := r.from(at + 1).trimLeft()
		var head []rune
		if sp.overlap > 1 {
			// The overlap is the piece's last overlap-1 characters plus one space standing
			// for the separator, so the overlap region is exactly `overlap` characters long.
			tail := piece[max(0, len(piece)-(sp.overlap-1)):]
			tail = trimLeftRunes(tail)
			head = append(append(make([]rune, 0, len(tail)+1), tail...), ' ')
		}
		if len(piece) == 0 || len(head)+rest.len() >= n {
			continue
		}
		return string(piece), rest.withHead(head)
	}
	piece := trimRightRunes(r.prefix(limit))
	return string(piece), r.from(limit - sp.overlap).trimLeft()
}

// rstr is a string held as a short head followed by a long body, both as code points.
type rstr struct{ head, body []rune }

func (r rstr) len() int { return len(r.head) + len(r.body) }

func (r rstr) at(i int) rune {
	if i < len(r.head) {
		return r.head[i]
	}
	return r.body[i-len(r.head)]
}

// prefix copies the first p code points.
func (r rstr) prefix(p int) []rune {
	out := make([]rune, 0, p)
	if p <= len(r.head) {
		return append(out, r.head[:p]...)
	}
	out = append(out, r.head...)
	return append(out, r.body[:p-len(r.head)]...)
}

func (r rstr) from(p int) rstr {
	if p < len(r.head) {
		return rstr{head: r.head[p:], body: r.body}
	}
	return rstr{body: r.body[p-len(r.head):]}
}

func (r rstr) trimLeft() rstr {
	for len(r.head) > 0 && isPySpace(r.head[0]) {
		r.head = r.head[1:]
	}
	if len(r.head) == 0 {
		for len(r.body) > 0 && isPySpace(r.body[0]) {
			r.body = r.body[1:]
		}
	}
	return r
}

// withHead puts head in front of r, which must have no head of its own beyond what is kept.
func (r rstr) withHead(head []rune) rstr {
	if len(head) == 0 {
		return r
	}
	if len(r.head) > 0 {
		return rstr{head: append(append([]rune(nil), head...), r.head...), body: r.body}
	}
	return rstr{head: head, body: r.body}
}

func (r rstr) String() string { return string(r.head) + string(r.body) }

func trimRightRunes(rs []rune) []rune {
	for len(rs) > 0 && isPySpace(rs[len(rs)-1]) {
		rs = rs[:len(rs)-1]
	}
	return rs
}

func trimLeftRunes(rs []rune) []rune {
	for len(rs) > 0 && isPySpace(rs[0]) {
		rs = rs[1:]
	}
	return rs
}
