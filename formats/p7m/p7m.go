// Package p7m partitions CMS / PKCS #7 signed files: the document inside a signature envelope
// (an Italian "fattura.xml.p7m" or "contratto.pdf.p7m", an opaque-signed S/MIME "smime.p7m") is
// taken out and partitioned as the document it is.
package p7m

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quarrydocs/quarry/contract"
)

// MIME is the canonical type of a signed envelope.
const MIME = "application/pkcs7-mime"

func init() {
	// Byte sniffing names DER and PEM PKCS #7 "application/pkcs7-signature" whatever the
	// extension, so that name is claimed too: a signature with its document inside is read,
	// one without is refused. A .p7m holding base64 text is this format by its extension.
	contract.RegisterFormat(contract.Format{Name: "p7m", MIME: MIME,
		Aliases:    []string{"application/x-pkcs7-mime", "application/pkcs7-signature", "application/x-pkcs7-signature"},
		Extensions: []string{".p7m"}, TrustExtension: true,
		Partitioner: contract.Func(Partition)})
}

var _ contract.Partitioner = contract.Func(Partition)

// maxNesting bounds envelopes inside envelopes (a counter-signed "x.pdf.p7m.p7m" is two).
const maxNesting = 8

type nestingKey struct{}

// Partition takes the signed content out of the envelope and partitions it through the
// engine as a document named without the ".p7m" ("report.pdf.p7m" is read as "report.pdf").
// Its elements keep their own file type and are named after the envelope.
func Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	data, err := doc.Bytes()
	if err != nil {
		return fmt.Errorf("p7m: read: %w", err)
	}
	content, err := Unwrap(data)
	if err != nil {
		return err
	}
	depth, _ := ctx.Value(nestingKey{}).(int)
	if depth >= maxNesting {
		return contract.Errorf(contract.KindUnprocessable, "p7m: signed envelopes nested more than %d deep", maxNesting)
	}
	inner := contract.NewDocument(innerName(doc.BaseName()), content)
	if looksLikeMIME(content) {
		// S/MIME signs a MIME entity: headers, a blank line, the body.
		inner.ContentType = "message/rfc822"
	}
	sub := opts.Clone()
	delete(sub, contract.KeyContentType)
	elems, err := contract.Nested(context.WithValue(ctx, nestingKey{}, depth+1), inner, sub)
	if err != nil {
		return err
	}
	for _, e := range elems {
		// The outer pass names, numbers and links the elements as the envelope's.
		e.ID, e.Metadata.ParentID, e.Metadata.Filename = "", "", ""
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}

// innerName is the envelope's name without its ".p7m" ("fattura.xml.p7m" → "fattura.xml").
func innerName(name string) string {
	if ext := filepath.Ext(name); strings.EqualFold(ext, ".p7m") {
		return strings.TrimSuffix(name, ext)
	}
	return name
}

// looksLikeMIME reports whether content opens with a MIME header.
func looksLikeMIME(b []byte) bool {
	head := strings.ToLower(string(b[:min(len(b), 64)]))
	return strings.HasPrefix(head, "content-type:") || strings.HasPrefix(head, "mime-version:")
}

// Object identifiers of CMS content types (RFC 5652), as their DER contents octets.
var (
	oidSignedData          = []byte{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02}
	oidEnvelopedData       = []byte{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x03}
	oidEncryptedData       = []byte{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x06}
	oidAuthEnvelopedData   = []byte{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01, 0x17}
	errNotSignedData       = errors.New("not a signed envelope")
	errDetachedSignature   = errors.New("a detached signature: the signed document is not inside it")
	errEncryptedEnvelope   = errors.New("encrypted: it cannot be read without the recipient's key")
	errNoContentInEnvelope = errors.New("the envelope holds no content")
)

// Unwrap returns the signed content of a CMS SignedData envelope in DER or BER, PEM, or bare
// base64. Errors are 422s naming what the bytes are instead.
func Unwrap(data []byte) ([]byte, error) {
	der := decodeArmour(data)
	content, err := signedContent(der)
	if err != nil {
		return nil, contract.Errorf(contract.KindUnprocessable, "File is not a valid p7m: %v", err)
	}
	return content, nil
}

// decodeArmour turns PEM or bare base64 into the binary structure; binary is left as it is.
func decodeArmour(data []byte) []byte {
	trimmed := bytes.TrimSpace(data)
	if bytes.HasPrefix(trimmed, []byte("-----BEGIN")) {
		if blk, _ := pem.Decode(trimmed); blk != nil {
			return blk.Bytes
		}
		return data
	}
	if len(trimmed) == 0 || trimmed[0] == 0x30 {
		return data
	}
	compact := bytes.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, trimmed)
	if dec, err := base64.StdEncoding.DecodeString(string(compact)); err == nil && len(dec) > 0 && dec[0] == 0x30 {
		return dec
	}
	return data
}

// signedContent walks ContentInfo → SignedData → EncapsulatedContentInfo → eContent.
func signedContent(der []byte) ([]byte, error) {
	ci, _, err := parse(der, 0)
	if err != nil {
		return nil, err
	}
	if !ci.is(tagSequence) {
		return nil, errNotSignedData
	}
	kids, err := ci.children(0)
	if err != nil {
		return nil, err
	}
	if len(kids) < 1 || !kids[0].is(tagOID) {
		return nil, errNotSignedData
	}
	switch oid := kids[0].body; {
	case bytes.Equal(oid, oidEnvelopedData), bytes.Equal(oid, oidEncryptedData), bytes.Equal(oid, oidAuthEnvelopedData):
		return nil, errEncryptedEnvelope
	case !bytes.Equal(oid, oidSignedData):
		return nil, errNotSignedData
	}
	if len(kids) < 2 || kids[1].class != 2 || kids[1].tag != 0 {
		return nil, errNoContentInEnvelope
	}
	explicit, err := kids[1].children(1)
	if err != nil || len(explicit) != 1 || !explicit[0].is(tagSequence) {
		return nil, fmt.Errorf("%w: SignedData is not a SEQUENCE", errBER)
	}
	sd, err := explicit[0].children(2)
	if err != nil {
		return nil, err
	}
	// version INTEGER, digestAlgorithms SET, then encapContentInfo SEQUENCE.
	if len(sd) < 3 || !sd[0].is(tagInteger) || !sd[1].is(tagSet) || !sd[2].is(tagSequence) {
		return nil, fmt.Errorf("%w: unexpected SignedData layout", errBER)
	}
	encap, err := sd[2].children(3)
	if err != nil {
		return nil, err
	}
	if len(encap) < 2 {
		return nil, errDetachedSignature
	}
	if encap[1].class != 2 || encap[1].tag != 0 {
		return nil, fmt.Errorf("%w: unexpected content field", errBER)
	}
	ec, err := encap[1].children(4)
	if err != nil || len(ec) != 1 {
		return nil, fmt.Errorf("%w: content is not one value", errBER)
	}
	content, err := ec[0].octets(5)
	if err != nil {
		return nil, err
	}
	if len(content) == 0 {
		return nil, errNoContentInEnvelope
	}
	return content, nil
}
