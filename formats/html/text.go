package html

import (
	"strings"
	"unicode"
)

// isPySpace is Python's str.isspace for one character: Unicode white space plus the
// information separators U+001C–U+001F, which Go's unicode.IsSpace leaves out.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1C && r <= 0x1F)
}

// normalizeSpace is Python's " ".join(s.split()): white-space runs become one space and the
// ends are trimmed.
func normalizeSpace(s string) string {
	fields := strings.FieldsFunc(s, isPySpace)
	switch len(fields) {
	case 0:
		return ""
	case 1:
		return fields[0]
	}
	return strings.Join(fields, " ")
}

// pyStrip is Python's str.strip() with no argument.
func pyStrip(s string) string { return strings.TrimFunc(s, isPySpace) }
