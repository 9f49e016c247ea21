package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations end with a period without ending a sentence (a punkt-style list of the common
// English ones; compared lower-case, without the period).
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true,
	"st": true, "mt": true, "ft": true, "vs": true, "v": true, "etc": true, "e.g": true,
	"i.e": true, "inc": true, "ltd": true, "co": true, "corp": true, "no": true, "nos": true,
	"fig": true, "figs": true, "vol": true, "vols": true, "pp": true, "p": true, "ed": true,
	"eds": true, "gen": true, "gov": true, "sen": true, "rep": true, "rev": true, "hon": true,
	"capt": true, "col": true, "lt": true, "sgt": true, "cf": true, "al": true, "approx": true,
	"dept": true, "est": true, "jan": true, "feb": true, "mar": true, "apr": true, "jun": true,
	"jul": true, "aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	"u.s": true, "u.k": true, "a.m": true, "p.m": true, "ph.d": true, "sec": true, "art": true,
	"mon": true, "tue": true, "wed": true, "thu": true, "fri": true, "sat": true, "sun": true,
}

func isSentenceEnd(r rune) bool { return r == '.' || r == '!' || r == '?' }

func isClosing(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '’', '”', '»':
		return true
	}
	return false
}

// nextSentence returns the end (exclusive) of the sentence starting at the beginning of s and
// the offset where the next one starts. Boundaries follow punkt's behaviour for untrained
// text: after `.`, `!` or `?` (plus closing quotes or brackets) and white space, except after
// known abbreviations and single-letter initials.
func nextSentence(s string) (end, next int) {
	wordStart := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isPySpace(r) {
			i += n
			wordStart = i
			continue
		}
		if !isSentenceEnd(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(s) {
			r2, m := utf8.DecodeRuneInString(s[j:])
			if !isSentenceEnd(r2) && !isClosing(r2) {
				break
			}
			j += m
		}
		if j == len(s) {
			return len(s), len(s)
		}
		r2, _ := utf8.DecodeRuneInString(s[j:])
		if !isPySpace(r2) {
			i = j
			continue
		}
		if r == '.' && j == i+1 && !breaksAfter(s[wordStart:i]) {
			i = j
			continue
		}
		k := j
		for k < len(s) {
			r3, m := utf8.DecodeRuneInString(s[k:])
			if !isPySpace(r3) {
				break
			}
			k += m
		}
		return j, k
	}
	return len(s), len(s)
}

// breaksAfter reports whether a period after word ends a sentence.
func breaksAfter(word string) bool {
	word = strings.TrimLeftFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if word == "" {
		return true
	}
	if utf8.RuneCountInString(word) == 1 && unicode.IsLetter([]rune(word)[0]) {
		return false // an initial
	}
	if len(word) <= 8 && abbreviations[strings.ToLower(word)] {
		return false
	}
	return true
}

// Sentences splits s into sentences (stripped, non-empty).
func Sentences(s string) []string {
	var out []string
	for s != "" {
		end, next := nextSentence(s)
		if t := strings.TrimSpace(s[:end]); t != "" {
			out = append(out, t)
		}
		s = s[next:]
	}
	return out
}

// SentenceCount counts the sentences of s that have at least minWords words once punctuation
// is removed (minWords 0 counts every sentence), as the reference's sentence_count does.
func SentenceCount(s string, minWords int) int {
	count := 0
	for s != "" {
		end, next := nextSentence(s)
		if t := strings.TrimSpace(s[:end]); t != "" && countWordsNoPunct(t) >= minWords {
			count++
		}
		s = s[next:]
	}
	return count
}

// countWordsNoPunct counts the words of s after removing every punctuation character: runs of
// non-space characters that still contain something.
func countWordsNoPunct(s string) int {
	n, in := 0, false
	for _, r := range s {
		switch {
		case isPySpace(r):
			in = false
		case unicode.IsPunct(r):
		default:
			if !in {
				n++
				in = true
			}
		}
	}
	return n
}
