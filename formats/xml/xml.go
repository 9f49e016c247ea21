// Package xml partitions XML documents as the reference does: one element per XML element with
// non-blank direct text (the text before its first child), emitted when the element closes,
// classified by the §8 rules; with xml_keep_tags, one element holding the whole document.
// Entities declared in a DTD are never expanded, so entity-expansion attacks are inert.
//
// Two departures keep text the reference loses: an element with mixed content (text around
// inline children, as in <p><ref>FIG. 1</ref> illustrates …</p>) is one element holding all
// its text in document order, where the reference keeps only the text before the first child;
// and references to entities the parser cannot know (declared in an external DTD, or HTML
// names such as &ldquo;) are kept as text — HTML names mapped to their characters — where the
// reference fails.
package xml

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/textenc"
)

// MIMEType is XML's canonical type.
const MIMEType = "application/xml"

// KeyKeepTags is the API's xml_keep_tags: the whole document as one element, tags and all.
const KeyKeepTags = "xml_keep_tags"

func init() {
	// Every sniffed "…xml" type (RSS, SVG, text/xml) is partitioned as XML, but XHTML, which
	// the html format registers under its own name.
	contract.RegisterFormat(contract.Format{Name: "xml", MIME: MIMEType, Aliases: []string{"text/xml"}, Extensions: extensions,
		MIMESuffix: "xml", SniffText: sniffXML, SniffOrder: 5, Options: []contract.KeySpec{{Key: KeyKeepTags, Kind: contract.Bool, Help: "XML: one element holding the raw document", Since: 2}},
		Partitioner: contract.Func(Partition)})
}

// extensions are XML's own and those of XML vocabularies people keep documents in (schemas and
// stylesheets, KML and GPX, feeds, RDF, WSDL, XLIFF and .resx translations, DITA, TEI and
// DocBook): content in them is XML when it is well formed, declared or not (sniffXML).
var extensions = []string{".xml", ".xsd", ".xsl", ".xslt", ".kml", ".gpx", ".rss", ".atom", ".rdf", ".wsdl",
	".xlf", ".xliff", ".resx", ".dita", ".ditamap", ".tei", ".dbk"}

var entityDecl = regexp.MustCompile(`<!ENTITY\s+([^\s%]+)`)

// maxDepth bounds element nesting; deeper documents are rejected rather than tracked.
const maxDepth = 1 << 20

// Partition emits the leaf texts of doc.
func Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	if opts.Bool(KeyKeepTags, false) {
		data, err := doc.Bytes()
		if err != nil {
			return fmt.Errorf("xml: read: %w", err)
		}
		s, err := textenc.Decode(data, opts.Get(contract.KeyEncoding))
		if err != nil {
			return err
		}
		if strings.TrimSpace(s) == "" {
			return nil
		}
		return emit(element.Element{Type: element.UncategorizedText, Text: s})
	}
	var src io.Reader = doc.Reader()
	if opts.Get(contract.KeyEncoding) != "" {
		r, err := textenc.NewReader(src, opts.Get(contract.KeyEncoding))
		if err != nil {
			return err
		}
		src = r
	}
	dec := xml.NewDecoder(newEntityReader(src))
	// Entities declared in the DTD are never expanded (the reference parses with
	// resolve_entities=False): they read as empty, so entity-expansion attacks are inert.
	// Other references are kept as text by entityReader; malformed markup is an error, as
	// in lxml.
	dec.Entity = map[string]string{}
	dec.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		if opts.Get(contract.KeyEncoding) != "" {
			return input, nil // already decoded
		}
		return textenc.NewReader(input, label)
	}
	emitted := 0
	w := walker{emit: func(text string) error {
		typ, txt := classify.Text(text)
		emitted++
		return emit(element.Element{Type: typ, Text: txt})
	}}
	// Attribute values are kept aside (up to maxAttrText bytes): a document whose only text
	// sits in attributes (records as <row name="…"/>) gives them rather than an empty result.
	var attrs []string
	attrBytes := 0
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
			if err := w.start(); err != nil {
				return err
			}
			if emitted == 0 {
				for _, a := range t.Attr {
					v := strings.TrimSpace(a.Value)
					if v == "" || a.Name.Space == "xmlns" || a.Name.Local == "xmlns" || attrBytes+len(v) > maxAttrText {
						continue
					}
					attrs = append(attrs, v)
					attrBytes += len(v)
				}
			}
		case xml.CharData:
			if err := w.chars(t); err != nil {
				return err
			}
		case xml.Directive:
			for _, m := range entityDecl.FindAllSubmatch(t, -1) {
				dec.Entity[string(m[1])] = ""
			}
		case xml.Comment, xml.ProcInst:
			w.opaque()
		case xml.EndElement:
			if err := w.end(); err != nil {
				return err
			}
			if count++; count%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
		}
	}
	if emitted == 0 {
		for _, v := range attrs {
			if err := w.emit(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxAttrText bounds the attribute text held for a document without element text.
const maxAttrText = 4 << 20
