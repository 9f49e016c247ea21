package classify

import (
	"strings"
	"unicode/utf8"
)

// usStates are the state names and abbreviations of the reference's US_CITY_STATE_ZIP pattern,
// matched case-insensitively. The reference pattern wraps both alternation lists in literal
// braces ("{Alabama|…|Wyoming}", "{AL|…|WY}"), which Python's re reads as literal characters:
// the first and last entry of each list therefore only match with the brace attached. The
// entries below keep that quirk so results agree.
var usStates = []string{
	"{alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut",
	"delaware", "florida", "georgia", "hawaii", "idaho", "illinois", "indiana", "iowa", "kansas",
	"kentucky", "louisiana", "maine", "maryland", "massachusetts", "michigan", "minnesota",
	"mississippi", "missouri", "montana", "nebraska", "nevada", "new hampshire", "new jersey",
	"new mexico", "new york", "north carolina", "north dakota", "ohio", "oklahoma", "oregon",
	"pennsylvania", "rhode island", "south carolina", "south dakota", "tennessee", "texas", "utah",
	"vermont", "virginia", "washington", "west virginia", "wisconsin", "wyoming}",
	"{al", "ak", "as", "az", "ar", "ca", "co", "ct", "de", "dc", "fm", "fl", "ga", "gu", "hi", "id",
	"il", "in", "ia", "ks", "ky", "la", "me", "mh", "md", "ma", "mi", "mn", "ms", "mo", "mt", "ne",
	"nv", "nh", "nj", "nm", "ny", "nc", "nd", "mp", "oh", "ok", "or", "pw", "pa", "pr", "ri", "sc",
	"sd", "tn", "tx", "ut", "vt", "vi", "va", "wa", "wv", "wi", "wy}",
}

// maxCityLen bounds the city part: at most five words of at most 16 letters plus a space.
const maxCityLen = 5 * 17

// IsUSAddress reports whether the stripped s starts with a US "City, ST 12345" or
// "City, State 12345-6789" line, as the reference's pattern does
// (`(?i)\b(?:[A-Z][a-z.-]{1,15}[ ]?){1,5},\s?(?:STATES)\s?\b\d{5}(?:-\d{4})?\b`).
func IsUSAddress(s string) bool {
	s = strings.TrimSpace(s)
	comma := strings.IndexByte(s, ',')
	if comma <= 0 || comma > maxCityLen || !cityMatches(s[:comma]) {
		return false
	}
	rest := s[comma+1:]
	if n := spaceLen(rest); n > 0 {
		if tryState(rest[n:]) {
			return true
		}
	}
	return tryState(rest)
}

// cityMatches reports whether city is entirely matched by (?:[A-Za-z][A-Za-z.-]{1,15}[ ]?){1,5}.
// The pieces may split a word anywhere, so this is a tiny search over (position, pieces used),
// memoised to keep it linear.
func cityMatches(city string) bool {
	var failed [maxCityLen + 1][6]bool
	var match func(pos, reps int) bool
	match = func(pos, reps int) bool {
		if pos == len(city) {
			return reps > 0
		}
		if reps == 5 || failed[pos][reps] || !isASCIILetter(city[pos]) {
			return false
		}
		for e := pos + 2; e <= len(city) && e-pos <= 16 && isCityChar(city[e-1]); e++ {
			if e < len(city) && city[e] == ' ' && match(e+1, reps+1) {
				return true
			}
			if match(e, reps+1) {
				return true
			}
		}
		failed[pos][reps] = true
		return false
	}
	return match(0, 0)
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func isCityChar(c byte) bool { return isASCIILetter(c) || c == '.' || c == '-' }

// spaceLen returns the byte length of a leading white-space rune of s, or 0.
func spaceLen(s string) int {
	r, size := utf8.DecodeRuneInString(s)
	if size > 0 && isPySpace(r) {
		return size
	}
	return 0
}

// tryState reports whether s starts with a state, then an optional white space, then five
// digits that do not continue into another word character.
func tryState(s string) bool {
	for _, st := range usStates {
		if len(s) < len(st) || !strings.EqualFold(s[:len(st)], st) {
			continue
		}
		rest := s[len(st):]
		if n := spaceLen(rest); n > 0 && zipAt(rest[n:]) {
			return true
		}
		// Without a space, \b needs the state's last character to be a non-word character
		// before the digits: only the brace-quirk entries qualify.
		if strings.HasSuffix(st, "}") && zipAt(rest) {
			return true
		}
	}
	return false
}

// zipAt reports whether s starts with exactly five digits followed by a non-word character or
// the end (the optional -1234 extension never changes the outcome).
func zipAt(s string) bool {
	if len(s) < 5 {
		return false
	}
	for i := 0; i < 5; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	if len(s) == 5 {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[5:])
	return !isWordRune(r)
}
