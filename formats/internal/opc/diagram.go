package opc

import (
	"bytes"
	"encoding/xml"
	"strings"
)

// maxDiagramPoints bounds the nodes read from one SmartArt data part.
const maxDiagramPoints = 10000

// DiagramText reads a SmartArt data part (dgm:dataModel, shared by WordprocessingML and
// PresentationML): the paragraphs of each node point's text body, in the part's order.
// Connection, document and presentation points hold no text of the diagram. What was read
// before any damage in the part is returned.
func DiagramText(data []byte) []string {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var out []string
	var para *strings.Builder
	inNode, inText, points := false, false, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "pt":
				typ, _ := Attr(t, "type")
				inNode = typ == "" || typ == "node"
				if points++; points > maxDiagramPoints {
					return out
				}
			case "p":
				if inNode {
					para = &strings.Builder{}
				}
			case "t":
				inText = para != nil
			}
		case xml.CharData:
			if inText {
				para.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if para != nil {
					if text := strings.TrimSpace(para.String()); text != "" {
						out = append(out, text)
					}
					para = nil
				}
			case "pt":
				inNode = false
			}
		}
	}
}
