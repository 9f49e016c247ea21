// Package xmlwalk reads an XML part element by element for the streaming parsers of the
// office formats (docx, pptx, odt): they walk a part depth first without building a tree,
// so a part of any size costs memory for the text it keeps only.
package xmlwalk

import (
	"context"
	"encoding/xml"
	"io"
)

// Decoder reads one part's tokens.
type Decoder struct {
	ctx context.Context
	dec *xml.Decoder
	n   int
}

// NewDecoder returns a Decoder reading r; ctx is checked as tokens are read.
func NewDecoder(ctx context.Context, r io.Reader) *Decoder {
	return &Decoder{ctx: ctx, dec: xml.NewDecoder(r)}
}

// Token returns the next token. It checks the context every 4096 tokens (a part can hold
// millions). Token is called inside an element, so an end of input is never io.EOF: a part
// that ends there is truncated, not a short document.
func (d *Decoder) Token() (xml.Token, error) {
	d.n++
	if d.n&4095 == 0 {
		if err := d.ctx.Err(); err != nil {
			return nil, err
		}
	}
	tok, err := d.dec.Token()
	if err == io.EOF {
		return nil, io.ErrUnexpectedEOF
	}
	return tok, err
}

// Skip reads past the end of the element whose start was read last.
func (d *Decoder) Skip() error { return d.dec.Skip() }

// Root advances to the first start element whose local name is one of names (io.EOF when
// there is none).
func (d *Decoder) Root(names ...string) (xml.StartElement, error) {
	for {
		tok, err := d.dec.Token()
		if err != nil {
			return xml.StartElement{}, err
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, n := range names {
				if se.Name.Local == n {
					return se, nil
				}
			}
		}
	}
}

// Children calls fn with each child element of the element whose start was read last, until
// that element ends; character data between them is passed over. fn must read its element to
// its end (by reading it, or with Skip). The first error from fn or the decoder ends the walk.
func (d *Decoder) Children(fn func(xml.StartElement) error) error {
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := fn(t); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}
