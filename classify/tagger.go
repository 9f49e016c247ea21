package classify

import (
	"strings"
)

// ContainsVerb reports whether the part-of-speech tagger finds a verb (VB, VBD, VBG, VBN,
// VBP, VBZ) in s. All-caps text is lower-cased first, as the reference does, because taggers
// read capitalised words as proper nouns.
func ContainsVerb(s string) bool {
	if isUpper(s) {
		s = strings.ToLower(s)
	}
	found := false
	tagText(s, func(_ string, tag string) bool {
		if strings.HasPrefix(tag, "VB") {
			found = true
			return false
		}
		return true
	})
	return found
}

// tagText tags the words of s left to right, calling fn with each word and its tag until fn
// returns false.
func tagText(s string, fn func(word, tag string) bool) {
	stop := false
	forEachWord(s, func(w string) {
		if stop {
			return
		}
		if !fn(w, guessTag(w)) {
			stop = true
		}
	})
}

var commonVerbs = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "has": true,
	"have": true, "had": true, "do": true, "does": true, "did": true, "'s": true, "'re": true,
	"'m": true, "'ve": true, "can": false, "make": true, "use": true, "get": true, "go": true,
}

func guessTag(w string) string {
	lw := strings.ToLower(w)
	if commonVerbs[lw] {
		return "VB"
	}
	switch {
	case strings.HasSuffix(lw, "ed") && len(lw) > 4:
		return "VBD"
	case strings.HasSuffix(lw, "ing") && len(lw) > 5:
		return "VBG"
	}
	return "NN"
}
