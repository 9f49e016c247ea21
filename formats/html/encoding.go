package html

import (
	"bytes"
	"strings"

	nethtml "golang.org/x/net/html"
	"golang.org/x/text/encoding/htmlindex"

	"github.com/quarrydocs/quarry/formats/textenc"
)

// DecodeText converts document bytes to UTF-8. A non-empty name is honoured strictly (invalid
// bytes are an error, as they are for the reference); an empty name means detect: byte-order
// mark, then a <meta> charset declaration (when meta is true), then UTF-8 if the bytes are
// valid UTF-8, then a statistical guess.
func DecodeText(data []byte, name string, meta bool) ([]byte, error) {
	if name != "" {
		s, err := textenc.Decode(data, name)
		return []byte(s), err
	}
	hasBOM := bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) ||
		bytes.HasPrefix(data, []byte{0xFE, 0xFF})
	if meta && !hasBOM {
		if label := metaCharset(data); label != "" {
			if enc, err := htmlindex.Get(label); err == nil && enc != nil {
				// A UTF-16 declaration in ASCII-compatible bytes is not UTF-16 (WHATWG), and a
				// UTF-8 declaration is checked like undeclared text.
				if n, _ := htmlindex.Name(enc); n != "utf-8" && n != "utf-16le" && n != "utf-16be" {
					s, err := textenc.DecodeLenient(data, n)
					return []byte(s), err
				}
			}
		}
	}
	name = textenc.Detect(data)
	if name == "utf-8" {
		return data, nil
	}
	s, err := textenc.DecodeLenient(data, name)
	return []byte(s), err
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
