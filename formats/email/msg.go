package email

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/richardlehane/mscfb"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/formats/html"
)

// Stream-size limits: a compound file's directory may claim any size, so reads are bounded.
const (
	maxStream   = 64 << 20
	maxMSGBytes = 512 << 20
)

// MAPI property IDs read from an Outlook message ([MS-OXPROPS]).
const (
	pidMessageClass     = 0x001A
	pidSubject          = 0x0037
	pidTransportHeaders = 0x007D
	pidSentReprName     = 0x0042
	pidSentReprEmail    = 0x0065
	pidSenderName       = 0x0C1A
	pidSenderEmail      = 0x0C1F
	pidSenderSMTP       = 0x5D01
	pidSentReprSMTP     = 0x5D02
	pidDisplayBcc       = 0x0E02
	pidDisplayCc        = 0x0E03
	pidDisplayTo        = 0x0E04
	pidBody             = 0x1000
	pidRTFCompressed    = 0x1009
	pidHTML             = 0x1013
	pidMessageID        = 0x1035
	pidRecipientType    = 0x0C15
	pidDisplayName      = 0x3001
	pidEmailAddress     = 0x3003
	pidSMTPAddress      = 0x39FE
	pidAttachData       = 0x3701
	pidAttachFilename   = 0x3704
	pidAttachMethod     = 0x3705
	pidAttachLongName   = 0x3707
	pidAttachMIME       = 0x370E
	pidInternetCPID     = 0x3FDE
	pidMessageCodepage  = 0x3FFD
)

// MAPI property types.
const (
	ptLong    = 0x0003
	ptDouble  = 0x0005
	ptBoolean = 0x000B
	ptSysTime = 0x0040
	ptString8 = 0x001E
	ptUnicode = 0x001F
	ptBinary  = 0x0102
)

// PartitionMSG partitions an Outlook .msg file.
func PartitionMSG(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	m, err := ReadMSG(doc.Content, doc.Size)
	if err != nil {
		return err
	}
	if len(m.Damaged) > 0 {
		contract.Logger(ctx).Warn("msg: damaged streams skipped or cut short; the rest is kept",
			"file", doc.BaseName(), "streams", strings.Join(m.Damaged, "; "))
	}
	return PartitionMessage(ctx, m, doc, opts, emit)
}

// storage is one property storage of the compound file: the message itself, a recipient or an
// attachment.
type storage struct {
	streams map[string]*mscfb.File // "__substg1.0_XXXXYYYY" and "__properties_version1.0"
	fixed   map[uint16]uint32      // fixed-size (PT_LONG) properties from the property stream
	read    *int64                 // bytes read so far from the whole file
	cp      encoding.Encoding      // code page of PT_STRING8 values
	// values are the fixed-size properties of other types (PT_SYSTIME, PT_DOUBLE,
	// PT_BOOLEAN) as their 8 raw bytes, by type and ID.
	values  map[uint32][8]byte
	damaged func(string)
	named   map[namedProp]uint16 // named property → its ID in this file (0x8000+)
}

func (s *storage) stream(name string) ([]byte, bool, error) {
	f, ok := s.streams[name]
	if !ok {
		return nil, false, nil
	}
	if f.Size < 0 || f.Size > maxStream {
		return nil, true, fmt.Errorf("msg: stream %s claims %d bytes", name, f.Size)
	}
	if f.Size == 0 {
		// mscfb cannot seek to offset 0 of an empty stream ("can't seek past File
		// length"); Outlook writes empty string properties as empty streams.
		return nil, true, nil
	}
	*s.read += f.Size
	if *s.read > maxMSGBytes {
		return nil, true, fmt.Errorf("msg: more than %d bytes of property streams", maxMSGBytes)
	}
	buf := make([]byte, f.Size)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		// A stream whose sector chain is cut or broken: keep what was read and say so once;
		// the rest of the message is still worth reading.
		s.damaged(fmt.Sprintf("%s (%d of %d bytes read: %v)", name, n, f.Size, err))
		return buf[:n], true, nil
	}
	return buf[:n], true, nil
}

func propName(id, typ uint16) string {
	return fmt.Sprintf("__substg1.0_%04X%04X", id, typ)
}

// str returns a string property stored as Unicode or 8-bit text.
func (s *storage) str(id uint16) (string, error) {
	if b, ok, err := s.stream(propName(id, ptUnicode)); ok || err != nil {
		if err != nil {
			return "", err
		}
		return decodeUTF16(b), nil
	}
	b, ok, err := s.stream(propName(id, ptString8))
	if !ok || err != nil {
		return "", err
	}
	return s.decode8(b), nil
}

func (s *storage) binary(id uint16) ([]byte, bool, error) {
	return s.stream(propName(id, ptBinary))
}

func (s *storage) decode8(b []byte) string {
	b = trimNUL(b)
	if s.cp != nil {
		if out, err := s.cp.NewDecoder().Bytes(b); err == nil {
			return string(out)
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}

func decodeUTF16(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	for len(u) > 0 && u[len(u)-1] == 0 {
		u = u[:len(u)-1]
	}
	return string(utf16.Decode(u))
}

// parseFixed reads the PT_LONG entries of a __properties_version1.0 stream; header is its
// header length (32 for the top-level message, 8 for recipients and attachments).
func (s *storage) parseFixed(header int) error {
	b, ok, err := s.stream("__properties_version1.0")
	if err != nil || !ok {
		return err
	}
	s.fixed = map[uint16]uint32{}
	s.values = map[uint32][8]byte{}
	for off := header; off+16 <= len(b); off += 16 {
		typ := binary.LittleEndian.Uint16(b[off:])
		id := binary.LittleEndian.Uint16(b[off+2:])
		switch typ {
		case ptLong:
			s.fixed[id] = binary.LittleEndian.Uint32(b[off+8:])
		case ptSysTime, ptDouble, ptBoolean:
			s.values[uint32(id)<<16|uint32(typ)] = [8]byte(b[off+8 : off+16])
		}
	}
	return nil
}

// codepageEncoding maps a Windows code page number to a decoder (nil when unknown).
func codepageEncoding(cp uint32) encoding.Encoding {
	switch cp {
	case 0:
		return nil
	case 65001, 20127:
		return unicode.UTF8
	case 1200:
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	}
	names := []string{"windows-" + strconv.Itoa(int(cp)), "cp" + strconv.Itoa(int(cp)), "ibm" + strconv.Itoa(int(cp))}
	switch cp {
	case 932:
		names = []string{"Shift_JIS"}
	case 936:
		names = []string{"GBK"}
	case 949:
		names = []string{"EUC-KR"}
	case 950:
		names = []string{"Big5"}
	case 28591, 28592, 28593, 28594, 28595, 28596, 28597, 28598, 28599, 28605:
		names = []string{"ISO-8859-" + strconv.Itoa(int(cp-28590))}
	case 20866:
		names = []string{"KOI8-R"}
	case 50220, 50221, 50222:
		names = []string{"ISO-2022-JP"}
	case 51932:
		names = []string{"EUC-JP"}
	}
	for _, n := range names {
		if e, err := ianaindex.IANA.Encoding(n); err == nil && e != nil {
			return e
		}
	}
	return nil
}

// ReadMSG reads an Outlook message from its compound file.
func ReadMSG(r io.ReaderAt, size int64) (m *Message, err error) {
	// mscfb is third-party code reading attacker-controlled sector chains; a malformed file
	// must become an error, never a crash of the caller.
	defer func() {
		if p := recover(); p != nil {
			m, err = nil, invalidMSG(fmt.Errorf("malformed compound file: %v", p))
		}
	}()
	if size < 512 {
		return nil, invalidMSG(fmt.Errorf("%d bytes is too short for a compound file", size))
	}
	cf, err := mscfb.New(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, invalidMSG(err)
	}
	var read int64
	var damaged []string
	note := func(what string) { damaged = append(damaged, what) }
	newStorage := func() *storage {
		return &storage{streams: map[string]*mscfb.File{}, read: &read, damaged: note}
	}
	nameid := newStorage()
	top := newStorage()
	recips := map[string]*storage{}
	attachs := map[string]*storage{}
	var recipOrder, attachOrder []string
	embedded := map[string]bool{}
	for f, ferr := cf.Next(); ferr == nil; f, ferr = cf.Next() {
		switch len(f.Path) {
		case 0:
			top.streams[f.Name] = f
		case 1:
			dir := f.Path[0]
			switch {
			case strings.HasPrefix(dir, "__recip_version1.0_"):
				s, ok := recips[dir]
				if !ok {
					s = newStorage()
					recips[dir] = s
					recipOrder = append(recipOrder, dir)
				}
				s.streams[f.Name] = f
			case dir == "__nameid_version1.0":
				nameid.streams[f.Name] = f
			case strings.HasPrefix(dir, "__attach_version1.0_"):
				s, ok := attachs[dir]
				if !ok {
					s = newStorage()
					attachs[dir] = s
					attachOrder = append(attachOrder, dir)
				}
				s.streams[f.Name] = f
			}
		default:
			if strings.HasPrefix(f.Path[0], "__attach_version1.0_") {
				embedded[f.Path[0]] = true
			}
		}
	}
	if _, ok := top.streams["__properties_version1.0"]; !ok {
		return nil, invalidMSG(fmt.Errorf("no __properties_version1.0 stream"))
	}
	if err := top.parseFixed(32); err != nil {
		return nil, invalidMSG(err)
	}
	cp := top.fixed[pidInternetCPID]
	if c, ok := top.fixed[pidMessageCodepage]; ok {
		cp = c
	}
	top.cp = codepageEncoding(cp)
	if top.cp == nil {
		top.cp = codepageEncoding(1252)
	}

	m = &Message{}
	get := func(s *storage, id uint16) string {
		if err != nil {
			return ""
		}
		var v string
		v, err = s.str(id)
		return strings.TrimSpace(v)
	}
	m.Subject = get(top, pidSubject)
	m.MessageID = trimMessageID(get(top, pidMessageID))
	headers := get(top, pidTransportHeaders)
	m.From = senderFromHeaders(headers)
	if len(m.From) == 0 {
		name := firstNonEmpty(get(top, pidSenderName), get(top, pidSentReprName))
		addr := firstNonEmpty(get(top, pidSenderSMTP), get(top, pidSentReprSMTP))
		if addr == "" {
			addr = smtpOnly(firstNonEmpty(get(top, pidSenderEmail), get(top, pidSentReprEmail)))
		}
		if name != "" || addr != "" {
			if addr == "" {
				m.From = []string{name}
			} else {
				m.From = []string{formatAddress(name, addr)}
			}
		}
	}
	for _, dir := range recipOrder {
		s := recips[dir]
		s.cp = top.cp
		if perr := s.parseFixed(8); perr != nil && err == nil {
			err = perr
		}
		addr := firstNonEmpty(get(s, pidSMTPAddress), smtpOnly(get(s, pidEmailAddress)), get(s, pidDisplayName))
		if addr == "" {
			continue
		}
		switch s.fixed[pidRecipientType] & 0xF {
		case 2:
			m.Cc = append(m.Cc, addr)
		case 3:
			m.Bcc = append(m.Bcc, addr)
		default:
			m.To = append(m.To, addr)
		}
	}
	if len(recipOrder) == 0 {
		m.To = splitDisplay(get(top, pidDisplayTo))
		m.Cc = splitDisplay(get(top, pidDisplayCc))
		m.Bcc = splitDisplay(get(top, pidDisplayBcc))
	}
	if err != nil {
		return nil, invalidMSG(err)
	}

	if err := readMSGBody(top, m); err != nil {
		return nil, invalidMSG(err)
	}
	top.named = readNameMap(nameid)
	class := get(top, pidMessageClass)
	if m.Fields, err = itemFields(top, class, m); err != nil {
		return nil, invalidMSG(err)
	}
	if len(m.Fields) == 0 && !m.HasHTML && !m.HasText && m.Subject != "" {
		// An item whose only text is its subject (a note with an empty body, a meeting
		// notice) is not an empty document.
		m.Text, m.HasText = m.Subject, true
	}
	for _, dir := range attachOrder {
		if embedded[dir] {
			// An embedded Outlook item (attach method 5) has no file payload to partition.
			continue
		}
		s := attachs[dir]
		s.cp = top.cp
		data, ok, aerr := s.binary(pidAttachData)
		if aerr != nil {
			return nil, invalidMSG(aerr)
		}
		if !ok {
			continue
		}
		name := firstNonEmpty(get(s, pidAttachLongName), get(s, pidAttachFilename), get(s, pidDisplayName))
		mime := get(s, pidAttachMIME)
		if err != nil {
			return nil, invalidMSG(err)
		}
		m.Attachments = append(m.Attachments, Attachment{Name: name, ContentType: mime, Data: data})
	}
	m.Damaged = damaged
	return m, nil
}

// readMSGBody picks the body as the reference's Outlook reader does: the HTML body (stored, or
// de-encapsulated from compressed RTF written "fromhtml"), else the plain text body.
func readMSGBody(top *storage, m *Message) error {
	if b, ok, err := top.binary(pidHTML); err != nil {
		return err
	} else if ok && len(trimNUL(b)) > 0 {
		text, derr := html.DecodeText(trimNUL(b), "", true)
		if derr != nil {
			return derr
		}
		m.HTML, m.HasHTML = string(text), true
		return nil
	}
	if s, err := top.str(pidHTML); err != nil {
		return err
	} else if s != "" {
		m.HTML, m.HasHTML = s, true
		return nil
	}
	if b, ok, err := top.binary(pidRTFCompressed); err != nil {
		return err
	} else if ok {
		if rtf, derr := decompressRTF(b); derr == nil {
			if h, isHTML := htmlFromRTF(rtf); isHTML {
				m.HTML, m.HasHTML = h, true
				return nil
			}
		}
	}
	body, err := top.str(pidBody)
	if err != nil {
		return err
	}
	if body != "" {
		m.Text, m.HasText = body, true
	}
	return nil
}

func invalidMSG(err error) error {
	return &contract.Error{Kind: contract.KindUnprocessable, Msg: "File is not a valid msg: " + err.Error(), Err: err}
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// smtpOnly drops Exchange X.500 addresses ("/O=ORG/OU=…"), which are not e-mail addresses.
func smtpOnly(s string) string {
	if strings.HasPrefix(s, "/") {
		return ""
	}
	return s
}

func splitDisplay(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// senderFromHeaders takes From from the Internet headers a received message keeps.
func senderFromHeaders(headers string) []string {
	if headers == "" {
		return nil
	}
	for _, line := range strings.Split(unfoldHeaders(headers), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "from") {
			continue
		}
		list, err := parseAddressList(strings.TrimSpace(value))
		if err != nil {
			return nil
		}
		out := make([]string, 0, len(list))
		for _, a := range list {
			out = append(out, formatAddress(a.Name, a.Address))
		}
		return out
	}
	return nil
}

// unfoldHeaders joins folded header lines and normalises line ends to "\n".
func unfoldHeaders(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if line == "" {
			break // end of the header block
		}
		if i > 0 {
			if line[0] == ' ' || line[0] == '\t' {
				b.WriteByte(' ')
				b.WriteString(strings.TrimSpace(line))
				continue
			}
			b.WriteByte('\n')
		}
		b.WriteString(line)
	}
	return b.String()
}
