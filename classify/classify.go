// Package classify holds the reference system's text rules (partition-api.md §8): it decides
// whether a block of text is a ListItem, EmailAddress, Address, NarrativeText, Title or
// UncategorizedText. The narrative test needs to know whether the text contains a verb; that
// is answered by a small part-of-speech tagger with an embedded lexicon (see tagger.go).
//
// Every function is safe for concurrent use and allocates little: partitioners call them once
// per line of text, on documents with millions of lines.
package classify

import (
	"strings"
	"unicode"

	"github.com/quarrydocs/quarry/element"
)

// Thresholds of the reference (its environment-tunable defaults).
const (
	narrativeCapThreshold      = 0.5
	narrativeNonAlphaThreshold = 0.5
	titleNonAlphaThreshold     = 0.5
	titleMaxWords              = 12
	titleSentenceMinLength     = 5
)

// Text classifies a block of plain text with the full decision order the reference uses for
// TXT, XML, PDF text and e-mail text bodies. It returns the type and the text to emit (the
// bullet is removed from list items; otherwise the stripped input).
func Text(s string) (element.Type, string) {
	s = strings.TrimSpace(s)
	switch {
	case IsBulleted(s):
		return element.ListItem, CleanBullet(s)
	case IsEmailAddress(s):
		return element.EmailAddress, s
	case IsUSAddress(s):
		return element.Address, s
	case IsNumberedListItem(s):
		return element.ListItem, s
	case IsNarrative(s):
		return element.NarrativeText, s
	case IsTitle(s):
		return element.Title, s
	}
	return element.UncategorizedText, s
}

// Paragraph classifies a paragraph of HTML or DOCX body text, where only markup makes titles:
// bullets, addresses, e-mail addresses and narrative text are recognised, anything else is
// UncategorizedText.
func Paragraph(s string) (element.Type, string) {
	s = strings.TrimSpace(s)
	switch {
	case IsBulleted(s):
		return element.ListItem, CleanBullet(s)
	case IsUSAddress(s):
		return element.Address, s
	case IsEmailAddress(s):
		return element.EmailAddress, s
	case IsNarrative(s):
		return element.NarrativeText, s
	}
	return element.UncategorizedText, s
}

// Slide classifies a paragraph of a PPTX text frame: bullets, e-mail addresses, narrative text
// and titles, else UncategorizedText.
func Slide(s string) (element.Type, string) {
	s = strings.TrimSpace(s)
	switch {
	case IsBulleted(s):
		return element.ListItem, CleanBullet(s)
	case IsEmailAddress(s):
		return element.EmailAddress, s
	case IsNarrative(s):
		return element.NarrativeText, s
	case IsTitle(s):
		return element.Title, s
	}
	return element.UncategorizedText, s
}

// IsNarrative reports whether s passes the reference's narrative-text test for English:
// not numeric, not a capitalised heading-like single sentence, mostly alphabetic, and either
// two sentences of at least three words or a verb.
func IsNarrative(s string) bool {
	if s == "" || isNumeric(s) {
		return false
	}
	if ExceedsCapRatio(s) {
		return false
	}
	if UnderNonAlphaRatio(s, narrativeNonAlphaThreshold) {
		return false
	}
	if SentenceCount(s, 3) < 2 && !ContainsVerb(s) {
		return false
	}
	return true
}

// IsTitle reports whether s passes the reference's title test: short (at most 12
// space-separated words), mostly alphabetic, not an all-caps sentence ending in punctuation,
// not ending with a comma, not numeric, and at most one sentence of five or more words.
func IsTitle(s string) bool {
	if s == "" {
		return false
	}
	if isUpper(s) && endsInPunct(s) {
		return false
	}
	if strings.Count(s, " ")+1 > titleMaxWords {
		return false
	}
	if UnderNonAlphaRatio(s, titleNonAlphaThreshold) {
		return false
	}
	if strings.HasSuffix(s, ",") {
		return false
	}
	if isNumeric(s) {
		return false
	}
	return SentenceCount(s, titleSentenceMinLength) <= 1
}

// ExceedsCapRatio reports whether s looks like a capitalised heading rather than prose: a
// single sentence (fewer than two sentences of three or more words) that is all upper case, or
// whose alphabetic words are more than half Title-case or upper-case, or that has no alphabetic
// word at all.
func ExceedsCapRatio(s string) bool {
	if SentenceCount(s, 3) > 1 {
		return false
	}
	if isUpper(s) {
		return true
	}
	var alpha, capitalised int
	forEachWord(s, func(w string) {
		if !isAlpha(w) {
			return
		}
		alpha++
		if isTitleCase(w) || isUpper(w) {
			capitalised++
		}
	})
	if alpha == 0 {
		return true
	}
	return float64(capitalised)/float64(alpha) > narrativeCapThreshold
}

// UnderNonAlphaRatio reports whether fewer than threshold of the non-space characters of s are
// alphabetic. Empty or all-space text is not "under".
func UnderNonAlphaRatio(s string, threshold float64) bool {
	var alpha, total int
	for _, r := range s {
		if isPySpace(r) {
			continue
		}
		total++
		if isPyAlpha(r) {
			alpha++
		}
	}
	if total == 0 {
		return false
	}
	return float64(alpha)/float64(total) < threshold
}

// isNumeric mirrors Python's str.isnumeric: non-empty and every rune numeric.
func isNumeric(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsNumber(r) {
			return false
		}
	}
	return true
}

// isUpper mirrors Python's str.isupper: at least one cased rune and no lower-case or
// title-case rune.
func isUpper(s string) bool {
	cased := false
	for _, r := range s {
		if unicode.IsLower(r) || unicode.IsTitle(r) {
			return false
		}
		if unicode.IsUpper(r) {
			cased = true
		}
	}
	return cased
}

// isTitleCase mirrors Python's str.istitle: upper-case runes only after uncased runes,
// lower-case runes only after cased ones, and at least one cased rune.
func isTitleCase(s string) bool {
	prevCased, cased := false, false
	for _, r := range s {
		switch {
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			if prevCased {
				return false
			}
			prevCased, cased = true, true
		case unicode.IsLower(r):
			if !prevCased {
				return false
			}
			prevCased, cased = true, true
		default:
			prevCased = false
		}
	}
	return cased
}

// isAlpha mirrors Python's str.isalpha.
func isAlpha(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !isPyAlpha(r) {
			return false
		}
	}
	return true
}

// isPyAlpha is Python's notion of an alphabetic character: letter categories only (combining
// marks are not alphabetic).
func isPyAlpha(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r)
}

// isPySpace is Python's str.isspace for one character (what str.strip removes).
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85:
		return true
	}
	return r > 0x80 && unicode.IsSpace(r)
}

// endsInPunct mirrors the reference's `[^\w\s]\Z`: the last rune is neither a word character
// nor white space.
func endsInPunct(s string) bool {
	i := len(s) - 1
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	if i < 0 {
		return false
	}
	r := []rune(s[i:])[0]
	return !(isWordRune(r) || isPySpace(r))
}

// isWordRune is Python's \w for one rune: alphanumeric or underscore.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}
