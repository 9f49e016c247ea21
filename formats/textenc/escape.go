package textenc

import (
	"bytes"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/korean"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// detect7Bit names the 7-bit escape encodings of East Asian mail and text (RFC 1468 ISO-2022-JP,
// RFC 1557 ISO-2022-KR, RFC 1843 HZ), which are valid ASCII and so would pass for UTF-8: their
// escape sequences are unambiguous, "" when there are none.
func detect7Bit(data []byte) string {
	sample := data
	if len(sample) > 64<<10 {
		sample = sample[:64<<10]
	}
	for _, c := range sample {
		if c >= 0x80 {
			return ""
		}
	}
	switch {
	case bytes.Contains(sample, []byte("\x1b$)C")):
		return "iso-2022-kr"
	case bytes.Contains(sample, []byte("\x1b$B")), bytes.Contains(sample, []byte("\x1b$@")), bytes.Contains(sample, []byte("\x1b(J")):
		return "iso-2022-jp"
	}
	// HZ: "~{" opens GB2312 pairs (each byte 0x21-0x7E) and "~}" closes them; several such
	// runs are needed so that a tilde in ASCII prose is not taken for one.
	runs := 0
	for rest := sample; ; {
		i := bytes.Index(rest, []byte("~{"))
		if i < 0 {
			break
		}
		rest = rest[i+2:]
		j := bytes.Index(rest, []byte("~}"))
		if j < 2 || j%2 != 0 {
			return ""
		}
		for _, c := range rest[:j] {
			if c < 0x21 || c > 0x7e {
				return ""
			}
		}
		runs++
		rest = rest[j+2:]
	}
	if runs >= 1 {
		return "hz-gb-2312"
	}
	return ""
}

// iso2022KR is RFC 1557's encoding: KS X 1001 pairs between SO and SI, ASCII elsewhere. Its
// decoder shifts the pairs up to EUC-KR and decodes that.
type iso2022KR struct{}

func (iso2022KR) NewDecoder() *encoding.Decoder {
	return &encoding.Decoder{Transformer: transform.Chain(&kr2EUC{}, korean.EUCKR.NewDecoder())}
}

func (iso2022KR) NewEncoder() *encoding.Encoder { return xunicode.UTF8.NewEncoder() }

type kr2EUC struct{ shifted bool }

func (t *kr2EUC) Reset() { t.shifted = false }

func (t *kr2EUC) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	for nSrc < len(src) {
		c := src[nSrc]
		if c == 0x1b {
			// The designator ESC $ ) C appears once, in the header; it is dropped.
			if len(src)-nSrc < 4 && !atEOF {
				return nDst, nSrc, transform.ErrShortSrc
			}
			if bytes.HasPrefix(src[nSrc:], []byte("\x1b$)C")) {
				nSrc += 4
				continue
			}
		}
		if nDst >= len(dst) {
			return nDst, nSrc, transform.ErrShortDst
		}
		switch {
		case c == 0x0e:
			t.shifted = true
			nSrc++
			continue
		case c == 0x0f:
			t.shifted = false
			nSrc++
			continue
		case c == '\n':
			t.shifted = false // each line starts in ASCII
		case t.shifted && c >= 0x21 && c <= 0x7e:
			c |= 0x80
		}
		dst[nDst] = c
		nDst++
		nSrc++
	}
	return nDst, nSrc, nil
}
