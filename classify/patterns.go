package classify

import (
	"strings"
	"unicode/utf8"
)

// isBullet reports whether r is one of the reference's bullet characters (UNICODE_BULLETS plus
// the Symbol-font bullet U+F0B7 that Word documents carry).
func isBullet(r rune) bool {
	switch r {
	case '\u0095', '\u2022', '\u2023', '\u2043', '\u3164', '\u204C', '\u204D', '\u2219',
		'\u25CB', '\u25CF', '\u25D8', '\u25E6', '\u2619', '\u2765', '\u2767', '\u29BE',
		'\u29BF', '-', '\u2013', '*', '\u00B7', '\uF0B7':
		return true
	}
	return false
}

// isDingbatBullet reports whether r is a square, diamond, arrowhead or pointer that list
// styles draw (Word's Wingdings and Symbol bullets, the ZapfDingbats font's ■ ❖ ➢ once PDF
// text reads them) at the start of a line. The reference's list omits them, so such lines were
// titles or narrative text; they start a list item only here, never split text as the
// reference's bullets do (IsBulletRune). Check marks and crosses are left out: they say
// something (✓ done, ✗ not supported) and a list item loses its bullet.
func isDingbatBullet(r rune) bool {
	switch r {
	case '■', '▪', '□', '▫', '◆', '◇', '❖', '➢', '➤', '►',
		'▶', '▸', '❏', '❐', '❑', '❒', '◾', '◼', '✦', '❍', '➔':
		return true
	}
	return false
}

// bulletPrefix returns the length of the leading bullet of s, or 0 when s does not start with
// a bullet that is not immediately followed by another bullet.
func bulletPrefix(s string) int {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return 0
	}
	if isDingbatBullet(r) {
		// Only a bullet followed by a space: "■■■" rules and "▶Play" labels are not lists.
		if next, _ := utf8.DecodeRuneInString(s[n:]); next != ' ' && next != '\t' && next != '\u00A0' {
			return 0
		}
		return n
	}
	if !isBullet(r) {
		return 0
	}
	if next, m := utf8.DecodeRuneInString(s[n:]); m > 0 && isBullet(next) {
		return 0
	}
	return n
}

// IsBulleted reports whether s (ignoring surrounding white space) starts with a bullet
// character that is not immediately followed by another bullet.
func IsBulleted(s string) bool {
	return bulletPrefix(strings.TrimSpace(s)) > 0
}

// CleanBullet removes a leading bullet from s and strips the rest; text without a bullet is
// returned unchanged.
func CleanBullet(s string) string {
	n := bulletPrefix(s)
	if n == 0 {
		return s
	}
	return strings.TrimSpace(s[n:])
}

// IsEmptyBullet reports whether s is nothing but bullets and white space; the text
// partitioner drops such lines.
func IsEmptyBullet(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for _, r := range s {
		if !isBullet(r) && !isPySpace(r) {
			return false
		}
	}
	return true
}

// IsEmailAddress reports whether the stripped s starts with an e-mail address
// (`[a-z0-9.\-+_]+@[a-z0-9.\-+_]+\.[a-z]+`, case-sensitive as in the reference).
func IsEmailAddress(s string) bool {
	s = strings.TrimSpace(s)
	local := 0
	for local < len(s) && isEmailChar(s[local]) {
		local++
	}
	if local == 0 || local >= len(s) || s[local] != '@' {
		return false
	}
	// The domain must contain a '.' followed by at least one letter, with at least one domain
	// character before that dot; since '.' is itself a domain character, any such dot in the
	// run of domain characters works.
	d := s[local+1:]
	end := 0
	for end < len(d) && isEmailChar(d[end]) {
		end++
	}
	for i := 1; i < end; i++ {
		if d[i] == '.' && i+1 < end && 'a' <= d[i+1] && d[i+1] <= 'z' {
			return true
		}
	}
	return false
}

func isEmailChar(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '+' || c == '_'
}

// IsNumberedListItem reports whether the stripped s starts with `<digits>.` or `<digits>)`,
// then white space, then at least one more character.
func IsNumberedListItem(s string) bool {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(s) || (s[i] != '.' && s[i] != ')') {
		return false
	}
	i++
	r, n := utf8.DecodeRuneInString(s[i:])
	if n == 0 || !isPySpace(r) {
		return false
	}
	// `.+` needs at least one character, and the first must not be a newline.
	rest := s[i+n:]
	return rest != "" && rest[0] != '\n'
}
