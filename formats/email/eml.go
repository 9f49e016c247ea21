package email

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/quarrydocs/quarry/contract"
)

// maxMultiparts bounds the multipart containers a message may declare. Parsing recurses once
// per nesting level and buffers per level, so a MIME bomb of thousands of nested multiparts is
// refused before it is parsed.
const maxMultiparts = 1000

// PartitionEML partitions an RFC 5322 message.
func PartitionEML(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
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
		return nil, contract.Errorf(contract.KindUnprocessable, "email: message declares %d multipart containers (limit %d)", n, maxMultiparts)
	}
	root, err := newMIMEReader(len(data)).parse(data, 0)
	if err != nil {
		return nil, err
	}
	m := &Message{}
	h := root.header
	m.From = addresses(h, "from")
	m.To = addresses(h, "to")
	m.Cc = addresses(h, "cc")
	m.Bcc = addresses(h, "bcc")
	m.Subject = strings.TrimSpace(decodeHeader(unfold(h.get("subject"))))
	m.MessageID = trimMessageID(unfold(h.get("message-id")))

	var html, plain *part
	findBody(root, &html, &plain, 0)
	body := html
	if html != nil {
		m.HTML, m.HasHTML = html.text(), true
	} else if plain != nil {
		m.Text, m.HasText = plain.text(), true
		body = plain
	}
	collectAttachments(root, body, false, &m.Attachments, 0)
	expandTNEF(m)
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
func addresses(h header, key string) []string {
	var out []string
	for _, v := range h[key] {
		v = unfold(v)
		if v == "" {
			continue
		}
		list, err := parseAddressList(v)
		if err != nil || len(list) == 0 {
			for _, s := range strings.Split(decodeHeader(v), ",") {
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

// signatureTypes are the content types of detached signatures (S/MIME, PGP/MIME).
var signatureTypes = map[string]bool{
	"application/pkcs7-signature":   true,
	"application/x-pkcs7-signature": true,
	"application/pgp-signature":     true,
}

func isAttachment(p *part) bool { return p.disposition == "attachment" }

// findBody walks the part tree as get_body does: text leaves in depth-first order (the first
// HTML and the first plain text part kept), multiparts descended, multipart/related only
// through its root part, attachments and attached messages never.
func findBody(p *part, html, plain **part, depth int) {
	if p == nil || depth > maxMultiparts || isAttachment(p) || *html != nil {
		return
	}
	main, sub, _ := strings.Cut(p.contentType, "/")
	if p.contentType == "" {
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
	if len(p.children) == 0 {
		return
	}
	if sub != "related" {
		for _, c := range p.children {
			findBody(c, html, plain, depth+1)
		}
		return
	}
	root := p.children[0]
	if start := strings.Trim(p.params["start"], "<> "); start != "" {
		for _, c := range p.children {
			if strings.Trim(c.header.get("content-id"), "<> ") == start {
				root = c
				break
			}
		}
	}
	findBody(root, html, plain, depth+1)
}

// collectAttachments lists, in document order, the leaf parts whose disposition is
// "attachment" and — as Python's iter_attachments yields every part that is not the body —
// the other content a reader sees: messages inside the message (message/rfc822, a digest's
// entries, a forwarded message that is the whole body), kept whole and partitioned
// recursively, and text parts besides the body (a digest's sections, a list footer, text of
// a type no body search takes). Alternatives to the body (they repeat it), the resources of
// a multipart/related (what its root refers to) and inline images are never listed.
func collectAttachments(p, body *part, inAlternative bool, out *[]Attachment, depth int) {
	if p == nil || depth > maxMultiparts || p == body {
		return
	}
	if signatureTypes[p.contentType] {
		// A detached signature (smime.p7s, signature.asc) is DER or armoured bytes, not
		// content: .p7s is an e-mail extension, so it was read as a message of binary garbage.
		return
	}
	if isAttachment(p) {
		// A multipart marked as an attachment has no single payload to partition.
		if len(p.children) == 0 && !strings.HasPrefix(p.contentType, "multipart/") {
			// Text in a declared charset is handed on as UTF-8; without a declaration the
			// bytes are left for the attachment's own format to sniff (an HTML meta tag, a BOM).
			data := p.content()
			if p.isText() && p.params["charset"] != "" {
				data = []byte(p.text())
			}
			*out = append(*out, Attachment{Name: p.fileName, ContentType: p.contentType, Data: data})
		}
		return
	}
	main, sub, _ := strings.Cut(p.contentType, "/")
	switch {
	case main == "multipart":
		children := p.children
		if sub == "signed" && len(children) > 1 {
			// RFC 1847: the first part is the signed content, the second its signature,
			// whatever type it is declared with.
			children = children[:1]
		}
		for _, c := range children {
			collectAttachments(c, body, inAlternative || sub == "alternative" || sub == "related", out, depth+1)
		}
	case (p.contentType == "message/rfc822" || p.contentType == "message/global") && !inAlternative:
		*out = append(*out, Attachment{Name: p.fileName, ContentType: "message/rfc822", Data: p.content(), Inline: true})
	case p.isText() && !inAlternative:
		ct := "text/plain"
		if p.contentType == "text/html" {
			ct = p.contentType
		}
		*out = append(*out, Attachment{Name: p.fileName, ContentType: ct, Data: []byte(p.text()), Inline: true})
	}
}
