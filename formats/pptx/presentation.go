package pptx

import (
	"encoding/xml"
	"io"

	"github.com/quarrydocs/quarry/formats/internal/opc"
)

// sldIDs reads the relationship IDs of p:sldIdLst in order.
func sldIDs(r io.Reader) ([]string, error) {
	dec := xml.NewDecoder(r)
	var ids []string
	in := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return ids, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "sldIdLst":
				in = true
			case "sldId":
				if in {
					if id, ok := opc.Attr(t, "id"); ok {
						// p:sldId carries both a numeric id and r:id; the relationship one
						// is in the r namespace.
						for _, a := range t.Attr {
							if a.Name.Local == "id" && a.Name.Space != "" {
								id = a.Value
							}
						}
						ids = append(ids, id)
					}
				}
			}
		case xml.EndElement:
			if t.Name.Local == "sldIdLst" {
				return ids, nil
			}
		}
	}
}
