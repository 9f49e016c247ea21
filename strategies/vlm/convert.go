package vlm

import (
	"bytes"
	"context"
	"fmt"
	stdhtml "html"
	"regexp"
	"strings"

	nethtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/html"
)

// classTypes maps the class names a model may put on a block to element types: the reference's
// element types themselves, its layout-label map (partition-api.md §6.2) and the ontology names
// of the reference's HTML-v2 output (Paragraph, Heading, Caption…). Lookup is case-insensitive.
var classTypes = func() map[string]element.Type {
	m := map[string]element.Type{}
	add := func(t element.Type, names ...string) {
		for _, n := range names {
			m[strings.ToLower(n)] = t
		}
	}
	add(element.Title, "Title", "Section-header", "SectionHeader", "Headline", "Subheadline", "Field-Name", "Heading", "Subtitle")
	add(element.NarrativeText, "NarrativeText", "Text", "Paragraph", "Abstract", "Threading", "Value", "Link", "Quote", "Narrative")
	add(element.UncategorizedText, "UncategorizedText")
	add(element.ListItem, "ListItem", "List-item", "BulletedText")
	add(element.Header, "Header", "Page-header", "PageHeader")
	add(element.Footer, "Footer", "Page-footer", "PageFooter", "Footnote")
	add(element.FigureCaption, "FigureCaption", "Caption")
	add(element.Image, "Image", "Picture", "Figure")
	add(element.Table, "Table")
	add(element.Formula, "Formula", "Equation")
	add(element.Address, "Address")
	add(element.EmailAddress, "EmailAddress")
	add(element.CodeSnippet, "CodeSnippet", "CodeBlock", "Code")
	add(element.PageNumber, "PageNumber", "Page-number")
	add(element.FormKeysValues, "FormKeysValues", "FormFieldValue", "KeyValue")
	return m
}()

// containerClasses are wrappers whose children carry the structure (the model may wrap a page
// or a column in one). List classes keep the list whole: the HTML partitioner makes one
// ListItem per li.
var containerClasses = map[string]bool{"page": true, "document": true, "section": true, "column": true, "sidebar": true}
var listClasses = map[string]bool{"list": true, "orderedlist": true, "unorderedlist": true, "definitionlist": true}

// classOf returns the element type a node's class attribute names ("" for none) and whether the
// class marks a container or a list.
func classOf(n *nethtml.Node) (t element.Type, container, list bool) {
	for _, a := range n.Attr {
		if a.Namespace != "" || (a.Key != "class" && a.Key != "data-type" && a.Key != "data-category") {
			continue
		}
		for _, c := range strings.Fields(a.Val) {
			c = strings.ToLower(c)
			if typ, ok := classTypes[c]; ok {
				return typ, false, false
			}
			if containerClasses[c] {
				container = true
			}
			if listClasses[c] {
				list = true
			}
		}
	}
	return "", container, list
}

var (
	fence      = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*\\n(.*?)```")
	blankLines = regexp.MustCompile(`\n\s*\n`)
	spaces     = regexp.MustCompile(`\s+`)
)

// cleanAnswer removes what models wrap around HTML despite being told not to: Markdown code
// fences and prose before the first tag. An answer with no markup at all becomes paragraphs.
func cleanAnswer(s string) string {
	if m := fence.FindAllStringSubmatch(s, -1); len(m) > 0 {
		var b strings.Builder
		for _, g := range m {
			b.WriteString(g[1])
			b.WriteByte('\n')
		}
		s = b.String()
	}
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "<") || !strings.Contains(s, ">") {
		var b strings.Builder
		for _, para := range blankLines.Split(s, -1) {
			if para = strings.TrimSpace(para); para != "" {
				b.WriteString("<p>" + stdhtml.EscapeString(para) + "</p>\n")
			}
		}
		return b.String()
	}
	// A one-line preamble ("Here is the transcription:") before the markup is chatter.
	if i := strings.IndexByte(s, '<'); i > 0 {
		if pre := strings.TrimSpace(s[:i]); !strings.Contains(pre, "\n") && strings.HasSuffix(pre, ":") {
			s = s[i:]
		}
	}
	return s
}

// partitionPlain partitions an answer with the HTML partitioner alone.
func partitionPlain(ctx context.Context, answer []byte, page int) ([]element.Element, error) {
	var out []element.Element
	err := html.PartitionUTF8(ctx, answer, func(e element.Element) error {
		e.Metadata.PageNumber = element.Int(page)
		e.Metadata.Coordinates = nil
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("vlm: partition answer: %w", err)
	}
	return out, nil
}

// textOf returns the text under n; with alts, img alt texts count as text.
func textOf(n *nethtml.Node, alts bool) string {
	var b strings.Builder
	stack := []*nethtml.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch {
		case c.Type == nethtml.TextNode:
			b.WriteString(c.Data)
		case c.Type == nethtml.ElementNode && c.DataAtom == atom.Img && alts:
			for _, a := range c.Attr {
				if a.Key == "alt" {
					b.WriteString(" " + a.Val + " ")
				}
			}
		case c.Type == nethtml.ElementNode && (c.DataAtom == atom.Script || c.DataAtom == atom.Style):
			continue
		}
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
	return b.String()
}

// figureText is an image block's description: its alt texts and any text inside it.
func figureText(n *nethtml.Node) string {
	if n.DataAtom == atom.Img {
		for _, a := range n.Attr {
			if a.Key == "alt" {
				return collapse(a.Val)
			}
		}
		return ""
	}
	return collapse(textOf(n, true))
}

func collapse(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// segment is a run of top-level nodes partitioned together, with the type their class names.
type segment struct {
	nodes []*nethtml.Node
	typ   element.Type
}

// pageElements turns a model's HTML answer for one page into elements: the HTML partitioner
// does the text work (whitespace, lists, tables with text_as_html, emphasis, links) and the
// class attributes then decide the type where they name one.
func pageElements(ctx context.Context, answer string, page int) ([]element.Element, error) {
	cleaned := cleanAnswer(answer)
	root, err := nethtml.Parse(strings.NewReader(cleaned))
	if err != nil {
		// Markup nested past the parser's limit: the HTML partitioner flattens it, at the
		// cost of the class mapping.
		return partitionPlain(ctx, []byte(cleaned), page)
	}
	body := findBody(root)
	if body == nil {
		return nil, nil
	}
	renameDropped(body)
	classed := classedAncestors(body)
	var segs []segment
	var pending []*nethtml.Node
	flush := func() {
		if len(pending) > 0 {
			segs = append(segs, segment{nodes: pending})
			pending = nil
		}
	}
	// Iterative walk over the top-level structure: wrappers are opened, classified blocks
	// become their own segment, everything else accumulates into the current run.
	type frame struct{ next *nethtml.Node }
	stack := []frame{{body.FirstChild}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		n := f.next
		if n == nil {
			stack = stack[:len(stack)-1]
			continue
		}
		f.next = n.NextSibling
		if n.Type != nethtml.ElementNode {
			pending = append(pending, n)
			continue
		}
		typ, container, list := classOf(n)
		switch {
		case typ != "":
			flush()
			segs = append(segs, segment{nodes: []*nethtml.Node{n}, typ: typ})
		case list:
			flush()
			segs = append(segs, segment{nodes: []*nethtml.Node{n}})
		case container || classed[n]:
			flush()
			stack = append(stack, frame{n.FirstChild})
		default:
			pending = append(pending, n)
		}
	}
	flush()

	var out []element.Element
	for _, s := range segs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.typ == element.Image {
			// Models describe figures in alt text of an img without a source, which the
			// HTML partitioner skips; the description is the element's text.
			e := element.Element{Type: element.Image, Text: figureText(s.nodes[0])}
			e.Metadata.PageNumber = element.Int(page)
			out = append(out, e)
			continue
		}
		var buf bytes.Buffer
		buf.WriteString("<html><body>")
		for _, n := range s.nodes {
			if err := nethtml.Render(&buf, n); err != nil {
				return nil, fmt.Errorf("vlm: render answer: %w", err)
			}
		}
		buf.WriteString("</body></html>")
		var got []element.Element
		err := html.PartitionUTF8(ctx, buf.Bytes(), func(e element.Element) error {
			got = append(got, e)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("vlm: partition answer: %w", err)
		}
		if len(got) == 0 && s.typ != "" {
			// The reference's HTML rules drop some short texts (a bare page number); a block
			// the model classified is kept.
			if text := collapse(textOf(s.nodes[0], false)); text != "" {
				got = append(got, element.Element{Type: s.typ, Text: text})
			}
		}
		for i := range got {
			retype(&got[i], s.typ)
			got[i].Metadata.PageNumber = element.Int(page)
			got[i].Metadata.Coordinates = nil
		}
		out = append(out, got...)
	}
	return out, nil
}

// retype applies a class's type to an element the HTML partitioner produced. Tables and images
// keep their own type (their structure is what the partitioner read), so does everything when
// the class names nothing.
func retype(e *element.Element, typ element.Type) {
	if typ == "" || e.Type == typ {
		return
	}
	if (e.Type == element.Table || e.Type == element.Image) && typ != element.Table && typ != element.Image {
		return
	}
	e.Type = typ
	switch typ {
	case element.Title:
		if e.Metadata.CategoryDepth == nil {
			e.Metadata.CategoryDepth = element.Int(0)
		}
	case element.ListItem:
	default:
		e.Metadata.CategoryDepth = nil
	}
	if typ != element.Table {
		e.Metadata.TextAsHTML = ""
	}
}

// renameDropped turns tags the HTML partitioner drops (the reference removes figure) into ones
// it reads, so a model's <figure> or <figcaption> keeps its content, and marks images without
// a source (a model's figure descriptions) as Image blocks.
func renameDropped(root *nethtml.Node) {
	stack := []*nethtml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Type == nethtml.ElementNode {
			switch n.DataAtom {
			case atom.Figure:
				n.DataAtom, n.Data = atom.Div, "div"
			case atom.Figcaption:
				n.DataAtom, n.Data = atom.P, "p"
			case atom.Img:
				if t, _, _ := classOf(n); t == "" && !hasAttr(n, "src") && !hasAttr(n, "data-src") {
					n.Attr = append(n.Attr, nethtml.Attribute{Key: "class", Val: "Image"})
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, c)
		}
	}
}

func hasAttr(n *nethtml.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" && strings.TrimSpace(a.Val) != "" {
			return true
		}
	}
	return false
}

// classedAncestors returns the nodes that contain a classified descendant: wrappers to open
// rather than partition whole. One post-order pass, no recursion.
func classedAncestors(root *nethtml.Node) map[*nethtml.Node]bool {
	has := map[*nethtml.Node]bool{}
	var order []*nethtml.Node
	stack := []*nethtml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, n)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == nethtml.ElementNode {
				stack = append(stack, c)
			}
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		typ, container, list := classOf(n)
		if (typ != "" || container || list || has[n]) && n.Parent != nil {
			has[n.Parent] = true
		}
	}
	return has
}

func findBody(root *nethtml.Node) *nethtml.Node {
	stack := []*nethtml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Type == nethtml.ElementNode && n.DataAtom == atom.Body {
			return n
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, c)
		}
	}
	return nil
}
