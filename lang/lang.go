// Package lang computes the languages metadata of elements the way the reference does
// (partition-api.md §11): request languages are normalised to ISO 639-3 codes, and when none
// are given they are detected, on the whole document first and per element when the document
// is not clearly in one language. Short pure-ASCII texts are English by rule.
//
// Detection uses whatlanggo (trigram profiles, pure Go, small) restricted to the languages the
// reference's detector (langdetect) knows, so both pick from the same set.
package lang

import (
	"strings"

	"github.com/abadojack/whatlanggo"

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

// isShortASCII is the reference's English-by-rule test: pure ASCII and fewer than five
// white-space separated words.
func isShortASCII(s string) bool {
	words, in := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1f) {
			in = false
			continue
		}
		if !in {
			words++
			in = true
			if words >= 5 {
				// Still must check that the rest is ASCII, but the answer is now false.
				return false
			}
		}
	}
	return true
}

// maxDetectBytes bounds the text handed to the detector: trigram statistics settle long
// before that, and documents can be very large (langdetect itself samples).
const maxDetectBytes = 64 << 10

// detectable are the languages of the reference's detector (langdetect's 55 profiles) that
// whatlanggo also knows; detection chooses among these only.
var detectable = func() whatlanggo.Options {
	wl := map[whatlanggo.Lang]bool{}
	for _, c := range []string{"afr", "arb", "bul", "ben", "ces", "dan", "deu", "ell", "eng",
		"spa", "est", "pes", "fin", "fra", "guj", "heb", "hin", "hrv", "hun", "ind", "ita", "jpn",
		"kan", "kor", "lit", "lav", "mkd", "mal", "mar", "nep", "nld", "nob", "pan", "pol", "por",
		"ron", "rus", "slv", "som", "swe", "tam", "tel", "tha", "tgl", "tur", "ukr", "urd", "vie",
		"cmn"} {
		if l := whatlanggo.CodeToLang(c); l.Iso6393() == c {
			wl[l] = true
		}
	}
	return whatlanggo.Options{Whitelist: wl}
}()

// Detect returns the languages of text as ISO 639-3 codes, most likely first: ["eng"] for
// short ASCII text, nil when nothing can be detected.
func Detect(text string) []string {
	return detect(text, nil)
}

func detect(text string, given []string) []string {
	if isShortASCII(text) {
		return []string{"eng"}
	}
	if len(given) > 0 {
		return append([]string(nil), given...)
	}
	if len(text) > maxDetectBytes {
		text = text[:maxDetectBytes]
		for len(text) > 0 && text[len(text)-1]&0xC0 == 0x80 {
			text = text[:len(text)-1]
		}
		if len(text) > 0 && text[len(text)-1] >= 0x80 {
			text = text[:len(text)-1]
		}
	}
	l := whatlanggo.DetectLangWithOptions(text, detectable)
	if l < 0 {
		return nil
	}
	// Read through the two-letter code so that individual languages of a macrolanguage come
	// out as the macrolanguage, as from langdetect (cmn → zho, arb → ara, pes → fas).
	code := l.Iso6391()
	if code == "" {
		code = l.Iso6393()
	}
	if strings.HasPrefix(code, "zh") {
		return []string{"zho"}
	}
	if c, ok := iso639[code]; ok {
		return []string{c}
	}
	return nil
}

// Apply sets Metadata.Languages on every element, per §11: `[""]` leaves them unset; request
// languages (or detection when none is usable) are evaluated on the whole document text, and
// if that yields exactly one language every element gets it; otherwise each element is
// evaluated on its own text. The short-ASCII rule applies before request languages, both
// for the document and for each element.
func Apply(elems []element.Element, requested []string) {
	if Disabled(requested) || len(elems) == 0 {
		return
	}
	var given []string
	if !isAuto(requested) {
		given = Codes(requested)
	}
	var b strings.Builder
	for i := range elems {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(elems[i].Text)
		if b.Len() > maxDetectBytes {
			break // detection reads a bounded prefix; the short-ASCII rule fails anyway
		}
	}
	doc := detect(b.String(), given)
	if len(doc) == 1 {
		for i := range elems {
			elems[i].Metadata.Languages = []string{doc[0]}
		}
		return
	}
	for i := range elems {
		elems[i].Metadata.Languages = detect(elems[i].Text, given)
	}
}
