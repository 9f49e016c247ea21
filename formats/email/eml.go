package email

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/textproto"
	"strings"

	"github.com/jhillyerd/enmime/v2"

	"github.com/quarrydocs/quarry/engine"
)

// maxMultiparts bounds the multipart containers a message may declare. Parsing recurses once
// per nesting level and buffers per level, so a MIME bomb of thousands of nested multiparts is
// refused before it is parsed.
const maxMultiparts = 1000

// PartitionEML partitions an RFC 5322 message.
func PartitionEML(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
	data, err := doc.Bytes()
	if err != nil {
		return fmt.Errorf("email: read: %w", err)
	}
	m, err := ParseEML(data)
	if err != nil {
		return err
	}
	return PartitionMessage(ctx, m, doc, opts, emit)
}

// ParseEML reads an RFC 5322 message: decoded headers (RFC 2047), the body part chosen as
// Python's EmailMessage.get_body(("html", "plain")) chooses it, transfer encodings and charsets
// decoded to UTF-8, and the parts marked as attachments.
func ParseEML(data []byte) (*Message, error) {
	if n := countMultiparts(data); n > maxMultiparts {
		return nil, engine.Errorf(engine.KindUnprocessable, "email: message declares %d multipart containers (limit %d)", n, maxMultiparts)
	}
	p := enmime.NewParser(enmime.SkipMalformedParts(true), enmime.DisableTextConversion(true),
		enmime.MaxStoredPartErrors(100))
	root, err := p.ReadParts(bytes.NewReader(data))
	if err != nil {
		return nil, engine.Errorf(engine.KindUnprocessable, "email: invalid message: %v", err)
	}
	m := &Message{}
	h := root.Header
	m.From = addresses(h, "From")
	m.To = addresses(h, "To")
	m.Cc = addresses(h, "Cc")
	m.Bcc = addresses(h, "Bcc")
	m.Subject = strings.TrimSpace(enmime.DecodeRFC2047(unfold(h.Get("Subject"))))
	m.MessageID = trimMessageID(unfold(h.Get("Message-Id")))

	var html, plain *enmime.Part
	findBody(root, &html, &plain, 0)
	if html != nil {
		m.HTML, m.HasHTML = string(html.Content), true
	} else if plain != nil {
		m.Text, m.HasText = string(plain.Content), true
	}
	collectAttachments(root, &m.Attachments, 0)
	return m, nil
}

// countMultiparts counts case-insensitive occurrences of "multipart/" — an upper bound on the
// multipart containers a message declares, found without parsing.
func countMultiparts(data []byte) int {
	n := 0
	for {
		i := bytes.Index(data, []byte("ultipart/"))
		if i < 0 {
			return n
		}
		if i > 0 && (data[i-1] == 'm' || data[i-1] == 'M') {
			n++
		}
		data = data[i+len("ultipart/"):]
	}
}

func unfold(s string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("\r\n", " ", "\n", " ").Replace(s)), " ")
}

// addresses parses an address header into the reference's printed forms; a header that does
// not parse is kept as its decoded text, split on commas.
func addresses(h textproto.MIMEHeader, key string) []string {
	var out []string
	for _, v := range h.Values(key) {
		v = unfold(v)
		if v == "" {
			continue
		}
		list, err := enmime.ParseAddressList(v)
		if err != nil || len(list) == 0 {
			for _, s := range strings.Split(enmime.DecodeRFC2047(v), ",") {
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, s)
				}
			}
			continue
		}
		for _, a := range list {
			out = append(out, formatAddress(a.Name, a.Address))
		}
	}
	return out
}

func isAttachment(p *enmime.Part) bool { return strings.EqualFold(p.Disposition, "attachment") }

// findBody walks the part tree as get_body does: text leaves in depth-first order (the first
// HTML and the first plain text part kept), multiparts descended, multipart/related only
// through its root part, attachments and attached messages never.
func findBody(p *enmime.Part, html, plain **enmime.Part, depth int) {
	if p == nil || depth > maxMultiparts || isAttachment(p) || *html != nil {
		return
	}
	main, sub, _ := strings.Cut(strings.ToLower(p.ContentType), "/")
	if p.ContentType == "" {
		main, sub = "text", "plain"
	}
	switch main {
	case "text":
		switch sub {
		case "html":
			*html = p
		case "plain":
			if *plain == nil {
				*plain = p
			}
		}
		return
	case "multipart":
	default:
		return
	}
	if sub != "related" {
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			findBody(c, html, plain, depth+1)
		}
		return
	}
	root := p.FirstChild
	_, params, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
	if start := strings.Trim(params["start"], "<> "); start != "" {
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			if strings.Trim(c.ContentID, "<> ") == start {
				root = c
				break
			}
		}
	}
	findBody(root, html, plain, depth+1)
}

// collectAttachments lists the leaf parts whose disposition is "attachment", in document
// order. Attached messages (message/rfc822) are kept whole and partitioned recursively.
func collectAttachments(p *enmime.Part, out *[]Attachment, depth int) {
	if p == nil || depth > maxMultiparts {
		return
	}
	if isAttachment(p) {
		// A multipart marked as an attachment has no single payload to partition.
		if p.FirstChild == nil {
			*out = append(*out, Attachment{Name: p.FileName, ContentType: p.ContentType, Data: partBytes(p)})
		}
		return
	}
	for c := p.FirstChild; c != nil; c = c.NextSibling {
		collectAttachments(c, out, depth+1)
	}
}

// partBytes returns a part's decoded content; enmime converts text parts to UTF-8 already.
func partBytes(p *enmime.Part) []byte {
	if p.Content != nil {
		return p.Content
	}
	if p.ContentReader != nil {
		b, _ := io.ReadAll(io.LimitReader(p.ContentReader, 256<<20))
		return b
	}
	return nil
}
