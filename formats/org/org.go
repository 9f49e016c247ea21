// Package org partitions Emacs Org-mode documents the reference's way: pandoc converts the
// text to HTML, which the HTML partitioner turns into elements. pandoc (Debian package
// "pandoc") must be on PATH.
package org

import (
	"context"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/formats/html"
)

// MIMEType is the canonical type this package registers.
const MIMEType = "text/org"

func init() {
	contract.RegisterFormat(contract.Format{Name: "org", MIME: MIMEType, Extensions: []string{".org"},
		TrustExtension: true, Partitioner: contract.Func(Partition)})
}

// Partition decodes doc (opts.Get(contract.KeyEncoding) or detected), converts it with pandoc and emits the
// elements of the resulting HTML.
func Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	return html.PartitionPandoc(ctx, doc, opts, "org", true, emit)
}
