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
// error rather than a Tesseract initialisation failure.
func checkLanguages(langs string) error {
	have, err := installed()
	if err != nil {
		return nil // let Tesseract report it
	}
	var missing []string
	for _, l := range strings.Split(langs, "+") {
		found := false
		for _, h := range have {
			if h == l {
				found = true
			}
		}
		if !found {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	pkgs := make([]string, len(missing))
	for i, m := range missing {
		pkgs[i] = "tesseract-ocr-" + strings.ReplaceAll(m, "_", "-")
	}
	return contract.Errorf(contract.KindBadRequest, "OCR language packs not installed: %s (installed: %s; install %s)",
		strings.Join(missing, ", "), strings.Join(have, ", "), strings.Join(pkgs, " "))
}
