// Package rtf partitions Rich Text Format documents the reference's way: pandoc converts the
// document to HTML, which the HTML partitioner turns into elements. pandoc (Debian package
// "pandoc") must be on PATH.
package rtf

import (
	"bytes"
	"context"
	"fmt"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/formats/html"
)

// MIMEType is the canonical type this package registers.
const MIMEType = "text/rtf"

func init() {
	contract.RegisterFormat(contract.Format{Name: "rtf", MIME: MIMEType, Aliases: []string{"application/rtf"},
		Extensions: []string{".rtf"}, TrustExtension: true, Partitioner: contract.Func(Partition)})
}

// Partition converts doc with pandoc and emits the elements of the resulting HTML.
func Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	data, err := doc.Bytes()
	if err != nil {
		return fmt.Errorf("rtf: read: %w", err)
	}
	// Fields and footnotes in the forms pandoc reads (fields.go). RTF carries its own code
	// pages in control words; pandoc reads the bytes as they are.
	// Text escapes of non-1252 code pages and \uN delimiters too (charset.go).
	if fixed := normalizeFields(normalizeText(data)); !bytes.Equal(fixed, data) {
		doc = contract.NewDocument(doc.Filename, fixed)
	}
	return html.PartitionPandoc(ctx, doc, opts, "rtf", false, emit)
}
