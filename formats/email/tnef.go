package email

import (
	"encoding/binary"
	"errors"
	"strings"

	"github.com/quarrydocs/quarry/formats/html"
)

// Outlook sends a message in its own "rich text" form to recipients it cannot tell apart as
// TNEF ([MS-OXTNEF]): a winmail.dat (application/ms-tnef) that carries the files attached to
// the message and, often, its only formatted body. Other readers see one opaque attachment —
// the reference skips it as an unsupported type, losing every file in it. Here the TNEF stream
// is opened: its attachments become the message's, and its body stands in when the MIME
// message has none.

const tnefSignature = 0x223e9f78

// TNEF attribute IDs (the low word of the attribute's 32-bit ID).
const (
	attBody           = 0x800c
	attAttachData     = 0x800f
	attAttachTitle    = 0x8010
	attAttachRendData = 0x9002
	attMsgProps       = 0x9003
	attAttachment     = 0x9005
	attOemCodepage    = 0x9007
)

// Bounds against hostile streams.
const (
	maxTNEFAttachments = 256
	maxTNEFProps       = 10000
)

var errNotTNEF = errors.New("not a TNEF stream")

// tnefContent is what a TNEF stream carries.
type tnefContent struct {
	html, text  string
	hasHTML     bool
	hasText     bool
	attachments []Attachment
}

// isTNEF reports whether an attachment is a TNEF stream (by its type or Outlook's name, and
// its signature).
func isTNEF(a Attachment) bool {
	ct := strings.ToLower(a.ContentType)
	named := ct == "application/ms-tnef" || ct == "application/vnd.ms-tnef" || strings.EqualFold(a.Name, "winmail.dat")
	return named && len(a.Data) >= 6 && binary.LittleEndian.Uint32(a.Data) == tnefSignature
}

// parseTNEF reads the body and attachments of a TNEF stream. A stream cut short keeps what
// was read before the damage.
func parseTNEF(b []byte) (*tnefContent, error) {
	if len(b) < 6 || binary.LittleEndian.Uint32(b) != tnefSignature {
		return nil, errNotTNEF
	}
	t := &tnefContent{}
	var cur *Attachment
	var cp uint32 = 1252
	flush := func() {
		if cur != nil && len(cur.Data) > 0 && len(t.attachments) < maxTNEFAttachments {
			t.attachments = append(t.attachments, *cur)
		}
		cur = nil
	}
	var rtf []byte
	for i := 6; i+9 <= len(b); {
		id := binary.LittleEndian.Uint32(b[i+1:]) & 0xffff
		n := int(binary.LittleEndian.Uint32(b[i+5:]))
		i += 9
		if n < 0 || n > len(b)-i {
			break
		}
		data := b[i : i+n]
		i += n + 2 // the checksum
		switch id {
		case attOemCodepage:
			if len(data) >= 4 {
				cp = binary.LittleEndian.Uint32(data)
			}
		case attBody:
			t.text, t.hasText = decodeCodepage(trimNUL(data), cp), true
		case attAttachRendData:
			flush()
			cur = &Attachment{}
		case attAttachTitle:
			if cur != nil && cur.Name == "" {
				cur.Name = decodeCodepage(trimNUL(data), cp)
			}
		case attAttachData:
			if cur != nil {
				cur.Data = data
			}
		case attAttachment:
			if cur == nil {
				break
			}
			props := mapiProps(data, cp)
			if v, ok := props[pidAttachLongName]; ok && v.str != "" {
				cur.Name = v.str
			}
			if v, ok := props[pidAttachData]; ok && len(cur.Data) == 0 {
				cur.Data = v.bin
			}
		case attMsgProps:
			props := mapiProps(data, cp)
			if v, ok := props[pidHTML]; ok && (len(v.bin) > 0 || v.str != "") {
				h := v.str
				if h == "" {
					if dec, err := html.DecodeText(trimNUL(v.bin), "", true); err == nil {
						h = string(dec)
					}
				}
				t.html, t.hasHTML = h, h != ""
			}
			if v, ok := props[pidRTFCompressed]; ok {
				rtf = v.bin
			}
			if v, ok := props[pidBody]; ok && v.str != "" && !t.hasText {
				t.text, t.hasText = v.str, true
			}
		}
	}
	flush()
	if !t.hasHTML && len(rtf) > 0 {
		if r, err := decompressRTF(rtf); err == nil {
			if h, isHTML := htmlFromRTF(r); isHTML {
				t.html, t.hasHTML = h, true
			}
		}
	}
	return t, nil
}

func decodeCodepage(b []byte, cp uint32) string {
	if enc := codepageEncoding(cp); enc != nil {
		if s, err := enc.NewDecoder().Bytes(b); err == nil {
			return string(s)
		}
	}
	return string(b)
}

// mapiValue is a property's first value: text for string types, bytes for binary ones.
type mapiValue struct {
	str string
	bin []byte
}

// mapiProps reads a TNEF MAPI property list ([MS-OXTNEF] 2.1.3.4): a count, then each
// property's type and ID (named properties with their GUID and name or number), then its
// value(s). Reading stops at the first property it cannot size; what came before is kept.
func mapiProps(b []byte, cp uint32) map[uint16]mapiValue {
	out := map[uint16]mapiValue{}
	r := &byteReader{b: b}
	count, ok := r.u32()
	if !ok {
		return out
	}
	for k := uint32(0); k < count && k < maxTNEFProps; k++ {
		typ, ok1 := r.u16()
		id, ok2 := r.u16()
		if !ok1 || !ok2 {
			return out
		}
		if id >= 0x8000 { // named: GUID, then a number or a name
			if !r.skip(16) {
				return out
			}
			kind, ok := r.u32()
			if !ok {
				return out
			}
			if kind == 0 {
				if !r.skip(4) {
					return out
				}
			} else {
				n, ok := r.u32()
				if !ok || !r.skip(pad4(int(n))) {
					return out
				}
			}
		}
		multi := typ&0x1000 != 0
		base := typ &^ 0x1000
		values := uint32(1)
		if multi || base == 0x001e || base == 0x001f || base == 0x0102 || base == 0x000d {
			if values, ok = r.u32(); !ok || values > uint32(len(b)) {
				return out
			}
		}
		var first *mapiValue
		for v := uint32(0); v < values; v++ {
			var val mapiValue
			switch base {
			case 0x001e, 0x001f, 0x0102, 0x000d:
				n, ok := r.u32()
				if !ok {
					return out
				}
				data, ok := r.take(int(n))
				if !ok || !r.skip(pad4(int(n))-int(n)) {
					return out
				}
				switch base {
				case 0x001e:
					val.str = decodeCodepage(trimNUL(data), cp)
				case 0x001f:
					val.str = strings.TrimRight(decodeUTF16(data), "\x00")
				default:
					val.bin = data
				}
			default:
				size := fixedSize(base)
				if size == 0 || !r.skip(size) {
					return out
				}
			}
			if first == nil {
				first = &val
			}
		}
		if first != nil {
			if _, seen := out[id]; !seen {
				out[id] = *first
			}
		}
	}
	return out
}

// fixedSize is the padded size of a fixed-length MAPI value (0: unknown type).
func fixedSize(typ uint16) int {
	switch typ {
	case 0x0001, 0x0002, 0x0003, 0x0004, 0x000a, 0x000b:
		return 4
	case 0x0005, 0x0006, 0x0007, 0x0014, 0x0040:
		return 8
	case 0x0048:
		return 16
	}
	return 0
}

func pad4(n int) int { return (n + 3) &^ 3 }

type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) take(n int) ([]byte, bool) {
	if n < 0 || n > len(r.b)-r.i {
		return nil, false
	}
	s := r.b[r.i : r.i+n]
	r.i += n
	return s, true
}

func (r *byteReader) skip(n int) bool { _, ok := r.take(n); return ok }

func (r *byteReader) u16() (uint16, bool) {
	s, ok := r.take(2)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint16(s), true
}

func (r *byteReader) u32() (uint32, bool) {
	s, ok := r.take(4)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint32(s), true
}

// expandTNEF replaces each TNEF attachment by the files it carries; its body stands in for a
// message that has none of its own. One that cannot be read stays as it was.
func expandTNEF(m *Message) {
	var out []Attachment
	for _, a := range m.Attachments {
		if !isTNEF(a) {
			out = append(out, a)
			continue
		}
		t, err := parseTNEF(a.Data)
		if err != nil {
			out = append(out, a)
			continue
		}
		switch {
		case m.HasHTML && strings.TrimSpace(m.HTML) != "", m.HasText && strings.TrimSpace(m.Text) != "":
		case t.hasHTML:
			m.Text, m.HasText = "", false
			m.HTML, m.HasHTML = t.html, true
		case t.hasText && strings.TrimSpace(t.text) != "":
			m.HTML, m.HasHTML = "", false
			m.Text, m.HasText = t.text, true
		}
		out = append(out, t.attachments...)
	}
	m.Attachments = out
}
