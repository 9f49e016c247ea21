//go:build cgo

package ocr

import (
	"strings"
	"sync"

	"github.com/otiai10/gosseract/v2"

	"github.com/quarrydocs/quarry/contract"
)

var installed = sync.OnceValues(gosseract.GetAvailableLanguages)

// checkLanguages answers a request for a language pack that is not installed with a clear
// error rather than a Tesseract initialisation failure, and returns the packs to load. A
// language is expanded to all its packs (kor → kor+kor_vert, §7.6), but distributions ship
// them separately (Debian: tesseract-ocr-kor, tesseract-ocr-kor-vert): a pack missing beside
// an installed one of the same language is left out, as Tesseract itself skips a secondary
// language it cannot load, so "ko" reads Korean where only kor is installed. A language none
// of whose packs is installed is the error.
func checkLanguages(langs string) (string, error) {
	have, err := installed()
	if err != nil {
		return langs, nil // let Tesseract report it
	}
	return usableLanguages(langs, have)
}

func usableLanguages(langs string, have []string) (string, error) {
	isInstalled := func(l string) bool {
		for _, h := range have {
			if h == l {
				return true
			}
		}
		return false
	}
	lang := func(pack string) string { code, _, _ := strings.Cut(pack, "_"); return code }
	var use, missing []string
	for _, l := range strings.Split(langs, "+") {
		if isInstalled(l) {
			use = append(use, l)
			continue
		}
		sibling := false
		for _, h := range have {
			if h != "osd" && lang(h) == lang(l) && strings.Contains("+"+langs+"+", "+"+h+"+") {
				sibling = true
			}
		}
		if !sibling {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		return strings.Join(use, "+"), nil
	}
	pkgs := make([]string, len(missing))
	for i, m := range missing {
		pkgs[i] = "tesseract-ocr-" + strings.ReplaceAll(m, "_", "-")
	}
	return "", contract.Errorf(contract.KindBadRequest, "OCR language packs not installed: %s (installed: %s; install %s)",
		strings.Join(missing, ", "), strings.Join(have, ", "), strings.Join(pkgs, " "))
}
