// Package odg partitions OpenDocument drawings (.odg, templates .otg, flat .fodg): the text of
// each page's text boxes, shapes, connectors, groups and tables, page by page, with the page
// number in metadata. The reference has no ODG partitioner (a 400); LibreOffice Draw is how
// people write flow charts, posters and forms, and their words are the document.
//
// Paragraphs are typed as ODT body text is (formats/internal/wordproc: headings by outline
// level, list items, the text rules for the rest), tables become Table elements.
package odg

import (
	"context"
	"fmt"
	"io"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/internal/opc"
	"github.com/quarrydocs/quarry/formats/internal/wordproc"
	"github.com/quarrydocs/quarry/formats/odt"
)

// The drawing's content types: the packaged document (its "mimetype" member names it), its
// template, and the flat single-XML form.
const (
	MIME         = "application/vnd.oasis.opendocument.graphics"
	MIMETemplate = "application/vnd.oasis.opendocument.graphics-template"
	MIMEFlat     = "application/vnd.oasis.opendocument.graphics-flat-xml"
)

// maxFlat bounds a flat drawing read into memory (a packaged one's parts are bounded by opc).
const maxFlat = 256 << 20

func init() {
	contract.RegisterFormat(contract.Format{Name: "odg", MIME: MIME, Aliases: []string{MIMETemplate},
		Extensions: []string{".odg", ".otg"}, Container: true, Partitioner: contract.Func(partition)})
	// A flat drawing is XML; its extension claims it from the XML format.
	contract.RegisterFormat(contract.Format{Name: "fodg", MIME: MIMEFlat, Extensions: []string{".fodg"},
		AcceptsXML: true, TrustExtension: true, Partitioner: contract.Func(partitionFlat)})
}

func partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	pages, err := odt.LoadDrawing(ctx, doc.Content, doc.Size, "odg")
	if err != nil {
		return err
	}
	return emitPages(ctx, pages, opts, emit)
}

func partitionFlat(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	if doc.Size > maxFlat {
		return &contract.Error{Kind: contract.KindUnprocessable,
			Msg: fmt.Sprintf("Flat OpenDocument drawing of %d bytes is over the %d-byte limit", doc.Size, maxFlat)}
	}
	data, err := io.ReadAll(doc.Reader())
	if err != nil {
		return fmt.Errorf("fodg: read: %w", err)
	}
	pages, err := odt.ReadDrawingXML(ctx, data)
	if err != nil {
		return opc.WrapError("fodg", "", err)
	}
	return emitPages(ctx, pages, opts, emit)
}

// emitPages partitions each page's blocks as ODT body text, numbering the elements by page and
// putting a PageBreak between pages when asked.
func emitPages(ctx context.Context, pages [][]wordproc.Block, opts contract.Options, emit contract.Emit) error {
	breaks := opts.Bool(contract.KeyIncludePageBreaks, false)
	for i, blocks := range pages {
		page := i + 1
		if breaks && page >= 2 {
			el := element.Element{Type: element.PageBreak}
			el.Metadata.PageNumber = element.Int(page - 1)
			if err := emit(el); err != nil {
				return err
			}
		}
		if len(blocks) == 0 {
			continue
		}
		d := &wordproc.Document{Body: blocks, Styles: odt.StyleNames(), DefaultStyle: "Normal"}
		err := wordproc.Partition(ctx, d, opts, func(e element.Element) error {
			e.Metadata.PageNumber = element.Int(page)
			return emit(e)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
