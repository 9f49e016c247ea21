package email

import (
	"bytes"
	"encoding/base64"
	"mime"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/formats/textenc"
)

// Limits of the MIME reader. A message is parsed from one byte slice with sub-slices for the
// parts, so memory is bounded by the input; what a hostile message can still multiply is the
// work of finding boundaries (every nesting level rescans its body) and the number of parts.
const (
	// maxParts bounds the parts of one message, however they are nested.
	maxParts = 10000
	// scanBudgetBase and scanBudgetFactor bound the bytes the boundary search scans: a normal
	// message scans each byte once per nesting level, a handful of times.
	scanBudgetBase   = 64 << 20
	scanBudgetFactor = 16
)

// header holds a part's header fields by lower-case name, values unfolded, in order.
type header map[string][]string

func (h header) get(name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// part is one node of the MIME tree. Its body is a sub-slice of the message, still
// transfer-encoded; it is decoded only when the part is used (the chosen body, attachments).
type part struct {
	header header
	// contentType is the media type in lower case, "" when the part declares none.
	contentType string
	params      map[string]string
	disposition string
	fileName    string
	body        []byte
	children    []*part
}

// mimeReader builds the part tree of one message and carries the limits' counters.
type mimeReader struct {
	limit, budget int
	parts         int
}

func newMIMEReader(size int) *mimeReader {
	n := scanBudgetBase + scanBudgetFactor*size
	return &mimeReader{limit: n, budget: n}
}

// parse reads one entity — header, then body — and, for a multipart, its children. The root
// defaults to text/plain as RFC 2045 says; a child without Content-Type keeps "" (text/plain
// too, for the body search).
func (r *mimeReader) parse(data []byte, depth int) (*part, error) {
	r.parts++
	if r.parts > maxParts {
		return nil, contract.Errorf(contract.KindUnprocessable, "email: message has more than %d MIME parts", maxParts)
	}
	h, body := parseHeader(data)
	p := &part{header: h, body: body}
	ct := h.get("content-type")
	if ct == "" && depth == 0 {
		ct = "text/plain"
	}
	p.contentType, p.params = parseMediaType(ct)
	if main, sub, ok := strings.Cut(p.contentType, "/"); ct != "" && (!ok || main == "" || sub == "" || strings.Contains(sub, "/")) {
		// RFC 2045 §5.2: a Content-Type that does not parse means text/plain.
		p.contentType = "text/plain"
	}
	var dparams map[string]string
	p.disposition, dparams = parseMediaType(h.get("content-disposition"))
	for _, v := range []string{dparams["filename"], p.params["name"], p.params["file"]} {
		if v != "" {
			p.fileName = decodeHeader(v)
			break
		}
	}
	if !strings.HasPrefix(p.contentType, "multipart/") {
		return p, nil
	}
	boundary := p.params["boundary"]
	if boundary == "" {
		// A multipart without a boundary cannot be split; its body is the only content there
		// is, so it is read as text rather than dropped.
		p.contentType = "text/plain"
		return p, nil
	}
	if depth >= maxMultiparts {
		return p, nil
	}
	raw, err := r.split(body, boundary)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 && len(bytes.TrimSpace(body)) > 0 {
		// No delimiter line matches the declared boundary (a mistyped or rewritten
		// boundary): the body is still the message's content, read as text, not dropped.
		p.contentType = "text/plain"
		return p, nil
	}
	p.body = nil
	for _, b := range raw {
		c, err := r.parse(b, depth+1)
		if err != nil {
			return nil, err
		}
		if c.contentType == "" && p.contentType == "multipart/digest" {
			c.contentType = "message/rfc822" // RFC 2046 §5.1.5: a digest entry's default
		}
		p.children = append(p.children, c)
	}
	return p, nil
}

// split cuts a multipart body at its delimiter lines ("--boundary" at a line start): the
// preamble before the first and the epilogue after the close ("--boundary--") are dropped, and
// the line break before each delimiter belongs to the delimiter. A body whose close is missing
// (a truncated message) ends its last part at the end of the data.
func (r *mimeReader) split(body []byte, boundary string) ([][]byte, error) {
	dash := []byte("--" + boundary)
	var parts [][]byte
	start := -1 // start of the current part, -1 before the first delimiter
	for pos := 0; pos < len(body); {
		i := bytes.Index(body[pos:], dash)
		if i < 0 {
			r.budget -= len(body) - pos
			break
		}
		r.budget -= i + len(dash)
		if r.budget < 0 {
			return nil, contract.Errorf(contract.KindUnprocessable, "email: MIME structure too costly to parse (nested multiparts rescan more than %d bytes)", r.limit)
		}
		at := pos + i
		pos = at + len(dash)
		if at > 0 && body[at-1] != '\n' {
			continue
		}
		rest := body[pos:]
		closing := bytes.HasPrefix(rest, []byte("--"))
		if closing {
			rest = rest[2:]
		}
		lineEnd, ok := delimiterEnd(rest)
		if !ok {
			continue
		}
		if start >= 0 {
			parts = append(parts, trimEOL(body[start:at]))
		}
		if closing {
			return parts, nil
		}
		start = len(body) - len(rest) + lineEnd
		pos = start
	}
	if start >= 0 && start <= len(body) {
		parts = append(parts, body[start:])
	}
	return parts, nil
}

// delimiterEnd reports whether rest, what follows "--boundary" or "--boundary--" on a line,
// leaves that a delimiter, and the offset just past the line break (len(rest) when there is
// none). Blanks are padding (RFC 2046 §5.1.1). Other junk is tolerated unless it starts with
// a character a boundary may hold: then the line may be a longer boundary's ("--b" and "--b2").
func delimiterEnd(rest []byte) (int, bool) {
	if len(rest) > 0 && isBChar(rest[0]) && rest[0] != ' ' {
		return 0, false
	}
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		return i + 1, true
	}
	return len(rest), true
}

// isBChar reports whether c may appear in a boundary (RFC 2046 §5.1.1 bchars).
func isBChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
		strings.IndexByte("'()+_,-./:=? ", c) >= 0
}

// trimEOL removes one trailing line break, CRLF or LF.
func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// parseHeader reads a header block leniently, as mail readers must: folded lines are joined,
// a "From " mbox separator and fields with unprintable names are skipped, a line without a
// colon between two fields is taken for a badly folded continuation, and any other line
// without a colon ends the header even without a blank line (Python's feedparser does the
// same), so its text is kept as body rather than lost.
func parseHeader(data []byte) (header, []byte) {
	type field struct {
		name       string
		start, end int
	}
	var fields []field
	body := data[len(data):]
	cur := -1
	for pos := 0; pos < len(data); {
		next := len(data)
		line := data[pos:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], pos+i+1
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			body = data[next:]
			next = len(data)
		case line[0] == ' ' || line[0] == '\t':
			if cur >= 0 {
				fields[cur].end = pos + len(line)
			}
		default:
			name, colon := fieldName(line)
			switch {
			case colon > 0:
				fields = append(fields, field{name, pos + colon + 1, pos + len(line)})
				cur = len(fields) - 1
			case colon == 0, bytes.HasPrefix(line, []byte("From ")):
				// A field whose name is not printable ASCII is dropped, as is an mbox
				// separator; what follows still belongs to the header.
				cur = -1
			case cur >= 0 && fieldFollows(data[next:]):
				// A folded line its mailer forgot to indent: a field follows, so the
				// header goes on.
				fields[cur].end = pos + len(line)
			default:
				body = data[pos:]
				next = len(data)
			}
		}
		pos = next
	}
	h := make(header, len(fields))
	for _, f := range fields {
		h[f.name] = append(h[f.name], unfoldBytes(data[f.start:f.end]))
	}
	return h, body
}

// fieldFollows reports whether the next line of data is a header field.
func fieldFollows(data []byte) bool {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	_, colon := fieldName(data)
	return colon > 0
}

// fieldName returns the lower-case name of a "Name: value" line and the colon's offset; blanks
// before the colon are tolerated. The offset is 0 for a line with a colon but a name that is
// empty or not printable ASCII, and -1 for a line without a colon.
func fieldName(line []byte) (string, int) {
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return "", -1
	}
	name := bytes.TrimRight(line[:i], " \t")
	if len(name) == 0 {
		return "", 0
	}
	for _, c := range name {
		if c < 33 || c > 126 {
			return "", 0
		}
	}
	return strings.ToLower(string(name)), i
}

// unfoldBytes joins a folded field value's lines with single spaces.
func unfoldBytes(v []byte) string {
	if bytes.IndexByte(v, '\n') < 0 {
		return string(bytes.TrimSpace(v))
	}
	var b strings.Builder
	for line := range bytes.SplitSeq(v, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.Write(line)
	}
	return b.String()
}

// parseMediaType parses a Content-Type or Content-Disposition value: strictly with the
// standard library first, then, when the value is malformed (unquoted specials, duplicate
// parameters — common in the wild), leniently, so a part keeps its type and file name.
func parseMediaType(v string) (string, map[string]string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	if mt, params, err := mime.ParseMediaType(v); err == nil {
		return mt, params
	}
	segs := splitParams(v)
	// The type is the run of token characters it starts with ("text/plain>" is text/plain).
	mt := strings.ToLower(strings.TrimSpace(segs[0]))
	if i := strings.IndexFunc(mt, func(r rune) bool { return r != '/' && !isTokenChar(r) }); i >= 0 {
		mt = mt[:i]
	}
	params := map[string]string{}
	for _, s := range segs[1:] {
		k, val, ok := strings.Cut(s, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			continue
		}
		val = unquote(strings.TrimSpace(val))
		if base, ext := strings.CutSuffix(k, "*"); ext {
			k, val = base, decodeExtValue(val)
		}
		if _, dup := params[k]; !dup {
			params[k] = val
		}
	}
	return mt, params
}

// isTokenChar reports whether r may appear in an RFC 2045 token.
func isTokenChar(r rune) bool {
	return r > ' ' && r < 0x7f && !strings.ContainsRune(`()<>@,;:\"/[]?=`, r)
}

// splitParams splits a header value on semicolons outside quoted strings.
func splitParams(v string) []string {
	var out []string
	quoted, esc, from := false, false, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case esc:
			esc = false
		case c == '\\' && quoted:
			esc = true
		case c == '"':
			quoted = !quoted
		case c == ';' && !quoted:
			out = append(out, v[from:i])
			from = i + 1
		}
	}
	return append(out, v[from:])
}

func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' {
		return s
	}
	s = strings.TrimSuffix(s[1:], `"`)
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeExtValue decodes an RFC 2231 extended value, charset'language'percent-encoded.
func decodeExtValue(v string) string {
	cs, rest, ok := strings.Cut(v, "'")
	if !ok {
		return v
	}
	_, enc, ok := strings.Cut(rest, "'")
	if !ok {
		return v
	}
	raw, err := url.PathUnescape(enc)
	if err != nil {
		return v
	}
	return decodeCharset([]byte(raw), cs)
}

// content returns the part's body with its transfer encoding undone. Unknown encodings are
// passed through as they are.
func (p *part) content() []byte {
	switch strings.ToLower(strings.TrimSpace(p.header.get("content-transfer-encoding"))) {
	case "base64":
		return decodeBase64(p.body)
	case "quoted-printable":
		return decodeQP(p.body)
	}
	return p.body
}

// text returns the part's content as UTF-8, decoded from its declared charset.
func (p *part) text() string { return decodeCharset(p.content(), p.params["charset"]) }

// isText reports whether the part's content is text (a missing type means text/plain).
func (p *part) isText() bool {
	return p.contentType == "" || strings.HasPrefix(p.contentType, "text/")
}

// decodeBase64 decodes base64 the way mail readers must: characters outside the alphabet
// (line breaks, stray bytes) are skipped, missing padding is accepted, padding in the middle
// of the data ends one encoded block and starts the next (concatenated encodings), and a
// dangling last character is dropped.
func decodeBase64(b []byte) []byte {
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
	// Well-formed base64 — lines of whole quanta, padded at the end — is most of it, and the
	// standard decoder skips its line breaks itself.
	if n, err := base64.StdEncoding.Decode(out, b); err == nil {
		return out[:n]
	}
	out = out[:0]
	quantum := make([]byte, 0, 1024)
	flush := func() {
		if len(quantum)%4 == 1 {
			quantum = quantum[:len(quantum)-1]
		}
		n := len(out)
		out = out[:n+base64.RawStdEncoding.DecodedLen(len(quantum))]
		m, _ := base64.RawStdEncoding.Decode(out[n:], quantum)
		out = out[:n+m]
		quantum = quantum[:0]
	}
	for _, c := range b {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			quantum = append(quantum, c)
			if len(quantum) == cap(quantum) {
				flush() // cap is a multiple of 4: whole quanta only
			}
		case c == '=':
			if len(quantum)%4 >= 2 {
				flush()
			}
		}
	}
	flush()
	return out
}

// decodeQP decodes quoted-printable as Go's mime/quotedprintable does — blanks at line ends
// dropped, "=" before a line break joining lines, line breaks kept as they are — but never
// fails: an "=" not followed by two hex digits and bytes that should have been escaped are
// kept literally.
func decodeQP(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		line := b
		eol := []byte(nil)
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
			eol = []byte("\n")
			if bytes.HasSuffix(line, []byte("\r")) {
				eol = []byte("\r\n")
			}
		} else {
			b = nil
		}
		line = bytes.TrimRight(line, " \t\r")
		if soft := bytes.HasSuffix(line, []byte("=")); soft {
			line, eol = line[:len(line)-1], nil
		}
		for i := 0; i < len(line); i++ {
			c := line[i]
			if c == '=' && i+2 < len(line) && isHex(line[i+1]) && isHex(line[i+2]) {
				out = append(out, unhex(line[i+1])<<4|unhex(line[i+2]))
				i += 2
				continue
			}
			out = append(out, c)
		}
		out = append(out, eol...)
	}
	return out
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// decodeCharset returns data as UTF-8. The declared charset is used as Python's
// get_content() uses it, invalid bytes replaced; a part declared ASCII (or nothing) whose bytes
// are not, or one in a charset nobody knows, has its charset sniffed instead, and UTF-8 that
// is not valid has its bad bytes replaced.
func decodeCharset(data []byte, charset string) string {
	cs := textenc.Normalize(strings.Trim(charset, `"' `))
	if i := strings.LastIndexByte(cs, '='); i >= 0 {
		cs = cs[i+1:] // charset="charset=utf-8" and the like
	}
	switch cs {
	case "", "us-ascii", "ascii", "utf-8", "utf8":
		if utf8.Valid(data) {
			return string(data)
		}
		if cs == "utf-8" || cs == "utf8" {
			break
		}
		cs = textenc.Detect(data)
	default:
		if _, err := textenc.Lookup(cs); err != nil {
			cs = textenc.Detect(data)
		}
	}
	s, err := textenc.DecodeLenient(data, cs)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	return s
}
