// Package textenc decodes the bytes of text-based formats (TXT, HTML, XML, CSV, e-mail bodies,
// Markdown) to UTF-8 the way the reference does: a named encoding is applied strictly (an
// unknown name or an undecodable byte is an error), and with no name the charset is detected.
package textenc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gogs/chardet"
	"github.com/quarrydocs/quarry/contract"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
	"golang.org/x/text/transform"
)

// ErrUnknown is wrapped by errors for encoding names that are not known.
var ErrUnknown = errors.New("unknown encoding")

// Errors carry a kind, so that the client's mistake is answered as one: an unknown encoding
// name is a bad parameter (400), bytes the named encoding cannot decode a document that cannot
// be read (422). The messages are the reference's (Python's), which answers both with 500.
func unknownError(name string) error {
	return &contract.Error{Kind: contract.KindBadRequest, Msg: "unknown encoding: " + name, Err: fmt.Errorf("%w: %s", ErrUnknown, name)}
}

func decodeError(format string, args ...any) error {
	return contract.Errorf(contract.KindUnprocessable, format, args...)
}

// Normalize lower-cases a Python-style codec name and turns underscores into dashes.
func Normalize(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
}

// pythonNames are codec names whose Python meaning differs from the WHATWG label table (which
// maps latin-1 to windows-1252) or that WHATWG lacks.
var pythonNames = map[string]encoding.Encoding{
	"latin-1": charmap.ISO8859_1, "latin1": charmap.ISO8859_1, "iso-8859-1": charmap.ISO8859_1,
	"iso8859-1": charmap.ISO8859_1, "l1": charmap.ISO8859_1, "8859": charmap.ISO8859_1,
	"cp1252": charmap.Windows1252, "windows-1252": charmap.Windows1252,
	"utf-8": unicode.UTF8, "utf8": unicode.UTF8, "u8": unicode.UTF8,
	"utf-8-sig": unicode.UTF8BOM,
	"utf-16":    unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM),
	"utf-16-le": unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM),
	"utf-16le":  unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM),
	"utf-16-be": unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM),
	"utf-16be":  unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM),
	// Python's utf-32 without a BOM is the machine's order: little-endian on every platform
	// Quarry targets.
	"utf-32":    utf32.UTF32(utf32.LittleEndian, utf32.UseBOM),
	"utf-32-le": utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM),
	"utf-32le":  utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM),
	"utf-32-be": utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM),
	"utf-32be":  utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM),
	"cp437":     charmap.CodePage437, "cp850": charmap.CodePage850, "mac-roman": charmap.Macintosh,
	// WHATWG maps these 7-bit escape encodings to "replacement" (a web page must not use
	// them); text and mail files do.
	"hz": simplifiedchinese.HZGB2312, "hz-gb-2312": simplifiedchinese.HZGB2312, "hz-gb": simplifiedchinese.HZGB2312,
	"iso-2022-kr": iso2022KR{}, "csiso2022kr": iso2022KR{},
	"cp949": korean.EUCKR, "uhc": korean.EUCKR,
}

// Lookup resolves an encoding name (Python codec names, WHATWG and IANA labels).
func Lookup(name string) (encoding.Encoding, error) {
	n := Normalize(name)
	if e, ok := pythonNames[n]; ok {
		return e, nil
	}
	if n == "ascii" || n == "us-ascii" || n == "646" {
		return asciiEncoding{}, nil
	}
	if e, err := htmlindex.Get(n); err == nil {
		return e, nil
	}
	if e, err := ianaindex.IANA.Encoding(n); err == nil && e != nil {
		return e, nil
	}
	// Python spells code pages "cp1250"; the indexes know "windows-1250".
	if rest, ok := strings.CutPrefix(n, "cp"); ok {
		if e, err := htmlindex.Get("windows-" + rest); err == nil && e != nil {
			return e, nil
		}
	}
	return nil, unknownError(name)
}

// Decode returns the UTF-8 text of data in the named encoding, or, when name is empty, in the
// detected one. It fails on bytes the encoding cannot decode, as Python's strict codecs do.
func Decode(data []byte, name string) (string, error) {
	if name == "" {
		name = Detect(data)
	}
	enc, err := Lookup(name)
	if err != nil {
		return "", err
	}
	if isUTF8(enc) {
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		if pos := invalidUTF8(data); pos >= 0 {
			return "", decodeError("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", data[pos], pos)
		}
		return string(data), nil
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", decodeError("'%s' codec can't decode the input: %w", Normalize(name), err)
	}
	if _, single := enc.(*charmap.Charmap); single && bytes.ContainsRune(out, utf8.RuneError) {
		return "", decodeError("'%s' codec can't decode the input: undefined byte", Normalize(name))
	}
	return string(out), nil
}

// NewReader returns a streaming UTF-8 reader over r in the named encoding ("" = UTF-8 with a
// BOM skipped). Invalid UTF-8 input is reported as an error when it is met.
func NewReader(r io.Reader, name string) (io.Reader, error) {
	if name == "" {
		name = "utf-8"
	}
	enc, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if isUTF8(enc) {
		return &utf8Checker{r: transform.NewReader(r, unicode.BOMOverride(transform.Nop))}, nil
	}
	return transform.NewReader(r, enc.NewDecoder()), nil
}

func isUTF8(e encoding.Encoding) bool { return e == unicode.UTF8 || e == unicode.UTF8BOM }

// Detect guesses the charset of data as the reference's chardet-based sniffing does in spirit:
// a BOM, valid UTF-8, else a statistical guess over the first 64 KiB, else windows-1252 (the
// usual charset of legacy Western text).
func Detect(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		return "utf-8-sig"
	// The UTF-32 little-endian BOM starts with the UTF-16 one, so it is tested first.
	case HasUTF32BOM(data):
		return "utf-32"
	case bytes.HasPrefix(data, []byte("\xff\xfe")), bytes.HasPrefix(data, []byte("\xfe\xff")):
		return "utf-16"
	}
	if n := detect7Bit(data); n != "" {
		return n
	}
	if invalidUTF8(data) < 0 {
		return "utf-8"
	}
	sample := data
	if len(sample) > 64<<10 {
		sample = sample[:64<<10]
	}
	if res, err := chardet.NewTextDetector().DetectBest(sample); err == nil && res != nil {
		if e, err := htmlindex.Get(strings.ToLower(res.Charset)); err == nil && e != nil {
			if n, _ := htmlindex.Name(e); n != "utf-8" {
				return n
			}
		}
	}
	return "cp1252"
}

// HasUTF32BOM reports whether data starts with a UTF-32 byte-order mark (either order).
func HasUTF32BOM(data []byte) bool {
	return bytes.HasPrefix(data, []byte("\xff\xfe\x00\x00")) || bytes.HasPrefix(data, []byte("\x00\x00\xfe\xff"))
}

// DecodeLenient decodes data in a declared (not requested) encoding, replacing invalid bytes.
func DecodeLenient(data []byte, name string) (string, error) {
	enc, err := Lookup(name)
	if err != nil {
		return "", err
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", fmt.Errorf("decode %s: %w", name, err)
	}
	return string(out), nil
}

// invalidUTF8 returns the offset of the first invalid byte, or -1. A multi-byte sequence cut at
// the end of data counts as invalid.
func invalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// utf8Checker passes UTF-8 through and fails on the first invalid sequence. It holds back an
// incomplete sequence at a read boundary until the next read completes it.
type utf8Checker struct {
	r       io.Reader
	carry   []byte
	offset  int64
	pending error
}

func (c *utf8Checker) Read(p []byte) (int, error) {
	if c.pending != nil {
		return 0, c.pending
	}
	if len(p) < 8 {
		return 0, io.ErrShortBuffer
	}
	n := copy(p, c.carry)
	c.carry = c.carry[:0]
	m, err := c.r.Read(p[n:])
	n += m
	data := p[:n]
	end := len(data)
	if err == nil {
		// Hold back a trailing partial rune.
		for k := 1; k <= 3 && k <= end; k++ {
			if utf8.RuneStart(data[end-k]) {
				if !utf8.FullRune(data[end-k:]) {
					c.carry = append(c.carry, data[end-k:]...)
					end -= k
				}
				break
			}
		}
	}
	if pos := invalidUTF8(data[:end]); pos >= 0 {
		c.pending = decodeError("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", data[pos], c.offset+int64(pos))
		c.offset += int64(pos)
		return pos, nil
	}
	if err == io.EOF && len(c.carry) > 0 {
		c.pending = decodeError("'utf-8' codec can't decode bytes in position %d: unexpected end of data", c.offset+int64(end))
	}
	c.offset += int64(end)
	return end, err
}

// asciiEncoding is Python's strict ascii codec.
type asciiEncoding struct{}

func (asciiEncoding) NewDecoder() *encoding.Decoder {
	return &encoding.Decoder{Transformer: asciiDecoder{}}
}
func (asciiEncoding) NewEncoder() *encoding.Encoder { return unicode.UTF8.NewEncoder() }

type asciiDecoder struct{ transform.NopResetter }

func (asciiDecoder) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	for nSrc < len(src) {
		if src[nSrc] >= 0x80 {
			return nDst, nSrc, decodeError("'ascii' codec can't decode byte 0x%02x: ordinal not in range(128)", src[nSrc])
		}
		if nDst >= len(dst) {
			return nDst, nSrc, transform.ErrShortDst
		}
		dst[nDst] = src[nSrc]
		nDst++
		nSrc++
	}
	return nDst, nSrc, nil
}
