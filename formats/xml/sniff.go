package xml

import (
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/formats/textenc"
)

// xhtmlNS is XHTML's namespace: a document in it is HTML whatever its file name says.
const xhtmlNS = "http://www.w3.org/1999/xhtml"

// maxSniffTokens bounds how much of a document the sniffer reads: past it, a document that is
// well formed so far is taken as XML (a malformed tail is then the partitioner's error, as for
// any XML file).
const maxSniffTokens = 1 << 20

// sniffXML claims a .xml file (or one of the XML vocabularies' extensions) whose content is well-formed XML rooted in something other than
// <html>, although it has no XML declaration. A byte sniffer takes such a file for HTML when its
// root has an HTML name (<a>, <p>, <table>, <b>), so the HTML parser drops or glues its text, or
// for plain text (<foo xmlns:…>), so its tags become the text. The extension and well-formedness
// together say what the author meant; an <html> root or the XHTML namespace stays HTML, and
// content that does not parse as XML is left to the other rules.
func sniffXML(doc *contract.Document, _ []byte, ext string) (string, bool) {
	if !slices.Contains(extensions, ext) {
		return "", false
	}
	dec := xml.NewDecoder(newEntityReader(io.NewSectionReader(doc.Content, 0, doc.Size)))
	dec.Entity = map[string]string{}
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) { return textenc.NewReader(in, label) }
	depth, roots := 0, 0
	for n := 0; n < maxSniffTokens; n++ {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return MIMEType, roots == 1 && depth == 0
		}
		if err != nil {
			return "", false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if roots++; roots > 1 || strings.EqualFold(t.Name.Local, "html") || t.Name.Space == xhtmlNS {
					return "", false
				}
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && strings.TrimSpace(string(t)) != "" {
				return "", false // text outside the root: not a document
			}
		case xml.Directive:
			for _, m := range entityDecl.FindAllSubmatch(t, -1) {
				dec.Entity[string(m[1])] = ""
			}
		}
	}
	return MIMEType, roots == 1
}
