package html

import (
	"strconv"
	"strings"

	nethtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/element"
)

// table emits one Table for a <table>: the rows directly under it (or under its
// thead/tbody/tfoot), each row's td/th cells, a cell's text being all the text inside it (a
// nested table is flattened into its cell).
func (w *walker) table(n *nethtml.Node, page *int) error {
	var rows [][]string
	var spans [][]span
	addRow := func(tr *nethtml.Node) {
		var cells []string
		var sp []span
		for td := tr.FirstChild; td != nil; td = td.NextSibling {
			if td.Type == nethtml.ElementNode && (td.DataAtom == atom.Td || td.DataAtom == atom.Th) {
				cells = append(cells, cellText(td))
				sp = append(sp, span{spanAttr(td, "colspan"), spanAttr(td, "rowspan")})
			}
		}
		rows = append(rows, cells)
		spans = append(spans, sp)
	}
	var caption string
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != nethtml.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Caption:
			caption = normalizeSpace(cellText(c))
		case atom.Tr:
			addRow(c)
		case atom.Thead, atom.Tbody, atom.Tfoot:
			for tr := c.FirstChild; tr != nil; tr = tr.NextSibling {
				if tr.Type == nethtml.ElementNode && tr.DataAtom == atom.Tr {
					addRow(tr)
				}
			}
		}
	}
	if caption != "" {
		// Deliberate difference: a table's caption (a Wikipedia table's title, a report's
		// "Table 3: …") is text of its own before the table; the reference drops it.
		typ, text := classify.Paragraph(caption)
		e := element.Element{Type: typ, Text: text}
		e.Metadata.PageNumber = page
		if err := w.emit(e); err != nil {
			return err
		}
	}
	if len(rows) == 0 {
		return nil
	}
	text := tableText(rows)
	if text == "" {
		return nil
	}
	e := element.Element{Type: element.Table, Text: text}
	e.Metadata.PageNumber = page
	e.Metadata.TextAsHTML = compactTableHTML(rows, spans)
	return w.emit(e)
}

// span is a cell's colspan and rowspan (1 when absent).
type span struct{ col, row int }

// maxSpan bounds a span attribute as browsers do (HTML: colspan ≤ 1000, rowspan ≤ 65534).
const maxSpan = 1000

// spanAttr reads a colspan/rowspan attribute as a browser does: leading digits, at least 1.
func spanAttr(n *nethtml.Node, name string) int {
	for _, a := range n.Attr {
		if a.Key != name {
			continue
		}
		v, digits := 0, 0
		for _, c := range strings.TrimSpace(a.Val) {
			if c < '0' || c > '9' || v > maxSpan {
				break
			}
			v = v*10 + int(c-'0')
			digits++
		}
		if digits == 0 || v < 1 {
			return 1
		}
		return min(v, maxSpan)
	}
	return 1
}

// cellText joins the stripped, non-empty text nodes inside a cell with single spaces; line
// breaks inside a text node are kept (they become <br/> in the table HTML).
func cellText(td *nethtml.Node) string {
	var parts []string
	stack := []*nethtml.Node{td}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch c.Type {
		case nethtml.TextNode:
			if t := pyStrip(c.Data); t != "" {
				parts = append(parts, t)
			}
			continue
		case nethtml.ElementNode:
			if c != td && kindOf(c) == kStripped {
				continue
			}
		default:
			continue
		}
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
	return strings.Join(parts, " ")
}

// tableText is the reference's table text: per row the non-empty cells joined by spaces, rows
// joined by spaces (so an empty row leaves a double space), the whole stripped.
func tableText(rows [][]string) string {
	var b strings.Builder
	for i, row := range rows {
		if i > 0 {
			b.WriteByte(' ')
		}
		first := true
		for _, c := range row {
			if c == "" {
				continue
			}
			if !first {
				b.WriteByte(' ')
			}
			b.WriteString(c)
			first = false
		}
	}
	return pyStrip(b.String())
}

// CompactTableHTML writes the reference's compact table HTML for a matrix of cell texts: no
// thead/tbody and no attributes, rows without cells omitted, cell text HTML-escaped (quotes
// included), line feeds as <br/>, whitespace runs collapsed, empty cells as <td/>.
func CompactTableHTML(rows [][]string) string { return compactTableHTML(rows, nil) }

// compactTableHTML is CompactTableHTML keeping the cells' colspan and rowspan (spans[i][j] for
// rows[i][j]; nil for none). The reference drops them, which leaves a merged header cell
// looking like a one-column cell over the wrong columns; a span of 1 writes no attribute, so
// tables without spans are written exactly as the reference writes them.
func compactTableHTML(rows [][]string, spans [][]span) string {
	var b strings.Builder
	b.WriteString("<table>")
	for i, row := range rows {
		if len(row) == 0 {
			continue
		}
		b.WriteString("<tr>")
		for j, c := range row {
			s := strings.ReplaceAll(escapeHTML(c), "\n", "<br/>")
			s = normalizeSpace(s)
			b.WriteString("<td")
			if i < len(spans) && j < len(spans[i]) {
				if sp := spans[i][j]; sp.col > 1 {
					b.WriteString(` colspan="` + strconv.Itoa(sp.col) + `"`)
				}
				if sp := spans[i][j]; sp.row > 1 {
					b.WriteString(` rowspan="` + strconv.Itoa(sp.row) + `"`)
				}
			}
			if s == "" {
				b.WriteString("/>")
				continue
			}
			b.WriteString(">")
			b.WriteString(s)
			b.WriteString("</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")

// escapeHTML is Python's html.escape with quote=True.
func escapeHTML(s string) string { return htmlEscaper.Replace(s) }
