// Package lang computes the languages metadata of elements the way the reference does
// (partition-api.md §11): request languages are normalised to ISO 639-3 codes, and when none
// are given they are detected, on the whole document first and per element when the document
// is not clearly in one language. Short pure-ASCII texts are English by rule.
//
// Detection is an exact reimplementation of the reference's detector, Python langdetect 1.0.9
// (Nakatani Shuyo's naive-Bayes n-gram detector) as the reference runs it, seeded with 0: same
// text cleaning, n-gram extraction, Python random stream (MT19937, random(), gauss(), choice())
// and arithmetic, so it returns the same ranked languages. Its 55 language profiles and
// normalisation tables (langdetect.bin) come from langdetect under the Apache License 2.0;
// see LICENSE.langdetect.
package lang

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarrydocs/quarry/element"
)

// names maps the English language names the reference accepts in requests (its Tesseract
// language table) to codes; anything else is read as a code.
var names = map[string]string{
	"afrikaans": "afr", "albanian": "sqi", "amharic": "amh", "arabic": "ara", "armenian": "hye",
	"assamese": "asm", "azerbaijani": "aze", "basque": "eus", "belarusian": "bel",
	"bengali": "ben", "bosnian": "bos", "breton": "bre", "bulgarian": "bul", "burmese": "mya",
	"catalan": "cat", "cebuano": "ceb", "cherokee": "chr", "chinese": "chi_sim",
	"chinese - simplified": "chi_sim", "chinese - traditional": "chi_tra", "corsican": "cos",
	"croatian": "hrv", "czech": "ces", "danish": "dan", "dutch": "nld", "dzongkha": "dzo",
	"english": "eng", "esperanto": "epo", "estonian": "est", "faroese": "fao", "filipino": "fil",
	"finnish": "fin", "french": "fra", "galician": "glg", "georgian": "kat", "german": "deu",
	"greek": "ell", "gujarati": "guj", "haitian": "hat", "hebrew": "heb", "hindi": "hin",
	"hungarian": "hun", "icelandic": "isl", "indonesian": "ind", "inuktitut": "iku",
	"irish": "gle", "italian": "ita", "japanese": "jpn", "javanese": "jav", "kannada": "kan",
	"kazakh": "kaz", "khmer": "khm", "korean": "kor", "kurdish": "kmr", "kyrgyz": "kir",
	"lao": "lao", "latin": "lat", "latvian": "lav", "lithuanian": "lit", "luxembourgish": "ltz",
	"macedonian": "mkd", "malay": "msa", "malayalam": "mal", "maltese": "mlt", "maori": "mri",
	"marathi": "mar", "mongolian": "mon", "nepali": "nep", "norwegian": "nor", "occitan": "oci",
	"oriya": "ori", "pashto": "pus", "persian": "fas", "polish": "pol", "portuguese": "por",
	"punjabi": "pan", "quechua": "que", "romanian": "ron", "russian": "rus", "sanskrit": "san",
	"scottish gaelic": "gla", "serbian": "srp", "sindhi": "snd", "sinhala": "sin",
	"slovak": "slk", "slovenian": "slv", "spanish": "spa", "sundanese": "sun", "swahili": "swa",
	"swedish": "swe", "syriac": "syr", "tagalog": "tgl", "tajik": "tgk", "tamil": "tam",
	"tatar": "tat", "telugu": "tel", "thai": "tha", "tibetan": "bod", "tigrinya": "tir",
	"tonga": "ton", "turkish": "tur", "uighur": "uig", "ukrainian": "ukr", "urdu": "urd",
	"uzbek": "uzb", "vietnamese": "vie", "welsh": "cym", "yiddish": "yid", "yoruba": "yor",
}

// Code returns the ISO 639-3 code for one request entry (an English language name or any ISO
// 639 code, possibly a Tesseract pack name such as "chi_sim"), matched on its first three
// letters as the reference does, and false when it names no language.
func Code(s string) (string, bool) {
	s = strings.ToLower(strings.Trim(strings.TrimSpace(s), `[]'" `))
	if s == "" || s == "auto" {
		return "", false
	}
	if c, ok := names[s]; ok {
		s = c
	}
	if len(s) > 3 {
		s = s[:3]
	}
	c, ok := iso639[s]
	return c, ok
}

// Codes normalises request languages to ISO 639-3 codes, in order, without duplicates.
// Entries may carry quotes or brackets (a JSON list sent as one form value) or join several
// languages with "+" or ","; "auto" and unknown entries are left out.
func Codes(requested []string) []string {
	var out []string
	for _, r := range requested {
		for _, part := range strings.FieldsFunc(r, func(c rune) bool { return c == '+' || c == ',' }) {
			c, ok := Code(part)
			if !ok {
				continue
			}
			dup := false
			for _, o := range out {
				dup = dup || o == c
			}
			if !dup {
				out = append(out, c)
			}
		}
	}
	return out
}

// Disabled reports whether the request turns language metadata off (`languages=[""]`).
func Disabled(requested []string) bool {
	return len(requested) == 1 && strings.TrimSpace(requested[0]) == ""
}

func isAuto(requested []string) bool {
	for _, r := range requested {
		if strings.EqualFold(strings.Trim(strings.TrimSpace(r), `[]'" `), "auto") {
			return true
		}
	}
	return false
}

// isShortASCII is the reference's English-by-rule test: pure ASCII (and not empty) with fewer
// than five white-space separated words.
func isShortASCII(s string) bool {
	n, ascii := countWords(s)
	return s != "" && ascii && n < 5
}

// countWords counts the white-space separated words of s, stopping at five, and reports
// whether s is pure ASCII (as far as it read: it stops at the first non-ASCII byte).
func countWords(s string) (words int, ascii bool) {
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return words, false
		}
		if isPySpace(c) {
			in = false
			continue
		}
		if !in {
			words++
			in = true
			if words >= 5 {
				// The rule has failed; whether the rest is ASCII no longer matters.
				return words, true
			}
		}
	}
	return words, true
}

// isPySpace reports whether an ASCII byte is white space for Python's str.split/strip.
func isPySpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f)
}

// isBlank is the reference's `text.strip() == ""`: nothing but white space (Unicode's, as
// Python's str.isspace has it).
func isBlank(s string) bool {
	for _, r := range s {
		if r < 0x80 {
			if !isPySpace(byte(r)) {
				return false
			}
		} else if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// maxDocBytes bounds the document text assembled for detection. langdetect reads only its first
// 10,000 characters once URLs and e-mail addresses are removed, and the short-ASCII rule fails
// after five words, so the rest cannot change the answer unless the first megabyte is almost
// all URLs.
const maxDocBytes = 1 << 20

// Detect returns the languages of text as ISO 639-3 codes, most likely first, as the
// reference's detect_languages does in auto mode: nil for blank text, ["eng"] for short ASCII
// text, otherwise every language langdetect gives a probability above 0.1 (zh-cn and zh-tw as
// "zho"); nil when the text has no usable n-gram.
func Detect(text string) []string {
	return detect(text, nil)
}

func detect(text string, given []string) []string {
	return detectScanned(text, isBlank(text), isShortASCII(text), given)
}

// detectScanned is detect with the blank and short-ASCII tests already made (on the whole
// document, when text is only its first megabyte).
func detectScanned(text string, blank, short bool, given []string) []string {
	if blank {
		return nil
	}
	if short {
		return []string{"eng"}
	}
	if len(given) > 0 {
		return append([]string(nil), given...)
	}
	res, err := detectLangs(text)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range res {
		code := r.lang
		if strings.HasPrefix(code, "zh") {
			code = "zho"
		} else if c, ok := iso639[code]; ok {
			code = c
		} else {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == code
		}
		if !dup {
			out = append(out, code)
		}
	}
	return out
}

// Apply sets Metadata.Languages on every element, per §11: `[""]` leaves them unset; request
// languages (or detection when none is usable) are evaluated on the whole document text, and
// if that yields exactly one language every element gets it; otherwise each element is
// evaluated on its own text. The short-ASCII rule applies before request languages, both
// for the document and for each element.
func Apply(elems []element.Element, requested []string) {
	s := NewStream(requested)
	for i := range elems {
		if s.Add(elems[i].Text) {
			break
		}
	}
	s.Finish()
	for i := range elems {
		s.Assign(&elems[i])
	}
}

// Stream makes Apply's decision for a document whose elements arrive one at a time, so that a
// caller holds elements back only until the document-level answer is final: once the text
// is neither blank nor short ASCII and detection has its 10,000 characters, more text cannot
// change it, and later elements can be assigned as they come.
type Stream struct {
	disabled bool
	given    []string
	blank    bool
	short    bool
	words    int
	text     strings.Builder // the non-empty texts joined by spaces, up to maxDocBytes
	check    int             // text length at which finality is tested next
	decided  bool
	doc      []string
}

// NewStream starts a document for the request's languages parameter.
func NewStream(requested []string) *Stream {
	s := &Stream{disabled: Disabled(requested), blank: true, short: true, check: ldMaxTextLength}
	if !isAuto(requested) {
		s.given = Codes(requested)
	}
	s.decided = s.disabled
	return s
}

// Add takes the next element's text and reports whether the document-level decision is final.
func (s *Stream) Add(t string) bool {
	if s.decided || t == "" {
		return s.decided
	}
	if s.blank && !isBlank(t) {
		s.blank = false
	}
	if s.short {
		n, ascii := countWords(t)
		s.words += n
		s.short = ascii && s.words < 5
	}
	if s.text.Len() < maxDocBytes {
		if s.text.Len() > 0 {
			s.text.WriteByte(' ')
		}
		if s.text.Len()+len(t) > maxDocBytes {
			n := max(0, maxDocBytes-s.text.Len())
			for n > 0 && !utf8.RuneStart(t[n]) {
				n--
			}
			t = t[:n]
		}
		s.text.WriteString(t)
	}
	if s.blank || s.short {
		return false
	}
	switch {
	case len(s.given) > 0, s.text.Len() >= maxDocBytes:
		s.decide()
	case s.text.Len() >= s.check:
		// Tested at growing lengths so that the cost stays linear in the text held.
		s.check = s.text.Len() + s.text.Len()/4
		if _, final := loadModel().detectorText(s.text.String()); final {
			s.decide()
		}
	}
	return s.decided
}

// Decided reports whether the document-level decision is final.
func (s *Stream) Decided() bool { return s.decided }

// Finish decides with the text seen so far: the end of the document.
func (s *Stream) Finish() {
	if !s.decided {
		s.decide()
	}
}

func (s *Stream) decide() {
	s.doc = detectScanned(s.text.String(), s.blank, s.short, s.given)
	s.decided = true
	s.text = strings.Builder{}
}

// Assign sets e's languages from the document decision, or from e's own text when the
// document has no single language. Add must have reported the decision final, or Finish been
// called.
func (s *Stream) Assign(e *element.Element) {
	switch {
	case s.disabled:
	case len(s.doc) == 1:
		e.Metadata.Languages = []string{s.doc[0]}
	default:
		e.Metadata.Languages = detect(e.Text, s.given)
	}
}
