// Package html partitions HTML documents into elements the way the reference system's v1 HTML
// parser does: every block element (paragraph, heading, list item, div-like container run,
// pre, table, image) yields at most one element; runs of inline ("phrasing") content are
// whitespace-normalised and classified with classify.Paragraph; emphasis (b/strong, i/em) and
// links are recorded as metadata; navigation, forms, scripts and the like are dropped.
//
// Other formats that produce HTML (Markdown, EPUB, RTF, ORG, RST, e-mail bodies, VLM output)
// partition it through PartitionHTML or PartitionBytes.
package html

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	nethtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/quarrydocs/quarry/contract"
)

// MIMEType is the canonical type this package registers.
const MIMEType = "text/html"

func init() {
	// XHTML is HTML: by its type (the sniffer names XHTML with an XML declaration so) and by
	// its extensions, whatever the XML format claims of the "+xml" family.
	contract.RegisterFormat(contract.Format{Name: "html", MIME: MIMEType, Aliases: []string{"application/xhtml+xml"},
		Extensions:     []string{".html", ".htm", ".xhtml", ".xht"},
		TrustExtension: true, AcceptsXML: true, Partitioner: contract.Func(partition)})
}

var _ contract.Partitioner = contract.Func(partition)

func partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	data, err := doc.Bytes()
	if err != nil {
		return fmt.Errorf("html: read: %w", err)
	}
	return PartitionBytes(ctx, data, opts, emit)
}

// PartitionHTML reads an HTML document from r and emits its elements. The bytes are decoded
// with opts.Get(contract.KeyEncoding) when set, else with the detected encoding (BOM, <meta> charset, UTF-8,
// statistical guess).
func PartitionHTML(ctx context.Context, r io.Reader, opts contract.Options, emit contract.Emit) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("html: read: %w", err)
	}
	return PartitionBytes(ctx, data, opts, emit)
}

// PartitionBytes is PartitionHTML for a document already in memory.
func PartitionBytes(ctx context.Context, data []byte, opts contract.Options, emit contract.Emit) error {
	enc := ""
	if opts != nil {
		enc = opts.Get(contract.KeyEncoding)
	}
	text, err := DecodeText(data, enc, true)
	if err != nil {
		return err
	}
	return PartitionUTF8(ctx, text, emit)
}

// PartitionUTF8 partitions HTML that is already UTF-8 (what converters such as pandoc or a
// Markdown renderer produce), ignoring any charset the document declares.
func PartitionUTF8(ctx context.Context, text []byte, emit contract.Emit) error {
	root, err := parse(text)
	if err != nil {
		return err
	}
	body := findBody(root)
	if body == nil {
		return nil
	}
	w := newWalker(ctx, emit)
	return w.run(body)
}

// maxDepth is below x/net/html's own limit (512 open elements), which makes Parse fail
// outright; documents nested deeper are flattened first.
const maxDepth = 400

func parse(text []byte) (*nethtml.Node, error) {
	root, err := nethtml.Parse(bytes.NewReader(text))
	if err == nil {
		return root, nil
	}
	if !strings.Contains(err.Error(), "open stack of elements") {
		return nil, fmt.Errorf("html: parse: %w", err)
	}
	// Pathologically nested markup (thousands of unclosed <font> or <div> tags): keep the
	// text and the outer structure, drop the tags nested beyond maxDepth.
	root, err = nethtml.Parse(bytes.NewReader(flattenDeep(text, maxDepth)))
	if err != nil {
		return nil, contract.Errorf(contract.KindUnprocessable, "html: document nests elements too deeply: %v", err)
	}
	return root, nil
}

// flattenDeep rewrites a token stream so that no more than limit start tags are open at once,
// counted naively (void elements and self-closing tags do not open anything). Start tags past
// the limit and their matching end tags are dropped; text and everything else are kept.
func flattenDeep(text []byte, limit int) []byte {
	var out bytes.Buffer
	out.Grow(len(text))
	z := nethtml.NewTokenizer(bytes.NewReader(text))
	depth := 0
	dropped := map[string]int{}
	for {
		tt := z.Next()
		if tt == nethtml.ErrorToken {
			break
		}
		raw := z.Raw()
		switch tt {
		case nethtml.StartTagToken:
			name, _ := z.TagName()
			if isVoid(atom.Lookup(name)) {
				break
			}
			if depth >= limit {
				dropped[string(name)]++
				continue
			}
			depth++
		case nethtml.EndTagToken:
			name, _ := z.TagName()
			if dropped[string(name)] > 0 {
				dropped[string(name)]--
				continue
			}
			if depth > 0 {
				depth--
			}
		}
		out.Write(raw)
	}
	return out.Bytes()
}

func isVoid(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Link, atom.Meta, atom.Source, atom.Track, atom.Wbr, atom.Param, atom.Keygen:
		return true
	}
	return false
}

// findBody returns the element whose content is the document, as the reference chooses it:
// the first <main> in document order, else <body>. The walk is iterative (no recursion).
func findBody(root *nethtml.Node) *nethtml.Node {
	var body *nethtml.Node
	stack := []*nethtml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Type == nethtml.ElementNode && n.Namespace == "" {
			switch n.DataAtom {
			case atom.Main:
				return n
			case atom.Body:
				if body == nil {
					body = n
				}
			}
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			if c.Type == nethtml.ElementNode || c.Type == nethtml.DocumentNode {
				stack = append(stack, c)
			}
		}
	}
	return body
}

// ExpandSelfClosing rewrites XHTML self-closing tags of non-void elements (<a id="x"/>,
// <div/>) as start and end tag pairs. An HTML parser treats "/>" on a non-void element as a
// plain start tag, which would wrap everything after it.
func ExpandSelfClosing(data []byte) []byte {
	if !bytes.Contains(data, []byte("/>")) {
		return data
	}
	var out bytes.Buffer
	out.Grow(len(data) + len(data)/64)
	z := nethtml.NewTokenizer(bytes.NewReader(data))
	for {
		tt := z.Next()
		if tt == nethtml.ErrorToken {
			break
		}
		raw := z.Raw()
		if tt == nethtml.SelfClosingTagToken {
			name, _ := z.TagName()
			if !isVoid(atom.Lookup(name)) {
				raw = bytes.TrimSuffix(bytes.TrimRight(raw[:len(raw)-2], " \t\r\n"), []byte("/"))
				out.Write(raw)
				out.WriteString("></")
				out.Write(name)
				out.WriteByte('>')
				continue
			}
		}
		out.Write(raw)
	}
	return out.Bytes()
}
