package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// forEachWord calls fn with the word tokens of s, approximating the reference's word
// tokenizer: white-space separated chunks lose leading and trailing punctuation (each
// punctuation mark is a token of its own), hyphenated words split at the hyphens, and clitics
// ("'s", "n't", "'re", …) become tokens of their own.
func forEachWord(s string, fn func(string)) {
	for len(s) > 0 {
		i := 0
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isPySpace(r) {
				break
			}
			i += n
		}
		s = s[i:]
		j := 0
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if isPySpace(r) {
				break
			}
			j += n
		}
		if j > 0 {
			splitChunk(s[:j], fn)
		}
		s = s[j:]
	}
}

func isEdgePunct(r rune) bool {
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// splitChunk tokenizes one white-space free chunk.
func splitChunk(c string, fn func(string)) {
	// Leading punctuation, one token per mark.
	for c != "" {
		r, n := utf8.DecodeRuneInString(c)
		if !isEdgePunct(r) {
			break
		}
		fn(c[:n])
		c = c[n:]
	}
	// Trailing punctuation, emitted after the core.
	end := len(c)
	for end > 0 {
		r, n := utf8.DecodeLastRuneInString(c[:end])
		if !isEdgePunct(r) {
			break
		}
		// Keep the period of abbreviations and initials ("U.S.", "J.") on the word.
		if r == '.' && end == len(c) && strings.Contains(c[:end-n], ".") {
			break
		}
		end -= n
	}
	core, tail := c[:end], c[end:]
	if core != "" {
		splitCore(core, fn)
	}
	for tail != "" {
		_, n := utf8.DecodeRuneInString(tail)
		fn(tail[:n])
		tail = tail[n:]
	}
}

// clitics split off the end of a word, longest first.
var clitics = []string{"n't", "n’t", "'s", "’s", "'re", "’re", "'ve", "’ve", "'ll", "’ll", "'m", "’m", "'d", "’d"}

func splitCore(w string, fn func(string)) {
	// Hyphens between letters separate words ("Neo-Aramaic" → Neo - Aramaic).
	for {
		h := strings.IndexByte(w, '-')
		if h <= 0 || h == len(w)-1 {
			break
		}
		splitClitic(w[:h], fn)
		fn("-")
		w = w[h+1:]
	}
	splitClitic(w, fn)
}

func splitClitic(w string, fn func(string)) {
	lw := w
	// Every clitic holds an apostrophe among a word's last six bytes; most words have none.
	tail := w[max(0, len(w)-6):]
	if strings.IndexByte(tail, '\'') < 0 && !strings.Contains(tail, "’") {
		if w != "" {
			fn(w)
		}
		return
	}
	for _, c := range clitics {
		if len(lw) > len(c) && strings.EqualFold(lw[len(lw)-len(c):], c) {
			fn(w[:len(w)-len(c)])
			fn(w[len(w)-len(c):])
			return
		}
	}
	if w != "" {
		fn(w)
	}
}
