package lang

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// langdetect.bin holds the profiles and normalisation tables of Python langdetect 1.0.9
// (Apache-2.0; see LICENSE.langdetect), written by lang/internal/genprofiles. Its n-gram table
// is fixed-width and read in place: a process that detects one short text must not pay for
// decoding 184,000 profile entries into a map first.
//
//go:embed langdetect.bin
var profileData string

// Constants of langdetect's Detector.
const (
	ldAlpha          = 0.5
	ldAlphaWidth     = 0.05
	ldIterationLimit = 1000
	ldProbThreshold  = 0.1
	ldConvThreshold  = 0.99999
	ldBaseFreq       = 10000
	ldNTrial         = 7
	ldMaxTextLength  = 10000
)

// model is the loaded detector data; read-only once built.
type model struct {
	langs  []string
	nwords [][3]float64
	keys   []uint64 // packed n-grams, ascending
	off    []uint32 // the entries of n-gram g are entLang/entProb[off[g]:off[g+1]]
	// entLang and entProb are each entry's language and, as DetectorFactory.add_profile
	// computes it, the n-gram's frequency over the language's count of n-grams of its length.
	entLang []uint8
	entProb []float64
	cjk     map[rune]rune
	latin1X string // Latin-1 characters that count as spaces
	viBase  []rune // letters that take a combining Vietnamese tone mark
	viMark  []rune // the combining marks
	viComp  [][]rune
	// fresh is the random state right after seed(0) and the first gauss() call, which every
	// detection starts with.
	fresh  pyRandom
	gauss0 float64
}

var loadModel = sync.OnceValue(func() *model {
	m, err := parseModel(profileData)
	if err != nil {
		// The data is embedded at build time and covered by tests; it cannot be bad at run time.
		panic(fmt.Sprintf("lang: embedded langdetect data: %v", err))
	}
	return m
})

// packGram keys an n-gram of one to three runes (never containing NUL) as one integer.
func packGram(rs []rune) uint64 {
	var k uint64
	for _, r := range rs {
		k = k<<21 | uint64(r)
	}
	return k
}

type byteReader struct {
	b   string
	err error
}

func (r *byteReader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	var v uint64
	for i := 0; i < len(r.b) && i < binary.MaxVarintLen64; i++ {
		c := r.b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			r.b = r.b[i+1:]
			return v
		}
	}
	r.err = errors.New("truncated")
	return 0
}

func (r *byteReader) str() string {
	n := r.uint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.err = errors.New("truncated")
		return ""
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

// block takes the next n bytes.
func (r *byteReader) block(n int) string {
	if r.err == nil && n > len(r.b) {
		r.err = errors.New("truncated")
	}
	if r.err != nil {
		return ""
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func parseModel(data string) (*model, error) {
	rest, ok := strings.CutPrefix(data, "LDP2")
	if !ok {
		return nil, errors.New("bad magic")
	}
	r := &byteReader{b: rest}
	m := &model{}
	nl := int(r.uint())
	if r.err == nil && (nl < 2 || nl > 255) {
		return nil, fmt.Errorf("%d languages", nl)
	}
	m.nwords = make([][3]float64, nl)
	for i := 0; i < nl && r.err == nil; i++ {
		m.langs = append(m.langs, r.str())
		for j := range 3 {
			m.nwords[i][j] = float64(r.uint())
		}
	}
	ng, ne := int(r.uint()), int(r.uint())
	msgs := map[string]string{}
	nm := int(r.uint())
	for i := 0; i < nm && r.err == nil; i++ {
		k := r.str()
		msgs[k] = r.str()
	}
	keys, off, ent := r.block(8*ng), r.block(4*(ng+1)), r.block(5*ne)
	if r.err != nil {
		return nil, r.err
	}
	if r.b != "" {
		return nil, fmt.Errorf("%d bytes after the entries", len(r.b))
	}
	// Decoding the fixed-width blocks is one pass without hashing, about a millisecond.
	m.keys = make([]uint64, ng)
	m.off = make([]uint32, ng+1)
	m.entLang = make([]uint8, ne)
	m.entProb = make([]float64, ne)
	for g := range m.off {
		m.off[g] = le32(off[4*g:])
	}
	if int(m.off[ng]) != ne {
		return nil, errors.New("offsets do not end at the entry count")
	}
	for g := range m.keys {
		k := le64(keys[8*g:])
		if g > 0 && k <= m.keys[g-1] {
			return nil, errors.New("n-gram keys out of order")
		}
		m.keys[g] = k
		n := (bits.Len64(k) + 20) / 21
		lo, hi := m.off[g], m.off[g+1]
		if lo > hi || n < 1 || n > 3 {
			return nil, fmt.Errorf("n-gram %d: bad entry", g)
		}
		for e := lo; e < hi; e++ {
			li := ent[5*e]
			if int(li) >= nl {
				return nil, fmt.Errorf("n-gram %d: language %d", g, li)
			}
			m.entLang[e] = li
			m.entProb[e] = float64(le32(ent[5*e+1:])) / m.nwords[li][n-1]
		}
	}
	if err := m.loadMessages(msgs); err != nil {
		return nil, err
	}
	m.fresh.seed(0)
	m.gauss0 = m.fresh.gauss()
	return m, nil
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// gram finds a packed n-gram's index by binary search over the sorted keys.
func (m *model) gram(k uint64) (int, bool) {
	g, ok := slices.BinarySearch(m.keys, k)
	return g, ok
}

func (m *model) loadMessages(msgs map[string]string) error {
	get := func(k string) (string, error) {
		v, ok := msgs[k]
		if !ok {
			return "", fmt.Errorf("message %s missing", k)
		}
		return v, nil
	}
	var err error
	if m.latin1X, err = get("NGram.LATIN1_EXCLUDE"); err != nil {
		return err
	}
	base, err := get("TO_NORMALIZE_VI_CHARS")
	if err != nil {
		return err
	}
	marks, err := get("DMARK_CLASS")
	if err != nil {
		return err
	}
	m.viBase, m.viMark = []rune(base), []rune(marks)
	for _, mk := range []string{"0300", "0301", "0303", "0309", "0323"} {
		v, err := get("NORMALIZED_VI_CHARS_" + mk)
		if err != nil {
			return err
		}
		if utf8.RuneCountInString(v) != len(m.viBase) {
			return fmt.Errorf("NORMALIZED_VI_CHARS_%s: %d characters", mk, utf8.RuneCountInString(v))
		}
		m.viComp = append(m.viComp, []rune(v))
	}
	if len(m.viComp) != len(m.viMark) {
		return errors.New("DMARK_CLASS does not match the normalised tables")
	}
	// The kanji classes are applied in the order langdetect lists them: by the two numbers of
	// their keys. Each character maps to the first character of its class.
	type class struct {
		a, b int
		s    string
	}
	var classes []class
	for k, v := range msgs {
		rest, ok := strings.CutPrefix(k, "NGram.KANJI_")
		if !ok {
			continue
		}
		as, bs, _ := strings.Cut(rest, "_")
		a, err1 := strconv.Atoi(as)
		b, err2 := strconv.Atoi(bs)
		if err1 != nil || err2 != nil || v == "" {
			return fmt.Errorf("message %s", k)
		}
		classes = append(classes, class{a, b, v})
	}
	sort.Slice(classes, func(i, j int) bool {
		if classes[i].a != classes[j].a {
			return classes[i].a < classes[j].a
		}
		return classes[i].b < classes[j].b
	})
	m.cjk = map[rune]rune{}
	for _, c := range classes {
		rep, _ := utf8.DecodeRuneInString(c.s)
		for _, r := range c.s {
			m.cjk[r] = rep
		}
	}
	return nil
}

// normalize is NGram.normalize: one character mapped to its class representative, or to a
// space when it carries no language signal.
func (m *model) normalize(c rune) rune {
	switch {
	case c <= 0x7F:
		if c < 'A' || ('Z' < c && c < 'a') || 'z' < c {
			return ' '
		}
	case c <= 0xFF:
		if strings.ContainsRune(m.latin1X, c) {
			return ' '
		}
	case c >= 0x180 && c <= 0x24F:
		// Romanian comma-below letters as their cedilla forms.
		if c == 0x219 {
			return 0x15F
		}
		if c == 0x21B {
			return 0x163
		}
	case c >= 0x2000 && c <= 0x206F:
		return ' '
	case c >= 0x600 && c <= 0x6FF:
		if c == 0x6CC {
			return 0x64A // Farsi yeh as Arabic yeh
		}
	case c >= 0x1E00 && c <= 0x1EFF:
		if c >= 0x1EA0 {
			return 0x1EC3
		}
	case c >= 0x3040 && c <= 0x309F:
		return 0x3042
	case c >= 0x30A0 && c <= 0x30FF:
		return 0x30A2
	case (c >= 0x3100 && c <= 0x312F) || (c >= 0x31A0 && c <= 0x31BF):
		return 0x3105
	case c >= 0x4E00 && c <= 0x9FFF:
		if r, ok := m.cjk[c]; ok {
			return r
		}
	case c >= 0xAC00 && c <= 0xD7AF:
		return 0xAC00
	}
	return c
}

// pyIsUpper is str.isupper() for one character: Unicode's Uppercase property.
func pyIsUpper(r rune) bool {
	return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r)
}

// runeStream is a lazily filled rune buffer: each text rewriting pass of Detector.append reads
// its input through one, so only the prefix that the 10,000-character limit keeps (plus the
// patterns' look-ahead) is ever rewritten, whatever the text's length.
type runeStream struct {
	buf  []rune
	off  int                      // index of buf[0]: the consumer has moved past what came before
	more func(s *runeStream) bool // appends at least one rune, or reports the end
}

func (s *runeStream) at(i int) (rune, bool) {
	for s.off+len(s.buf) <= i {
		if !s.more(s) {
			return 0, false
		}
	}
	return s.buf[i-s.off], true
}

// release tells the stream that its consumer will not read before i again, so a long text of
// URLs or address-like runs is rewritten in bounded memory.
func (s *runeStream) release(i int) {
	if n := i - s.off; n >= 1<<15 {
		s.buf = s.buf[:copy(s.buf, s.buf[n:])]
		s.off = i
	}
}

func (s *runeStream) is(i int, class func(rune) bool) bool {
	r, ok := s.at(i)
	return ok && class(r)
}

func urlChar(r rune) bool {
	return r < 0x80 && (isAlnum(r) || strings.ContainsRune("-_.?&~;+=/#", r))
}

func mailLocalChar(r rune) bool { return r < 0x80 && (isAlnum(r) || r == '-' || r == '_' || r == '.') }
func mailHostChar(r rune) bool  { return r < 0x80 && (isAlnum(r) || r == '-' || r == '_') }

func isAlnum(r rune) bool {
	return ('0' <= r && r <= '9') || ('A' <= r && r <= 'Z') || ('a' <= r && r <= 'z')
}

// runLen counts the characters of class from i on, up to limit.
func runLen(s *runeStream, i, limit int, class func(rune) bool) int {
	n := 0
	for n < limit && s.is(i+n, class) {
		n++
	}
	return n
}

func hasPrefixAt(s *runeStream, i int, p string) bool {
	for k, c := range []rune(p) {
		if r, ok := s.at(i + k); !ok || r != c {
			return false
		}
	}
	return true
}

// detectorText is Detector.append followed by cleaning_text: URLs (https?://[-_.?&~;+=/#0-9A-Za-z]{1,2076})
// and e-mail addresses ([-_.0-9A-Za-z]{1,64}@[-_0-9A-Za-z]{1,255}[-_.0-9A-Za-z]{1,255}) become
// spaces, Vietnamese letters with combining tone marks are composed, the first 10,000
// characters are kept with runs of spaces collapsed, and Latin letters are dropped when the
// text is mostly non-Latin. final reports that text is long enough for the result not to
// change whatever text follows it: 10,000 characters came out without the patterns ever
// looking past its end.
func (m *model) detectorText(text string) (clean []rune, final bool) {
	pos := 0
	starved := false
	src := &runeStream{more: func(s *runeStream) bool {
		if pos >= len(text) {
			starved = true
			return false
		}
		r, n := utf8.DecodeRuneInString(text[pos:])
		pos += n
		s.buf = append(s.buf, r)
		return true
	}}

	i1 := 0
	urls := &runeStream{more: func(s *runeStream) bool {
		r, ok := src.at(i1)
		if !ok {
			return false
		}
		if r == 'h' && hasPrefixAt(src, i1, "http") {
			k := i1 + 4
			if c, ok := src.at(k); ok && c == 's' {
				k++
			}
			if hasPrefixAt(src, k, "://") {
				if n := runLen(src, k+3, 2076, urlChar); n > 0 {
					s.buf = append(s.buf, ' ')
					i1 = k + 3 + n
					src.release(i1)
					return true
				}
			}
		}
		s.buf = append(s.buf, r)
		i1++
		src.release(i1)
		return true
	}}

	i2 := 0
	mails := &runeStream{more: func(s *runeStream) bool {
		r, ok := urls.at(i2)
		if !ok {
			return false
		}
		if !mailLocalChar(r) {
			s.buf = append(s.buf, r)
			i2++
			urls.release(i2)
			return true
		}
		// Every start inside this run needs the '@' right after the run, at most 64 characters
		// on; the leftmost such start wins, and the part after '@' is the same for all. A run
		// longer than that is passed over in pieces that cannot reach an '@'.
		n := runLen(urls, i2, 4096, mailLocalChar)
		if n == 4096 {
			for k := i2; k < i2+n-64; k++ {
				c, _ := urls.at(k)
				s.buf = append(s.buf, c)
			}
			i2 += n - 64
			urls.release(i2)
			return true
		}
		j := i2 + n
		if at, ok := urls.at(j); ok && at == '@' {
			if end := mailHostEnd(urls, j+1); end > 0 {
				start := max(i2, j-64)
				for k := i2; k < start; k++ {
					c, _ := urls.at(k)
					s.buf = append(s.buf, c)
				}
				s.buf = append(s.buf, ' ')
				i2 = end
				urls.release(i2)
				return true
			}
		}
		for k := i2; k < j; k++ {
			c, _ := urls.at(k)
			s.buf = append(s.buf, c)
		}
		i2 = j
		urls.release(i2)
		return true
	}}

	i3 := 0
	vi := &runeStream{more: func(s *runeStream) bool {
		r, ok := mails.at(i3)
		if !ok {
			return false
		}
		if b := indexRune(m.viBase, r); b >= 0 {
			if mk, ok := mails.at(i3 + 1); ok {
				if d := indexRune(m.viMark, mk); d >= 0 {
					s.buf = append(s.buf, m.viComp[d][b])
					i3 += 2
					mails.release(i3)
					return true
				}
			}
		}
		s.buf = append(s.buf, r)
		i3++
		mails.release(i3)
		return true
	}}

	out := make([]rune, 0, min(len(text), ldMaxTextLength))
	var pre rune = -1
	taken := 0
	for ; taken < ldMaxTextLength; taken++ {
		c, ok := vi.at(taken)
		if !ok {
			break
		}
		if c != ' ' || pre != ' ' {
			out = append(out, c)
		}
		pre = c
	}
	final = taken == ldMaxTextLength && !starved

	// cleaning_text. Upstream compares a block number with a block name here, so every
	// character from U+0300 on counts as non-Latin, Latin Extended Additional included.
	latin, nonLatin := 0, 0
	for _, c := range out {
		if 'A' <= c && c <= 'z' {
			latin++
		} else if c >= 0x300 {
			nonLatin++
		}
	}
	if latin*2 < nonLatin {
		kept := out[:0]
		for _, c := range out {
			if c < 'A' || 'z' < c {
				kept = append(kept, c)
			}
		}
		out = kept
	}
	return out, final
}

// mailHostEnd matches [-_0-9A-Za-z]{1,255}[-_.0-9A-Za-z]{1,255} at k with the regular
// expression engine's greedy backtracking and returns the end, or 0 when it does not match.
func mailHostEnd(s *runeStream, k int) int {
	l := runLen(s, k, 256, mailHostChar)
	if l == 0 {
		return 0
	}
	b := min(l, 255)
	if n := runLen(s, k+b, 255, mailLocalChar); n > 0 {
		return k + b + n
	}
	if b >= 2 {
		return k + b // give one host character back to the second part
	}
	return 0
}

func indexRune(rs []rune, r rune) int {
	for i, c := range rs {
		if c == r {
			return i
		}
	}
	return -1
}

// langProb is one ranked result of detect_langs.
type langProb struct {
	lang string
	prob float64
}

var errNoFeatures = errors.New("no features in text")

// detectLangs is langdetect's detect_langs with DetectorFactory.seed = 0: the languages whose
// probability exceeds 0.1, most probable first.
func detectLangs(text string) ([]langProb, error) {
	m := loadModel()
	nl := len(m.langs)
	clean, _ := m.detectorText(text)

	// _extract_ngrams; each distinct n-gram then gets one dense row of probabilities.
	local := map[int32]int32{}
	var globals []int32
	ngrams := make([]int32, 0, 3*len(clean))
	var grams [3]rune
	gn := 1
	grams[0] = ' '
	capital := false
	for _, c := range clean {
		c = m.normalize(c)
		last := grams[gn-1]
		if last == ' ' {
			grams[0], gn = ' ', 1
			capital = false
			if c == ' ' {
				continue
			}
		} else if gn >= 3 {
			grams[0], grams[1] = grams[1], grams[2]
			gn = 2
		}
		grams[gn] = c
		gn++
		if pyIsUpper(c) {
			if pyIsUpper(last) {
				capital = true
			}
		} else {
			capital = false
		}
		if capital {
			continue
		}
		for n := 1; n <= 3 && n <= gn; n++ {
			w := grams[gn-n : gn]
			if n == 1 && w[0] == ' ' {
				continue
			}
			g, ok := m.gram(packGram(w))
			if !ok {
				continue
			}
			li, ok := local[int32(g)]
			if !ok {
				li = int32(len(globals))
				local[int32(g)] = li
				globals = append(globals, int32(g))
			}
			ngrams = append(ngrams, li)
		}
	}
	if len(ngrams) == 0 {
		return nil, errNoFeatures
	}
	rows := make([]float64, len(globals)*nl)
	for li, g := range globals {
		row := rows[li*nl : li*nl+nl]
		for e := m.off[g]; e < m.off[g+1]; e++ {
			row[m.entLang[e]] = m.entProb[e]
		}
	}

	langprob := make([]float64, nl)
	prob := make([]float64, nl)
	rnd := m.fresh
	for t := 0; t < ldNTrial; t++ {
		for j := range prob {
			prob[j] = 1.0 / float64(nl)
		}
		g := m.gauss0
		if t > 0 {
			g = rnd.gauss()
		}
		alpha := ldAlpha + g*ldAlphaWidth
		weight := alpha / ldBaseFreq
		for i := 0; ; i++ {
			li := int(ngrams[rnd.randBelow(len(ngrams))])
			row := rows[li*nl : li*nl+nl]
			for j := range prob {
				prob[j] *= weight + row[j]
			}
			if i%5 == 0 && (normalizeProb(prob) > ldConvThreshold || i >= ldIterationLimit) {
				break
			}
		}
		for j := range langprob {
			langprob[j] += prob[j] / ldNTrial
		}
	}

	var out []langProb
	for j, p := range langprob {
		if p > ldProbThreshold {
			out = append(out, langProb{m.langs[j], p})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].prob > out[b].prob })
	return out, nil
}

// normalizeProb is Detector._normalize_prob: probabilities over their sum (Python 3.12's
// compensated sum()), returning the largest.
func normalizeProb(prob []float64) float64 {
	sum := pySum(prob)
	maxp := 0.0
	for i, p := range prob {
		p /= sum
		if maxp < p {
			maxp = p
		}
		prob[i] = p
	}
	return maxp
}

// pySum is CPython 3.12's sum() over floats: Neumaier's compensated summation, the first
// element taken as is.
func pySum(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s, c := xs[0], 0.0
	for _, x := range xs[1:] {
		t := s + x
		if math.Abs(s) >= math.Abs(x) {
			c += (s - t) + x
		} else {
			c += (x - t) + s
		}
		s = t
	}
	if c != 0 && !math.IsInf(c, 0) && !math.IsNaN(c) {
		s += c
	}
	return s
}
