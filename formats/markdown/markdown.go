// Package markdown partitions Markdown documents the way the reference does: the text is
// rendered to HTML (tables and fenced code blocks enabled, raw HTML passed through, as
// Python-Markdown with its tables and fenced_code extensions renders it) and the HTML is
// partitioned by formats/html.
package markdown

import (
	"bytes"
	"context"
	"fmt"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	qhtml "github.com/quarrydocs/quarry/formats/html"

	"github.com/quarrydocs/quarry/contract"
)

// MIMEType is the canonical type this package registers.
const MIMEType = "text/markdown"

func init() {
	contract.RegisterFormat(contract.Format{Name: "md", MIME: MIMEType, Aliases: []string{"text/x-markdown"},
		Extensions: []string{".md", ".markdown"}, TrustExtension: true, Partitioner: contract.Func(partition)})
}

func partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	data, err := doc.Bytes()
	if err != nil {
		return fmt.Errorf("markdown: read: %w", err)
	}
	return PartitionBytes(ctx, data, opts, emit)
}

// PartitionBytes partitions Markdown source, decoded with opts.Get(contract.KeyEncoding) or detected.
func PartitionBytes(ctx context.Context, data []byte, opts contract.Options, emit contract.Emit) error {
	enc := ""
	if opts != nil {
		enc = opts.Get(contract.KeyEncoding)
	}
	text, err := qhtml.DecodeText(data, enc, false)
	if err != nil {
		return err
	}
	out, err := ToHTML(text)
	if err != nil {
		return err
	}
	return qhtml.PartitionUTF8(ctx, out, emit)
}

// ToHTML renders Markdown (UTF-8) to an HTML fragment.
func ToHTML(src []byte) ([]byte, error) {
	md := goldmark.New(
		goldmark.WithExtensions(extension.Table),
		goldmark.WithRendererOptions(html.WithUnsafe()),
	)
	var buf bytes.Buffer
	buf.Grow(len(src) + len(src)/4)
	if err := md.Convert(src, &buf); err != nil {
		return nil, fmt.Errorf("markdown: render: %w", err)
	}
	return buf.Bytes(), nil
}
