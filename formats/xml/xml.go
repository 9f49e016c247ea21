// Package xml partitions XML documents as the reference does: one element per XML element with
// non-blank direct text (the text before its first child), emitted when the element closes,
// classified by the §8 rules; with xml_keep_tags, one element holding the whole document.
// Entities declared in a DTD are never expanded, so entity-expansion attacks are inert.
package xml

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/formats/textenc"
)

func init() {
	engine.RegisterFormat(engine.PartitionFunc(Partition), "application/xml")
}

var entityDecl = regexp.MustCompile(`<!ENTITY\s+([^\s%]+)`)

// maxDepth bounds element nesting; deeper documents are rejected rather than tracked.
const maxDepth = 1 << 20

// Partition emits the leaf texts of doc.
func Partition(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
	if opts.XMLKeepTags {
		data, err := doc.Bytes()
		if err != nil {
			return fmt.Errorf("xml: read: %w", err)
		}
		s, err := textenc.Decode(data, opts.Encoding)
		if err != nil {
			return err
		}
		if strings.TrimSpace(s) == "" {
			return nil
		}
		return emit(element.Element{Type: element.UncategorizedText, Text: s})
	}
	var src io.Reader = doc.Reader()
	if opts.Encoding != "" {
		r, err := textenc.NewReader(src, opts.Encoding)
		if err != nil {
			return err
		}
		src = r
	}
	dec := xml.NewDecoder(src)
	// Entities declared in the DTD are never expanded (the reference parses with
	// resolve_entities=False): they read as empty, so entity-expansion attacks are inert.
	// Undeclared entities and malformed markup are errors, as in lxml.
	dec.Entity = map[string]string{}
	dec.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		if opts.Encoding != "" {
			return input, nil // already decoded
		}
		return textenc.NewReader(input, label)
	}
	// Per open element: its direct text so far and whether a child has started.
	type frame struct {
		text     strings.Builder
		hasChild bool
	}
	var stack []*frame
	count := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("xml: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) > 0 {
				stack[len(stack)-1].hasChild = true
			}
			if len(stack) >= maxDepth {
				return fmt.Errorf("xml: elements nested deeper than %d", maxDepth)
			}
			stack = append(stack, &frame{})
		case xml.CharData:
			if n := len(stack); n > 0 && !stack[n-1].hasChild {
				stack[n-1].text.Write(t)
			}
		case xml.Directive:
			for _, m := range entityDecl.FindAllSubmatch(t, -1) {
				dec.Entity[string(m[1])] = ""
			}
		case xml.Comment, xml.ProcInst:
			if n := len(stack); n > 0 {
				stack[n-1].hasChild = true // lxml's .text stops at the first child node
			}
		case xml.EndElement:
			if len(stack) == 0 {
				continue
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			text := strings.TrimSpace(f.text.String())
			if text == "" {
				continue
			}
			typ, txt := classify.Text(text)
			if err := emit(element.Element{Type: typ, Text: txt}); err != nil {
				return err
			}
			if count++; count%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
