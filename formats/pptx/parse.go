package pptx

import (
	"context"
	"encoding/xml"
	"io"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/formats/internal/opc"
	"github.com/quarrydocs/quarry/formats/internal/xmlwalk"
)

type shapeKind uint8

const (
	kindOther shapeKind = iota
	kindSp              // p:sp, an autoshape or text box: always has a text frame
	kindGroup
	kindFrame // p:graphicFrame
	kindPic
)

// Shape is the slice of a PresentationML shape the partitioner reads.
type Shape struct {
	kind     shapeKind
	hasPh    bool
	phType   string
	phIdx    int
	hasOff   bool
	x, y     int64
	paras    []Paragraph
	table    [][]string // cell texts when the shape is a table frame
	isTable  bool
	children []*Shape
	diagram  string // relationship ID of a SmartArt frame's data part
	chart    string // relationship ID of a chart frame's chart part
}

// Paragraph is one a:p of a text frame.
type Paragraph struct {
	Text   string
	Level  int
	Bullet bool // a:pPr/a:buChar present
}

// slideParser reads shapes from a slide, layout, master or notes part.
type slideParser struct{ *xmlwalk.Decoder }

// parseShapes returns the top-level shapes of the part's p:spTree.
func parseShapes(ctx context.Context, r io.Reader) ([]*Shape, error) {
	p := &slideParser{xmlwalk.NewDecoder(ctx, r)}
	if _, err := p.Root("spTree"); err == io.EOF {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return p.shapes(0)
}

// shapes reads the shape children of a shape tree or group until its end tag.
func (p *slideParser) shapes(depth int) ([]*Shape, error) {
	if depth > opc.MaxDepth {
		return nil, opc.ErrTooDeep
	}
	var out []*Shape
	err := p.Children(func(t xml.StartElement) error {
		if t.Name.Local == "AlternateContent" {
			alt, err := p.alternate(depth + 1)
			out = append(out, alt...)
			return err
		}
		kind, ok := shapeKinds[t.Name.Local]
		if !ok {
			return p.Skip()
		}
		s, err := p.shape(kind, depth)
		if err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// shapeKinds are the elements of a shape tree or group that are shapes.
var shapeKinds = map[string]shapeKind{
	"sp": kindSp, "grpSp": kindGroup, "graphicFrame": kindFrame, "pic": kindPic,
	"cxnSp": kindOther, "contentPart": kindOther,
}

// alternate reads mc:AlternateContent in a shape tree: the shapes of the first branch (a
// choice, else the fallback) that holds text, else of the first that holds shapes. The branches are copies of one shape for readers
// of different abilities, so only one is kept; python-pptx reads neither and loses the shape.
func (p *slideParser) alternate(depth int) ([]*Shape, error) {
	var out []*Shape
	err := p.Children(func(t xml.StartElement) error {
		if hasText(out) || (t.Name.Local != "Choice" && t.Name.Local != "Fallback") {
			return p.Skip()
		}
		shapes, err := p.shapes(depth + 1)
		if err != nil {
			return err
		}
		if len(out) == 0 || hasText(shapes) {
			out = shapes
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// shape reads one shape element; the walk goes down through its descendants looking for the
// few elements that matter, tracking which one it is inside.
func (p *slideParser) shape(kind shapeKind, depth int) (*Shape, error) {
	if depth > opc.MaxDepth {
		return nil, opc.ErrTooDeep
	}
	s := &Shape{kind: kind}
	if kind == kindGroup {
		// A group: its own properties, then child shapes.
		err := p.Children(func(t xml.StartElement) error {
			switch t.Name.Local {
			case "nvGrpSpPr":
				return p.nonVisual(s)
			case "grpSpPr":
				return p.findOff(s)
			case "AlternateContent":
				alt, err := p.alternate(depth + 1)
				s.children = append(s.children, alt...)
				return err
			}
			ck, ok := shapeKinds[t.Name.Local]
			if !ok {
				return p.Skip()
			}
			c, err := p.shape(ck, depth+1)
			if err != nil {
				return err
			}
			s.children = append(s.children, c)
			return nil
		})
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	for {
		tok, err := p.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "nvSpPr", "nvGraphicFramePr", "nvPicPr", "nvCxnSpPr":
				if err := p.nonVisual(s); err != nil {
					return nil, err
				}
			case "spPr", "xfrm":
				if err := p.findOff(s); err != nil {
					return nil, err
				}
			case "txBody":
				paras, err := p.textBody()
				if err != nil {
					return nil, err
				}
				s.paras = paras
			case "graphic", "graphicData":
				// descend
			case "tbl":
				rows, err := p.table()
				if err != nil {
					return nil, err
				}
				s.table, s.isTable = rows, true
			case "chart":
				// A chart: its titles and data are in the chart part, read by the slide.
				s.chart, _ = opc.Attr(t, "id")
				if err := p.Skip(); err != nil {
					return nil, err
				}
			case "relIds":
				// SmartArt: the text is in the diagram's data part, read by the slide.
				s.diagram, _ = opc.Attr(t, "dm")
				if err := p.Skip(); err != nil {
					return nil, err
				}
			default:
				if err := p.Skip(); err != nil {
					return nil, err
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "graphic", "graphicData":
				continue
			}
			return s, nil
		}
	}
}

// nonVisual reads p:nvXxPr for the placeholder (p:nvPr/p:ph).
func (p *slideParser) nonVisual(s *Shape) error {
	depth := 1
	for depth > 0 {
		tok, err := p.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if t.Name.Local == "ph" {
				s.hasPh = true
				s.phType, _ = opc.Attr(t, "type")
				if s.phType == "" {
					s.phType = "obj"
				}
				if v, ok := opc.Attr(t, "idx"); ok {
					s.phIdx, _ = strconv.Atoi(v)
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// findOff reads a shape-properties element for the first a:xfrm/a:off.
func (p *slideParser) findOff(s *Shape) error {
	depth := 1
	inXfrm := 0
	for depth > 0 {
		tok, err := p.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "xfrm":
				inXfrm = depth
			case "off":
				if (inXfrm > 0 || depth == 2) && !s.hasOff {
					xs, _ := opc.Attr(t, "x")
					ys, _ := opc.Attr(t, "y")
					x, err1 := strconv.ParseInt(xs, 10, 64)
					y, err2 := strconv.ParseInt(ys, 10, 64)
					if err1 == nil && err2 == nil {
						s.x, s.y, s.hasOff = x, y, true
					}
				}
			}
		case xml.EndElement:
			if depth == inXfrm {
				inXfrm = 0
			}
			depth--
		}
	}
	return nil
}

// textBody reads the paragraphs of a text body.
func (p *slideParser) textBody() ([]Paragraph, error) {
	var out []Paragraph
	err := p.Children(func(t xml.StartElement) error {
		if t.Name.Local != "p" {
			return p.Skip()
		}
		para, err := p.paragraph()
		if err != nil {
			return err
		}
		out = append(out, para)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// paragraph reads an a:p; its text is python-pptx's: runs and fields, line breaks as "\v".
func (p *slideParser) paragraph() (Paragraph, error) {
	var para Paragraph
	var b strings.Builder
	err := p.Children(func(t xml.StartElement) error {
		switch t.Name.Local {
		case "pPr":
			if v, ok := opc.Attr(t, "lvl"); ok {
				para.Level, _ = strconv.Atoi(v)
				para.Level = min(max(para.Level, 0), 8)
			}
			return p.pPr(&para)
		case "r", "fld":
			s, err := p.runText()
			b.WriteString(s)
			return err
		case "br":
			b.WriteByte('\v')
		}
		return p.Skip()
	})
	para.Text = b.String()
	return para, err
}

func (p *slideParser) pPr(para *Paragraph) error {
	return p.Children(func(t xml.StartElement) error {
		if t.Name.Local == "buChar" {
			para.Bullet = true
		}
		return p.Skip()
	})
}

// runText returns the a:t text of a run or field.
func (p *slideParser) runText() (string, error) {
	var b strings.Builder
	depth := 1
	inT := false
	for depth > 0 {
		tok, err := p.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			inT = t.Name.Local == "t" && depth == 2
		case xml.CharData:
			if inT {
				b.Write(t)
			}
		case xml.EndElement:
			depth--
			inT = false
		}
	}
	return b.String(), nil
}

// table reads an a:tbl into cell texts (each cell's paragraphs joined by newlines).
func (p *slideParser) table() ([][]string, error) {
	var rows [][]string
	for {
		tok, err := p.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "tr":
				rows = append(rows, nil)
			case "tc":
				text, err := p.cell()
				if err != nil {
					return nil, err
				}
				if len(rows) > 0 {
					rows[len(rows)-1] = append(rows[len(rows)-1], text)
				}
			default:
				if err := p.Skip(); err != nil {
					return nil, err
				}
			}
		case xml.EndElement:
			if t.Name.Local == "tbl" {
				return rows, nil
			}
		}
	}
}

func (p *slideParser) cell() (string, error) {
	var lines []string
	err := p.Children(func(t xml.StartElement) error {
		if t.Name.Local != "txBody" {
			return p.Skip()
		}
		paras, err := p.textBody()
		for _, para := range paras {
			lines = append(lines, para.Text)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	return strings.Join(lines, "\n"), nil
}

// hasText reports whether any of the shapes (or their group members) holds text or a table.
func hasText(shapes []*Shape) bool {
	for _, s := range shapes {
		if len(s.paras) > 0 || s.isTable || hasText(s.children) {
			return true
		}
	}
	return false
}
