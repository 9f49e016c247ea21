package html

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gogs/chardet"
	nethtml "golang.org/x/net/html"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"

	"github.com/quarrydocs/quarry/engine"
)

// pythonAliases maps names the reference (Python codecs) accepts but the WHATWG index either
// does not know or maps differently: WHATWG decodes "iso-8859-1" and "ascii" as windows-1252,
// Python as true Latin-1.
var pythonAliases = map[string]encoding.Encoding{
	"latin-1":    charmap.ISO8859_1,
	"latin1":     charmap.ISO8859_1,
	"iso-8859-1": charmap.ISO8859_1,
	"iso8859-1":  charmap.ISO8859_1,
	"l1":         charmap.ISO8859_1,
	"utf8":       unicode.UTF8,
	"utf-8-sig":  unicode.UTF8BOM,
	"utf-16":     unicode.UTF16(unicode.LittleEndian, unicode.UseBOM),
	"utf-16-le":  unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM),
	"utf-16-be":  unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM),
	"cp437":      charmap.CodePage437,
	"cp850":      charmap.CodePage850,
	"mac-roman":  charmap.Macintosh,
}

// NormalizeEncodingName applies the reference's normalisation of an encoding name: lower case,
// "_" → "-", and the directional suffix of the annotated ISO-8859-6/8 names dropped.
func NormalizeEncodingName(name string) string {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
	switch n {
	case "iso-8859-6-i", "iso-8859-6-e", "iso-8859-8-i", "iso-8859-8-e":
		n = n[:len(n)-2]
	}
	return n
}

// LookupEncoding resolves an encoding name the way a request's encoding parameter is resolved.
// An unknown name gives a BadRequest error whose message is "unknown encoding: <name>".
func LookupEncoding(name string) (encoding.Encoding, error) {
	n := NormalizeEncodingName(name)
	if e, ok := pythonAliases[n]; ok {
		return e, nil
	}
	if e, err := htmlindex.Get(n); err == nil && e != nil {
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
	return nil, engine.Errorf(engine.KindBadRequest, "unknown encoding: %s", name)
}

// DecodeText converts document bytes to UTF-8. A non-empty name is honoured strictly (invalid
// bytes are an error, as they are for the reference); an empty name means detect: byte-order
// mark, then a <meta> charset declaration (when meta is true), then UTF-8 if the bytes are
// valid UTF-8, then a statistical guess.
func DecodeText(data []byte, name string, meta bool) ([]byte, error) {
	if name != "" {
		enc, err := LookupEncoding(name)
		if err != nil {
			return nil, err
		}
		return decodeStrict(data, enc, NormalizeEncodingName(name))
	}
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return decodeLenient(data[3:], unicode.UTF8)
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeLenient(data, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM))
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeLenient(data, unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM))
	}
	if meta {
		if label := metaCharset(data); label != "" {
			if enc, err := htmlindex.Get(label); err == nil && enc != nil {
				if n, _ := htmlindex.Name(enc); n == "utf-8" || n == "utf-16le" || n == "utf-16be" {
					// A document that declares UTF-16 in ASCII-compatible bytes is not UTF-16
					// (WHATWG); and a UTF-8 declaration is checked like undeclared text below.
					enc = nil
				}
				if enc != nil {
					return decodeLenient(data, enc)
				}
			}
		}
	}
	if utf8.Valid(data) {
		return data, nil
	}
	return decodeLenient(data, guessEncoding(data))
}

// guessEncoding picks a legacy encoding for bytes that are not UTF-8.
func guessEncoding(data []byte) encoding.Encoding {
	sample := data
	if len(sample) > 64<<10 {
		sample = sample[:64<<10]
	}
	if res, err := chardet.NewHtmlDetector().DetectBest(sample); err == nil && res != nil {
		if e, err := htmlindex.Get(strings.ToLower(res.Charset)); err == nil && e != nil {
			if n, _ := htmlindex.Name(e); n != "utf-8" {
				return e
			}
		}
	}
	return charmap.Windows1252
}

func decodeLenient(data []byte, enc encoding.Encoding) ([]byte, error) {
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return nil, fmt.Errorf("html: decode: %w", err)
	}
	return out, nil
}

// decodeStrict decodes with a declared encoding and reports bytes that are invalid in it.
func decodeStrict(data []byte, enc encoding.Encoding, name string) ([]byte, error) {
	if n, _ := htmlindex.Name(enc); n == "utf-8" || enc == unicode.UTF8 || enc == unicode.UTF8BOM {
		data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
		if !utf8.Valid(data) {
			off := invalidUTF8Offset(data)
			return nil, engine.Errorf(engine.KindUnprocessable,
				"'%s' codec can't decode byte 0x%02x in position %d: invalid bytes for the declared encoding",
				name, data[off], off)
		}
		return data, nil
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return nil, engine.Errorf(engine.KindUnprocessable, "'%s' codec can't decode the document: %v", name, err)
	}
	// x/text decoders substitute U+FFFD for invalid sequences instead of failing. An encoding
	// that cannot itself represent U+FFFD can only have produced it from invalid bytes.
	if bytes.Contains(out, []byte("\uFFFD")) {
		if _, err := enc.NewEncoder().String("\uFFFD"); err != nil {
			return nil, engine.Errorf(engine.KindUnprocessable,
				"'%s' codec can't decode the document: invalid bytes for the declared encoding", name)
		}
	}
	return out, nil
}

func invalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

// metaCharset finds a charset declared by an XML declaration (XHTML) or a <meta> tag in the
// first KiB of an HTML document (the WHATWG prescan window).
func metaCharset(data []byte) string {
	head := data
	if len(head) > 1024 {
		head = head[:1024]
	}
	if decl, ok := bytes.CutPrefix(head, []byte("<?xml")); ok {
		if end := bytes.Index(decl, []byte("?>")); end > 0 {
			decl = decl[:end]
			if i := bytes.Index(decl, []byte("encoding=")); i >= 0 {
				v := decl[i+len("encoding="):]
				if len(v) > 1 && (v[0] == '"' || v[0] == '\'') {
					if j := bytes.IndexByte(v[1:], v[0]); j > 0 {
						return string(v[1 : 1+j])
					}
				}
			}
		}
	}
	z := nethtml.NewTokenizer(bytes.NewReader(head))
	for {
		tt := z.Next()
		if tt == nethtml.ErrorToken {
			return ""
		}
		if tt != nethtml.StartTagToken && tt != nethtml.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if string(name) != "meta" || !hasAttr {
			continue
		}
		var charset, httpEquiv, content string
		for {
			k, v, more := z.TagAttr()
			switch strings.ToLower(string(k)) {
			case "charset":
				charset = string(v)
			case "http-equiv":
				httpEquiv = strings.ToLower(string(v))
			case "content":
				content = string(v)
			}
			if !more {
				break
			}
		}
		if charset != "" {
			return strings.TrimSpace(charset)
		}
		if httpEquiv == "content-type" {
			if i := strings.Index(strings.ToLower(content), "charset="); i >= 0 {
				cs := strings.Trim(content[i+len("charset="):], ` "';`)
				if j := strings.IndexAny(cs, " ;\"'"); j >= 0 {
					cs = cs[:j]
				}
				if cs != "" {
					return cs
				}
			}
		}
	}
}
