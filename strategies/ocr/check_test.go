//go:build cgo

package ocr

import (
	"strings"
	"testing"
)

// TestUsableLanguages: a language's packs missing beside an installed one are left out (ko →
// kor+kor_vert reads with kor alone); a language with no pack installed is a clear error
// naming the Debian package.
func TestUsableLanguages(t *testing.T) {
	have := []string{"deu", "eng", "kor", "osd"}
	for _, c := range []struct{ in, want, err string }{
		{"eng", "eng", ""},
		{"kor+kor_vert", "kor", ""},
		{TesseractLanguages([]string{"ko"}, nil), "kor", ""},
		{TesseractLanguages([]string{"de", "en"}, nil), "deu+eng", ""},
		{"deu+fra", "", "fra (installed: deu, eng, kor, osd; install tesseract-ocr-fra)"},
		{"chi_sim+chi_sim_vert", "", "chi_sim, chi_sim_vert"},
		{"osd_vert", "", "osd_vert"},
	} {
		got, err := usableLanguages(c.in, have)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one naming %q", c.in, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
