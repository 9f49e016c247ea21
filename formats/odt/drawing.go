package odt

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/quarrydocs/quarry/formats/internal/opc"
	"github.com/quarrydocs/quarry/formats/internal/wordproc"
	"github.com/quarrydocs/quarry/formats/internal/xmlwalk"
)

// LoadDrawing reads the pages of an OpenDocument drawing package (.odg; an ODP's slides read
// the same way): per draw:page, in order, the paragraphs, lists and tables of its text boxes,
// shapes, connectors and groups, in the word-processing model. A page without text is an
// empty slice, so page numbers stay those of the document. what names the format in errors.
func LoadDrawing(ctx context.Context, r io.ReaderAt, size int64, what string) ([][]wordproc.Block, error) {
	pkg, err := opc.Open(r, size)
	if err != nil {
		return nil, opc.InvalidError(what, err)
	}
	if !pkg.Has("content.xml") {
		return nil, opc.InvalidError(what, fmt.Errorf("%w: content.xml", opc.ErrMissingPart))
	}
	st := styles{}
	if pkg.Has("styles.xml") {
		rc, err := pkg.OpenPart("styles.xml")
		if err != nil {
			return nil, opc.WrapError(what, "", err)
		}
		err = st.read(rc)
		rc.Close()
		if err != nil {
			return nil, opc.WrapError(what, "", fmt.Errorf("styles.xml: %w", err))
		}
	}
	rc, err := pkg.OpenPart("content.xml")
	if err != nil {
		return nil, opc.WrapError(what, "", err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, opc.WrapError(what, "", err)
	}
	pages, err := readDrawingXML(ctx, data, st)
	if err != nil {
		return nil, opc.WrapError(what, "", fmt.Errorf("content.xml: %w", err))
	}
	return pages, nil
}

// ReadDrawingXML reads the pages of a drawing's content XML: content.xml of a package, or a
// flat OpenDocument file (.fodg), whose office:document holds styles and body alike.
func ReadDrawingXML(ctx context.Context, data []byte) ([][]wordproc.Block, error) {
	return readDrawingXML(ctx, data, nil)
}

// readDrawingXML is ReadDrawingXML with the styles read from styles.xml (nil for none); the
// document's automatic styles are added to them.
func readDrawingXML(ctx context.Context, data []byte, st styles) ([][]wordproc.Block, error) {
	if st == nil {
		st = styles{}
	}
	if err := st.read(strings.NewReader(string(data))); err != nil {
		return nil, err
	}
	b := &builder{Decoder: xmlwalk.NewDecoder(ctx, strings.NewReader(string(data))), styles: st}
	for {
		se, err := b.Root("drawing", "presentation")
		if err == io.EOF {
			// Not a drawing (plain text, an ODT's office:text renamed): an error, not an
			// empty drawing, which still has its office:drawing element.
			return nil, errors.New("no office:drawing body: not an OpenDocument drawing")
		}
		if err != nil {
			return nil, err
		}
		if se.Name.Space == nsOffice {
			break
		}
	}
	var pages [][]wordproc.Block
	err := b.Children(func(t xml.StartElement) error {
		if t.Name.Space != nsDraw || t.Name.Local != "page" {
			return b.Skip()
		}
		b.float = nil
		if err := b.drawing(1); err != nil {
			return err
		}
		pages = append(pages, append(b.float, b.notes...))
		b.float, b.notes = nil, nil
		return nil
	})
	if err != nil {
		return nil, err
	}
	return pages, nil
}
