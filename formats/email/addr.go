package email

import (
	"fmt"
	"io"
	"mime"
	"net/mail"
	"strings"

	"golang.org/x/text/transform"

	"github.com/quarrydocs/quarry/formats/textenc"
)

// wordDecoder decodes RFC 2047 encoded words in any charset the project knows.
func wordDecoder() *mime.WordDecoder {
	return &mime.WordDecoder{CharsetReader: func(charset string, r io.Reader) (io.Reader, error) {
		enc, err := textenc.Lookup(charset)
		if err != nil {
			return nil, fmt.Errorf("email: encoded word: %w", err)
		}
		return transform.NewReader(r, enc.NewDecoder()), nil
	}}
}

// decodeHeader decodes the encoded words of a header value; a value that cannot be decoded (an
// unknown charset) is kept as it is.
func decodeHeader(s string) string {
	if !strings.Contains(s, "=?") {
		return s
	}
	out, err := wordDecoder().DecodeHeader(s)
	if err != nil {
		return s
	}
	return out
}

// parseAddressList parses an address header with net/mail, then tolerates what mailers get
// wrong: a list separated by semicolons or blanks instead of commas is re-read with commas, and
// encoded words inside quoted names (which RFC 2047 forbids and Python decodes anyway) are
// decoded.
func parseAddressList(s string) ([]*mail.Address, error) {
	p := mail.AddressParser{WordDecoder: wordDecoder()}
	list, err := p.ParseList(s)
	if err != nil {
		fixed := commaSeparated(s)
		if fixed == s {
			return nil, err
		}
		if list, err = p.ParseList(fixed); err != nil {
			return nil, err
		}
	}
	for _, a := range list {
		a.Name = decodeHeader(a.Name)
		a.Address = decodeHeader(a.Address)
	}
	return list, nil
}

// commaSeparated rewrites an address list so that its addresses are separated by commas:
// top-level semicolons become commas, and a comma is put after an angle address or a bare
// addr-spec that another address follows without one.
func commaSeparated(s string) string {
	var b strings.Builder
	quoted, esc, angle, comment := false, false, false, 0
	// ended is set when an address has ended and only blanks were seen since.
	ended, bareAt := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case quoted:
			if c == '\\' {
				esc = true
			} else if c == '"' {
				quoted = false
			}
		case comment > 0:
			if c == '(' {
				comment++
			} else if c == ')' {
				comment--
			}
		case angle:
			if c == '>' {
				angle = false
				ended, bareAt = true, false
				b.WriteByte(c)
				continue
			}
		default:
			switch c {
			case ' ', '\t':
				if bareAt {
					ended, bareAt = true, false
				}
				b.WriteByte(c)
				continue
			case ',', ';':
				ended, bareAt = false, false
				b.WriteByte(',')
				continue
			case '(':
				// A comment after an address belongs to it.
				comment++
				b.WriteByte(c)
				continue
			}
			if ended && c != '<' {
				b.WriteString(", ")
			}
			ended = false
			switch c {
			case '"':
				quoted = true
			case '<':
				angle = true
			case '@':
				bareAt = true
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}
