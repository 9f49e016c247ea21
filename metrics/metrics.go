// Package metrics implements the reference's text-extraction metrics (partition-api.md §12):
// clean concatenated text (CCT), CCT accuracy by weighted edit distance, percent of missing
// text, and element-type frequency agreement. Conformance tests and `quarry eval` use them to
// score Quarry's output against golden outputs that cannot be matched exactly.
package metrics

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarrydocs/quarry/element"
)

// CCT is the clean concatenated text of elements: every non-empty text joined by newlines.
func CCT(elems []element.Element) string {
	var parts []string
	for _, e := range elems {
		if e.Text != "" {
			parts = append(parts, e.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Weights are the costs of an insertion, a deletion and a substitution.
type Weights struct{ Insert, Delete, Substitute int }

var (
	// UnitWeights are the batch evaluator's weights, used for the cct-accuracy column.
	UnitWeights = Weights{1, 1, 1}
	// DefaultWeights are the standalone function's weights.
	DefaultWeights = Weights{2, 1, 1}
)

var doubleQuotes = "\"\u201c\u201d\u201e\u201f\u00ab\u00bb\u275d\u275e\u2e42\U0001F676\U0001F677\U0001F678\u2826\u2834\u301d\u301e\u301f\uff02"
var singleQuotes = "'\u2018\u2019\u201a\u201b\u2039\u203a\u275b\u275c\u300c\u300d\u300e\u300f\ufe41\ufe42\ufe43\ufe44\uff07\uff62\uff63"

// normalize standardises whitespace and folds every kind of quote to ASCII.
func normalize(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.Map(func(r rune) rune {
		switch {
		case strings.ContainsRune(doubleQuotes, r):
			return '"'
		case strings.ContainsRune(singleQuotes, r):
			return '\''
		}
		return r
	}, s)
}

// EditDistance is the weighted Levenshtein cost of turning output into source, after
// normalisation.
func EditDistance(output, source string, w Weights) int {
	a, b := []rune(normalize(output)), []rune(normalize(source))
	if w == UnitWeights {
		return levenshteinBits(a, b)
	}
	return levenshteinDP(a, b, w)
}

// Accuracy is 1 − distance/len(source), clamped to [0, 1], as the reference scores CCT.
func Accuracy(output, source string, w Weights) float64 {
	d := EditDistance(output, source, w)
	n := max(utf8.RuneCountInString(normalize(source)), 1)
	return 1 - math.Min(math.Max(float64(d)/float64(n), 0), 1)
}

// BatchAccuracy is the batch evaluator's cct-accuracy: unit weights, and 0.01 without computing
// the distance when the output's UTF-8 size is not strictly between half and twice the source's.
func BatchAccuracy(output, source string) float64 {
	ratio := float64(len(output)) / float64(max(len(source), 1))
	if ratio <= 0.5 || ratio >= 2.0 {
		return 0.01
	}
	return Round3(Accuracy(output, source, UnitWeights))
}

// Round3 rounds to three decimals as the reference's reports do.
func Round3(f float64) float64 { return math.Round(f*1000) / 1000 }

func levenshteinDP(a, b []rune, w Weights) int {
	// Transform a into b: insert a rune of b, delete a rune of a.
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j * w.Insert
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i * w.Delete
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub += w.Substitute
			}
			cur[j] = min(sub, prev[j]+w.Delete, cur[j-1]+w.Insert)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// levenshteinBits is the unit-cost distance by Myers' bit-parallel algorithm in Hyyrö's
// multi-word form: O(len(a)·len(b)/64), so whole-document texts score in moments.
func levenshteinBits(a, b []rune) int {
	if len(a) < len(b) {
		a, b = b, a // the pattern (bit vectors) is the shorter string
	}
	m := len(b)
	if m == 0 {
		return len(a)
	}
	words := (m + 63) / 64
	peq := map[rune][]uint64{}
	for i, r := range b {
		v := peq[r]
		if v == nil {
			v = make([]uint64, words)
			peq[r] = v
		}
		v[i/64] |= 1 << (uint(i) % 64)
	}
	pv := make([]uint64, words)
	mv := make([]uint64, words)
	for i := range pv {
		pv[i] = ^uint64(0)
	}
	score := m
	last := uint64(1) << (uint(m-1) % 64)
	zero := make([]uint64, words)
	for _, r := range a {
		eqs := peq[r]
		if eqs == nil {
			eqs = zero
		}
		var hpCarry, hnCarry uint64 = 1, 0 // horizontal delta entering row 0 is +1
		for k := 0; k < words; k++ {
			eq := eqs[k]
			pvk, mvk := pv[k], mv[k]
			xv := eq | mvk
			if hnCarry != 0 {
				eq |= 1
			}
			xh := (((eq & pvk) + pvk) ^ pvk) | eq
			hp := mvk | ^(xh | pvk)
			hn := pvk & xh
			if k == words-1 {
				if hp&last != 0 {
					score++
				} else if hn&last != 0 {
					score--
				}
			}
			hpOut, hnOut := hp>>63, hn>>63
			hp = hp<<1 | hpCarry
			hn = hn<<1 | hnCarry
			hpCarry, hnCarry = hpOut, hnOut
			pv[k] = hn | ^(xv | hp)
			mv[k] = hp & xv
		}
	}
	return score
}

// PercentMissing is the share of the source's words missing from the output (§12.3).
func PercentMissing(output, source string) float64 {
	src, out := bagOfWords(source), bagOfWords(output)
	total, missing := 0, 0
	for w, n := range src {
		total += n
		missing += max(n-out[w], 0)
	}
	if total == 0 {
		return 0
	}
	return Round3(math.Min(float64(missing)/float64(total), 1))
}

func bagOfWords(s string) map[string]int {
	s = strings.ToLower(s)
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if r, n := utf8.DecodeRuneInString(s); n > 0 && isBulletLike(r) {
		s = s[n:]
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsPunct(r) && r != '-' && r != '\'' {
			return -1
		}
		return r
	}, s)
	words := strings.Fields(s)
	bag := map[string]int{}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if utf8.RuneCountInString(w) > 1 {
			bag[w]++
			continue
		}
		// A run of single characters is a spaced-out word: not counted.
		j := i
		for j+1 < len(words) && utf8.RuneCountInString(words[j+1]) == 1 {
			j++
		}
		if j == i {
			r, _ := utf8.DecodeRuneInString(w)
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				bag[w]++
			}
		}
		i = j
	}
	return bag
}

func isBulletLike(r rune) bool {
	return strings.ContainsRune("•‣⁃○●◘◦☙❥❧⦾⦿·∙⁌⁍-–*\u0095", r)
}

type typeKey struct {
	typ   string
	depth int // -1 for none
}

// TypeFrequency counts (type, category_depth) pairs.
func TypeFrequency(elems []element.Element) map[typeKey]int {
	f := map[typeKey]int{}
	for _, e := range elems {
		d := -1
		if e.Metadata.CategoryDepth != nil {
			d = *e.Metadata.CategoryDepth
		}
		f[typeKey{string(e.Type), d}]++
	}
	return f
}

// TypeAccuracy scores the element-type frequency of output against source (§12.4): exact
// (type, depth) matches count fully, leftovers of the same type at weight 0.5.
func TypeAccuracy(output, source []element.Element) float64 {
	if len(output) == 0 || len(source) == 0 {
		return 0
	}
	o, s := TypeFrequency(output), TypeFrequency(source)
	matched, total := 0.0, 0.0
	for k, sn := range s {
		if on, ok := o[k]; ok {
			m := min(on, sn)
			matched += float64(m)
			total += float64(m)
			o[k] -= m
			s[k] -= m
		}
	}
	leftO, leftS := map[string]int{}, map[string]int{}
	for k, n := range o {
		leftO[k.typ] += n
	}
	for k, n := range s {
		leftS[k.typ] += n
	}
	for t, sn := range leftS {
		total += float64(sn)
		matched += 0.5 * float64(min(leftO[t], sn))
	}
	if total == 0 {
		return 0
	}
	return math.Min(math.Max(matched/total, 0), 1)
}

// GoldenTypeAccuracy is TypeAccuracy for goldens whose producer removed category_depth (most
// ingest-made goldens): when no source element carries a depth, output depths are ignored too,
// so a depth the golden could not show does not count as a mismatch.
func GoldenTypeAccuracy(output, source []element.Element) float64 {
	for _, e := range source {
		if e.Metadata.CategoryDepth != nil {
			return TypeAccuracy(output, source)
		}
	}
	stripped := make([]element.Element, len(output))
	for i, e := range output {
		e.Metadata.CategoryDepth = nil
		stripped[i] = e
	}
	return TypeAccuracy(stripped, source)
}
