//go:build cgo

package ocr

import (
	"strings"
)

// tesseractPacks are the language and script packs Tesseract publishes (tessdata 4.x).
var tesseractPacks = strings.Fields(`afr amh ara asm aze aze_cyrl bel ben bod bos bre bul cat ceb ces
chi_sim chi_sim_vert chi_tra chi_tra_vert chr cos cym dan deu div dzo ell eng enm epo equ est eus
fao fas fil fin fra frk frm fry gla gle glg grc guj hat heb hin hrv hun hye iku ind isl ita
ita_old jav jpn jpn_vert kan kat kat_old kaz khm kir kmr kor kor_vert lao lat lav lit ltz mal mar
mkd mlt mon mri msa mya nep nld nor oci ori osd pan pol por pus que ron rus san sin slk slv snd
spa spa_old sqi srp srp_latn sun swa swe syr tam tat tel tgk tha tir ton tur uig ukr urd uzb
uzb_cyrl vie yid yor`)

// languageNames maps English language names to codes, as the reference does before anything
// else (partition-api.md §7.6).
var languageNames = map[string]string{
	"afrikaans": "afr", "amharic": "amh", "arabic": "ara", "bengali": "ben", "bulgarian": "bul",
	"catalan": "cat", "chinese": "chi_sim", "czech": "ces", "danish": "dan", "dutch": "nld",
	"english": "eng", "estonian": "est", "finnish": "fin", "french": "fra", "german": "deu",
	"greek": "ell", "hebrew": "heb", "hindi": "hin", "hungarian": "hun", "icelandic": "isl",
	"indonesian": "ind", "italian": "ita", "japanese": "jpn", "korean": "kor", "latin": "lat",
	"latvian": "lav", "lithuanian": "lit", "malay": "msa", "norwegian": "nor", "persian": "fas",
	"polish": "pol", "portuguese": "por", "romanian": "ron", "russian": "rus", "serbian": "srp",
	"slovak": "slk", "slovenian": "slv", "spanish": "spa", "swahili": "swa", "swedish": "swe",
	"tamil": "tam", "thai": "tha", "turkish": "tur", "ukrainian": "ukr", "urdu": "urd",
	"vietnamese": "vie", "welsh": "cym",
}

// iso639 maps ISO 639-1 codes to their 639-2/T (= 639-3) and 639-2/B forms; other 3-letter
// codes are taken as given.
var iso639 = map[string][]string{
	"af": {"afr"}, "am": {"amh"}, "ar": {"ara"}, "as": {"asm"}, "az": {"aze"}, "be": {"bel"},
	"bn": {"ben"}, "bo": {"bod", "tib"}, "bs": {"bos"}, "br": {"bre"}, "bg": {"bul"}, "ca": {"cat"},
	"cs": {"ces", "cze"}, "zh": {"zho", "chi"}, "co": {"cos"}, "cy": {"cym", "wel"}, "da": {"dan"},
	"de": {"deu", "ger"}, "dv": {"div"}, "dz": {"dzo"}, "el": {"ell", "gre"}, "en": {"eng"},
	"eo": {"epo"}, "et": {"est"}, "eu": {"eus", "baq"}, "fo": {"fao"}, "fa": {"fas", "per"},
	"fi": {"fin"}, "fr": {"fra", "fre"}, "fy": {"fry"}, "gd": {"gla"}, "ga": {"gle"}, "gl": {"glg"},
	"gu": {"guj"}, "ht": {"hat"}, "he": {"heb"}, "hi": {"hin"}, "hr": {"hrv"}, "hu": {"hun"},
	"hy": {"hye", "arm"}, "iu": {"iku"}, "id": {"ind"}, "is": {"isl", "ice"}, "it": {"ita"},
	"jv": {"jav"}, "ja": {"jpn"}, "kn": {"kan"}, "ka": {"kat", "geo"}, "kk": {"kaz"}, "km": {"khm"},
	"ky": {"kir"}, "ko": {"kor"}, "lo": {"lao"}, "la": {"lat"}, "lv": {"lav"}, "lt": {"lit"},
	"lb": {"ltz"}, "ml": {"mal"}, "mr": {"mar"}, "mk": {"mkd", "mac"}, "mt": {"mlt"}, "mn": {"mon"},
	"mi": {"mri", "mao"}, "ms": {"msa", "may"}, "my": {"mya", "bur"}, "ne": {"nep"},
	"nl": {"nld", "dut"}, "no": {"nor"}, "nb": {"nob", "nor"}, "oc": {"oci"}, "or": {"ori"},
	"pa": {"pan"}, "pl": {"pol"}, "pt": {"por"}, "ps": {"pus"}, "qu": {"que"}, "ro": {"ron", "rum"},
	"ru": {"rus"}, "sa": {"san"}, "si": {"sin"}, "sk": {"slk", "slo"}, "sl": {"slv"}, "sd": {"snd"},
	"es": {"spa"}, "sq": {"sqi", "alb"}, "sr": {"srp"}, "su": {"sun"}, "sw": {"swa"}, "sv": {"swe"},
	"ta": {"tam"}, "tt": {"tat"}, "te": {"tel"}, "tg": {"tgk"}, "th": {"tha"}, "ti": {"tir"},
	"tl": {"tgl", "fil"}, "to": {"ton"}, "tr": {"tur"}, "ug": {"uig"}, "uk": {"ukr"}, "ur": {"urd"},
	"uz": {"uzb"}, "vi": {"vie"}, "yi": {"yid"}, "yo": {"yor"},
}

// TesseractLanguages maps request languages (languages, else the deprecated ocr_languages) to a
// Tesseract language string as the reference does (§7.6): names to codes, full pack names kept,
// ISO codes expanded to every pack of the language, duplicates removed, "eng" when nothing is left.
func TesseractLanguages(languages, ocrLanguages []string) string {
	req := languages
	if len(nonEmpty(req)) == 0 {
		req = nil
		for _, l := range ocrLanguages {
			req = append(req, strings.Split(l, "+")...)
		}
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, l := range req {
		l = strings.ToLower(strings.Trim(strings.TrimSpace(l), `"'[]`))
		if l == "" {
			continue
		}
		if c, ok := languageNames[l]; ok {
			l = c
		}
		// A full pack name (chi_sim, aze_cyrl) is kept; a bare code, even one that is also a
		// pack (kor), brings every pack of the language (kor+kor_vert), as the reference does.
		if isPack(l) && strings.Contains(l, "_") {
			add(l)
			continue
		}
		codes := iso639[l]
		if len(l) == 3 {
			codes = append([]string{l}, codes...)
			for two, cs := range iso639 {
				for _, c := range cs {
					if c == l {
						codes = append(codes, iso639[two]...)
					}
				}
			}
		}
		for _, c := range codes {
			for _, p := range tesseractPacks {
				if p == c || strings.HasPrefix(p, c+"_") {
					add(p)
				}
			}
		}
	}
	if len(out) == 0 {
		return "eng"
	}
	return strings.Join(out, "+")
}

func isPack(s string) bool {
	for _, p := range tesseractPacks {
		if p == s {
			return true
		}
	}
	return false
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
