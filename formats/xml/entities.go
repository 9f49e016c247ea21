package xml

import (
	"bufio"
	"bytes"
	"html"
	"io"
	"regexp"
)

// entityReader passes XML through, rewriting the entity references a strict parser would
// refuse so their text is kept: names HTML knows (&ldquo;, &lsqb;, &nbsp;) become their
// characters, other unknown names (declared in an external DTD that is never fetched) stay as
// literal text, and a bare "&" is kept as "&". The predefined entities, character references
// and entities declared in the internal subset pass unchanged (the decoder reads the latter
// as empty: they are never expanded). Comments, CDATA sections, processing instructions and
// the DOCTYPE pass untouched.
type entityReader struct {
	in       *bufio.Reader
	out      bytes.Buffer
	declared map[string]bool
	err      error
}

func newEntityReader(r io.Reader) *entityReader {
	return &entityReader{in: bufio.NewReaderSize(r, 64<<10), declared: map[string]bool{}}
}

var predefined = map[string]bool{"amp": true, "lt": true, "gt": true, "apos": true, "quot": true}

var internalEntity = regexp.MustCompile(`<!ENTITY\s+([^\s%]+)`)

// maxEntityName bounds how far a reference's name is looked for after "&".
const maxEntityName = 64

func (e *entityReader) Read(p []byte) (int, error) {
	for e.out.Len() < len(p) && e.err == nil {
		e.err = e.step()
	}
	n, _ := e.out.Read(p)
	if n == 0 && e.err != nil {
		return 0, e.err
	}
	return n, nil
}

// step moves one run of plain text, or one piece of markup or one reference, to out.
func (e *entityReader) step() error {
	if e.in.Buffered() == 0 {
		if _, err := e.in.Peek(1); err != nil {
			return err
		}
	}
	buf, _ := e.in.Peek(e.in.Buffered())
	if i := bytes.IndexAny(buf, "<&"); i != 0 {
		if i < 0 {
			i = len(buf)
		}
		e.out.Write(buf[:i])
		_, err := e.in.Discard(i)
		return err
	}
	b, _ := e.in.ReadByte()
	if b == '&' {
		return e.reference()
	}
	e.out.WriteByte('<')
	head, _ := e.in.Peek(8)
	switch {
	case bytes.HasPrefix(head, []byte("!--")):
		return e.copyUntil([]byte("-->"))
	case bytes.HasPrefix(head, []byte("![CDATA[")):
		return e.copyUntil([]byte("]]>"))
	case bytes.HasPrefix(head, []byte("?")):
		return e.copyUntil([]byte("?>"))
	case bytes.HasPrefix(head, []byte("!")):
		return e.directive()
	}
	// An ordinary tag: scanning goes on (attribute values get references rewritten as text).
	return nil
}

func (e *entityReader) copyUntil(end []byte) error {
	var tail []byte
	for {
		b, err := e.in.ReadByte()
		if err != nil {
			return err
		}
		e.out.WriteByte(b)
		tail = append(tail, b)
		if len(tail) > len(end) {
			tail = tail[1:]
		}
		if bytes.Equal(tail, end) {
			return nil
		}
	}
}

// directive copies a "<!…>" declaration (DOCTYPE with its internal subset), honouring quotes,
// brackets and comments, and records the entities it declares.
func (e *entityReader) directive() error {
	var buf bytes.Buffer
	buf.WriteByte('<')
	e.out.Truncate(e.out.Len() - 1) // the "<" is kept in buf with the rest
	depth := 0
	var quote byte
	for {
		b, err := e.in.ReadByte()
		if err != nil {
			e.out.Write(buf.Bytes())
			return err
		}
		buf.WriteByte(b)
		switch {
		case quote != 0:
			if b == quote {
				quote = 0
			}
		case b == '"' || b == '\'':
			quote = b
		case b == '[':
			depth++
		case b == ']':
			depth--
		case b == '-' && bytes.HasSuffix(buf.Bytes(), []byte("<!--")):
			// A comment inside the subset may hold quotes or brackets.
			for !bytes.HasSuffix(buf.Bytes(), []byte("-->")) {
				c, err := e.in.ReadByte()
				if err != nil {
					e.out.Write(buf.Bytes())
					return err
				}
				buf.WriteByte(c)
			}
		case b == '>' && depth <= 0:
			for _, m := range internalEntity.FindAllSubmatch(buf.Bytes(), -1) {
				e.declared[string(m[1])] = true
			}
			e.out.Write(buf.Bytes())
			return nil
		}
	}
}

// reference handles the input after an "&".
func (e *entityReader) reference() error {
	head, _ := e.in.Peek(maxEntityName + 2)
	if len(head) > 0 && head[0] == '#' {
		e.out.WriteByte('&')
		return nil
	}
	n := 0
	for n < len(head) && isNameByte(head[n], n == 0) {
		n++
	}
	if n == 0 || n >= len(head) || head[n] != ';' {
		e.out.WriteString("&amp;") // a bare ampersand
		return nil
	}
	name := string(head[:n])
	if predefined[name] || e.declared[name] {
		e.out.WriteByte('&')
		return nil
	}
	e.in.Discard(n + 1)
	ref := "&" + name + ";"
	if s := html.UnescapeString(ref); s != ref {
		e.out.WriteString(html.EscapeString(s))
		return nil
	}
	e.out.WriteString("&amp;" + name + ";")
	return nil
}

func isNameByte(b byte, first bool) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', b == '_', b == ':', b >= 0x80:
		return true
	case '0' <= b && b <= '9', b == '-', b == '.':
		return !first
	}
	return false
}
