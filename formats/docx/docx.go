// Package docx partitions Word 2007+ documents (.docx) into elements the way the reference's
// python-docx based partitioner does: per section a header, the body paragraphs and tables in
// order, and a footer; paragraph types from numbering, paragraph styles and the text rules;
// tables as one Table with compact HTML; emphasis and hyperlink metadata; page numbers from
// rendered page breaks. The package parts are read directly with a streaming XML decoder.
//
// The document model and the element-producing path are shared with ODT in package
// formats/internal/wordproc; this package reads the DOCX parts into that model.
package docx

import (
	"context"
	"io"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/formats/internal/wordproc"
)

// MIME is the canonical DOCX content type.
const MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

// Partitioner is the registered DOCX partitioner.
type Partitioner struct{}

var _ contract.Partitioner = Partitioner{}

func init() {
	contract.RegisterFormat(contract.Format{Name: "docx", MIME: MIME, Extensions: []string{".docx"},
		ZipMembers: []contract.ZipMember{{Prefix: "word/document", Suffix: ".xml"}}, Partitioner: Partitioner{}})
}

// Partition implements contract.Partitioner.
func (Partitioner) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	return Partition(ctx, doc.Content, doc.Size, opts, emit)
}

// Partition partitions the DOCX bytes in r.
func Partition(ctx context.Context, r io.ReaderAt, size int64, opts contract.Options, emit contract.Emit) error {
	d, err := load(ctx, r, size, opts)
	if err != nil {
		return err
	}
	return wordproc.Partition(ctx, d, opts, emit)
}
