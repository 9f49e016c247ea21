// Package email partitions e-mail messages the way the reference's partition_email and
// partition_msg do: the body part is chosen HTML first, then plain text, and partitioned by the
// HTML or the text partitioner; every element carries the message's addresses, subject and
// Message-ID; attachments are partitioned recursively through the engine's detection and
// registry and marked with attached_to_filename.
//
// Two containers are read: RFC 5322 messages (.eml, message/rfc822) with the package's own MIME
// reader on the standard library (mime.go), and Outlook messages (.msg,
// application/vnd.ms-outlook), whose MAPI property streams are read from the compound file with
// mscfb. Outlook items that are not messages (contacts, appointments, tasks, sticky notes) give
// their fields as "Label: value" lines before the body (items.go), in both the Outlook 2003
// (PT_STRING8) and later (PT_UNICODE) layouts; a stream that cannot be read whole is kept as
// far as it reads, with one warning.
package email

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/html"
	"github.com/quarrydocs/quarry/formats/text"
)

// Canonical MIME types this package registers.
const (
	MIMEEML = "message/rfc822"
	MIMEMSG = "application/vnd.ms-outlook"
)

// KeyProcessAttachments is the option key that turns attachment partitioning off ("false").
const KeyProcessAttachments = "process_attachments"

// options are the keys the email formats read beyond the standard ones.
var options = []contract.KeySpec{{Key: KeyProcessAttachments, Kind: contract.Bool, Help: "email: partition attachments (default true)", Since: 2}}

func init() {
	contract.RegisterFormat(contract.Format{Name: "eml", MIME: MIMEEML, Extensions: []string{".eml", ".p7s", ".mht", ".mhtml"},
		Text: true, TrustExtension: true, SniffText: sniffEML, SniffOrder: 30, Options: options,
		Partitioner: contract.Func(PartitionEML)})
	contract.RegisterFormat(contract.Format{Name: "msg", MIME: MIMEMSG, Extensions: []string{".msg"},
		CFBStreams: []string{"__properties_version1.0"}, Options: options, Partitioner: contract.Func(PartitionMSG)})
}

var (
	_ contract.Partitioner = contract.Func(PartitionEML)
	_ contract.Partitioner = contract.Func(PartitionMSG)
)

// Message is what the partitioner needs from an e-mail, whatever its container.
type Message struct {
	// From, To, Cc and Bcc are addresses formatted as the reference prints them: `Name <addr>`
	// (the name quoted when it holds RFC 5322 specials) or the bare address.
	From, To, Cc, Bcc []string
	Subject           string
	// MessageID is the Message-ID without angle brackets.
	MessageID string
	// HTML and Text are the body in UTF-8; HTML wins when both are present.
	HTML, Text  string
	HasHTML     bool
	HasText     bool
	Attachments []Attachment
	// Fields are the labelled values of an Outlook item that is not a message (a contact's
	// name, company, addresses and numbers; an appointment's time and place; a task's dates
	// and status), one "Label: value" line each, emitted before the body.
	Fields []string
	// Damaged names what could not be read from a partly damaged container (streams whose
	// sectors are missing); what could be read is kept.
	Damaged []string
}

// Attachment is one attached file.
type Attachment struct {
	Name        string
	ContentType string
	Data        []byte
	// Inline marks content that is not a declared attachment (a message inside the message,
	// a text part besides the body): its declared type is the only hint to what it is.
	Inline bool
}

// Limits that keep hostile messages bounded.
const (
	// maxNesting is how deep messages attached to messages are followed.
	maxNesting = 4
	// maxAttachments bounds the attachments partitioned per message.
	maxAttachments = 256
)

type nestingKey struct{}

func nesting(ctx context.Context) int {
	n, _ := ctx.Value(nestingKey{}).(int)
	return n
}

// PartitionMessage emits the elements of m: the body's, then every attachment's, all stamped
// with the message metadata. doc is the message's own document (its name becomes the
// attachments' attached_to_filename).
func PartitionMessage(ctx context.Context, m *Message, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	stamp := func(e *element.Element) {
		md := &e.Metadata
		md.SentFrom = m.From
		md.SentTo = m.To
		md.CcRecipient = m.Cc
		md.BccRecipient = m.Bcc
		md.Subject = m.Subject
		md.EmailMessageID = m.MessageID
	}
	emitted := 0
	body := func(e element.Element) error {
		stamp(&e)
		emitted++
		return emit(e)
	}
	if len(m.Fields) > 0 {
		if err := text.PartitionText(ctx, strings.Join(m.Fields, "\n"), body); err != nil {
			return fmt.Errorf("email: item fields: %w", err)
		}
	}
	switch {
	case m.HasHTML:
		if err := html.PartitionUTF8(ctx, []byte(m.HTML), body); err != nil {
			return fmt.Errorf("email: html body: %w", err)
		}
	case m.HasText:
		if err := text.PartitionText(ctx, m.Text, body); err != nil {
			return fmt.Errorf("email: text body: %w", err)
		}
	}
	if len(m.Attachments) > 0 && opts.Bool(KeyProcessAttachments, true) {
		if err := partitionAttachments(ctx, m, doc, opts, body); err != nil {
			return err
		}
	}
	if emitted == 0 && m.Subject != "" {
		// A message whose only text is its subject (an empty body, a forwarded message
		// with nothing in it) is not an empty document.
		return text.PartitionText(ctx, m.Subject, body)
	}
	return nil
}

// partitionAttachments runs every attachment through the engine as a document of its own and
// emits its elements, ready for the outer post-processing pass: IDs and parents cleared (the
// outer pass assigns them), metadata.filename left as the attachment's name so the outer pass
// hashes IDs with it, as the reference does.
func partitionAttachments(ctx context.Context, m *Message, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	log := contract.Logger(ctx).With("file", doc.BaseName())
	depth := nesting(ctx)
	if depth >= maxNesting {
		log.Warn("email: attachments of deeply nested message skipped", "depth", depth)
		return nil
	}
	inner := context.WithValue(ctx, nestingKey{}, depth+1)
	// An attachment is a document of its own: its type detected from its bytes and name, its
	// pages numbered from 1 (chunking, which runs on the whole result, is the host's).
	sub := opts.Clone()
	sub[contract.KeyStartingPageNumber] = []string{"1"}
	delete(sub, contract.KeyContentType)
	parent := doc.BaseName()
	for i, a := range m.Attachments {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i >= maxAttachments {
			log.Warn("email: attachment limit reached, rest skipped", "limit", maxAttachments, "attachments", len(m.Attachments))
			break
		}
		if len(a.Data) == 0 {
			continue
		}
		// Like the reference, the attachment's type is detected from its bytes and name; the
		// part's declared Content-Type is often generic or wrong.
		nd := contract.NewDocument(a.Name, a.Data)
		if a.Inline {
			nd.ContentType = a.ContentType
		}
		elems, err := contract.Nested(inner, nd, sub)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			var ee *contract.Error
			if errors.As(err, &ee) && ee.Kind == contract.KindUnsupported {
				log.Info("email: unsupported attachment skipped", "attachment", a.Name, "reason", ee.Msg)
			} else {
				log.Warn("email: attachment could not be partitioned, skipped", "attachment", a.Name, "error", err)
			}
			continue
		}
		for _, e := range elems {
			e.ID = ""
			e.Metadata.ParentID = ""
			e.Metadata.AttachedToFilename = parent
			if err := emit(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// formatAddress renders an address as Python's email.headerregistry.Address does, which is
// how the reference prints sent_from/sent_to.
func formatAddress(name, addr string) string {
	name = strings.TrimSpace(name)
	addr = strings.TrimSpace(addr)
	if name == "" {
		return addr
	}
	if strings.ContainsAny(name, `()<>@,:;."[]`) {
		name = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`
	}
	return name + " <" + addr + ">"
}

// trimMessageID removes the angle brackets and blanks around a Message-ID.
func trimMessageID(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "<")
	s = strings.TrimSuffix(s, ">")
	return strings.TrimSpace(s)
}

// emlHeader is the reference's test for a message without a telling extension: the headers a
// mail client writes, in its order.
var emlHeader = regexp.MustCompile(`^(?:MIME-Version: 1\.0.*\r?\n)?Date:.*\r?\nMessage-ID:.*\r?\nSubject:.*\r?\nFrom:.*\r?\nTo:.*`)

func sniffEML(_ *contract.Document, head []byte, _ string) (string, bool) {
	return MIMEEML, emlHeader.Match(head)
}
