package chunking

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/quarrydocs/quarry/element"
)

// htmlTable is a table's text_as_html in the reference's compact form (§10.8), with its rows
// ready for splitting.
type htmlTable struct {
	html string // whole compact table
	rows []htmlRow
}

type htmlRow struct {
	html     string // compact <tr>…</tr>
	headHTML string // the same row with th cells, for a repeated header
	cells    []htmlCell
	text     string // non-empty cell texts joined by spaces
	textLen  int
	header   bool // inside <thead> or holding a <th>
}

type htmlCell struct {
	html    string
	text    string
	textLen int
}

// parseTable reads the first <table> of s. It returns false when s holds no table.
func parseTable(s string) (*htmlTable, bool) {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return nil, false
	}
	tbl := findFirst(doc, atom.Table)
	if tbl == nil {
		return nil, false
	}
	t := &htmlTable{html: compactHTML(tbl, false)}
	var walk func(n *html.Node, inHead bool)
	walk = func(n *html.Node, inHead bool) {
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type != html.ElementNode {
				continue
			}
			switch ch.DataAtom {
			case atom.Table:
				// Rows of a nested table belong to its cell, not to this table.
				continue
			case atom.Thead:
				walk(ch, true)
			case atom.Tr:
				t.rows = append(t.rows, newRow(ch, inHead))
			default:
				walk(ch, inHead)
			}
		}
	}
	walk(tbl, false)
	return t, true
}

func newRow(tr *html.Node, inHead bool) htmlRow {
	r := htmlRow{html: compactHTML(tr, false), headHTML: compactHTML(tr, true), header: inHead}
	var texts []string
	for ch := tr.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type != html.ElementNode || (ch.DataAtom != atom.Td && ch.DataAtom != atom.Th) {
			continue
		}
		if ch.DataAtom == atom.Th {
			r.header = true
		}
		c := htmlCell{html: compactHTML(ch, false), text: cellText(ch)}
		c.textLen = runeLen(c.text)
		if c.text != "" {
			texts = append(texts, c.text)
		}
		r.cells = append(r.cells, c)
	}
	r.text = strings.Join(texts, " ")
	r.textLen = runeLen(r.text)
	return r
}

func findFirst(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if f := findFirst(ch, a); f != nil {
			return f
		}
	}
	return nil
}

// cellText is a cell's text content with whitespace collapsed. A <br> counts as a space so
// that lines of a multi-line cell do not run together.
func cellText(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			switch ch.Type {
			case html.TextNode:
				b.WriteString(ch.Data)
			case html.ElementNode:
				if ch.DataAtom == atom.Br {
					b.WriteByte(' ')
				}
				walk(ch)
			}
		}
	}
	walk(n)
	return collapse(b.String())
}

// compactHTML serialises n the way the reference's HtmlTable does (§10.8): thead/tbody/tfoot
// wrappers dropped, only colspan/rowspan kept, th written as td (or every cell as th when
// asHead), text whitespace-normalised, empty elements as <x/>, XML escaping.
func compactHTML(n *html.Node, asHead bool) string {
	var b strings.Builder
	writeCompact(&b, n, asHead)
	return b.String()
}

func writeCompact(b *strings.Builder, n *html.Node, asHead bool) {
	switch n.Type {
	case html.TextNode:
		if t := collapse(n.Data); t != "" {
			escapeText(b, t)
		}
		return
	case html.ElementNode:
	default:
		return
	}
	switch n.DataAtom {
	case atom.Thead, atom.Tbody, atom.Tfoot:
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			writeCompact(b, ch, asHead)
		}
		return
	}
	tag := n.Data
	if n.DataAtom == atom.Th || (asHead && n.DataAtom == atom.Td) {
		tag = "td"
		if asHead {
			tag = "th"
		}
	}
	b.WriteByte('<')
	b.WriteString(tag)
	for _, a := range n.Attr {
		if a.Namespace == "" && (a.Key == "colspan" || a.Key == "rowspan") {
			b.WriteByte(' ')
			b.WriteString(a.Key)
			b.WriteString(`="`)
			escapeAttr(b, a.Val)
			b.WriteByte('"')
		}
	}
	// An element with text, even whitespace only, is written with an end tag: the
	// reference's serializer distinguishes an empty text from no text at all.
	hasText, hasElem := false, false
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		switch ch.Type {
		case html.TextNode:
			hasText = true
		case html.ElementNode:
			hasElem = true
		}
	}
	if !hasText && !hasElem {
		b.WriteString("/>")
		return
	}
	b.WriteByte('>')
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		writeCompact(b, ch, asHead)
	}
	b.WriteString("</")
	b.WriteString(tag)
	b.WriteByte('>')
}

var (
	textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", `"`, "&quot;")
)

func escapeText(b *strings.Builder, s string) { textEscaper.WriteString(b, s) }
func escapeAttr(b *strings.Builder, s string) { attrEscaper.WriteString(b, s) }

// tableChunks forms the chunks of a table pre-chunk (§10.7).
func (c *chunker) tableChunks(out []element.Element, p preChunk) []element.Element {
	tbl := &c.in[p.lo]
	if collapse(tbl.Text) == "" {
		return out
	}
	text := trimPy(tbl.Text)
	md := tableMetadata(tbl.Metadata)
	if c.opts.includeOrig {
		md.OrigElements = c.origElements(p.lo, p.lo+1)
	}
	var ht *htmlTable
	if tbl.Metadata.TextAsHTML != "" {
		ht, _ = parseTable(tbl.Metadata.TextAsHTML)
	}
	compact := ""
	if ht != nil {
		compact = ht.html
	} else {
		// Unparseable HTML is not passed on as if it were compact.
		md.TextAsHTML = ""
	}
	M := c.opts.hard
	if c.opts.skipTableChunking || (runeLen(text) <= M && runeLen(compact) <= M) {
		md.TextAsHTML = compact
		return append(out, element.Element{Type: element.Table, Text: text, Metadata: md})
	}
	tableID := c.newTable()
	emit := func(k int, text, html string, carried int) {
		m := md
		m.TextAsHTML = html
		m.IsContinuation = k > 0
		m.TableID = tableID
		m.ChunkIndex = element.Int(k)
		m.NumCarriedOverHeaderRows = element.Int(carried)
		out = append(out, element.Element{Type: element.TableChunk, Text: text, Metadata: m})
	}
	if ht == nil || M < 50 {
		// Without HTML, or with a window too small for HTML's 33 characters of overhead per
		// chunk, the table is cut like text and the chunks carry no HTML.
		sp := splitter{max: M, overlap: c.opts.overlap, most: c.opts.maxChunks}
		for k, piece := range sp.splitAll(text) {
			emit(k, piece, "", 0)
		}
		return out
	}
	for k, s := range splitTable(ht, M, c.opts.repeatHeaders) {
		emit(k, s.text, s.html, s.carried)
	}
	return out
}

type subTable struct {
	text, html string
	carried    int
}

// splitTable cuts a table into sub-tables whose text fits max: whole rows when possible, an
// oversized row by cells, an oversized cell by text splitting. When the table starts with
// header rows that are short enough (the longest at most half the window), every later
// sub-table starts with them again, as a <thead>.
func splitTable(t *htmlTable, max int, repeat bool) []subTable {
	nHead, headLen, longest := 0, 0, 0
	var headText []string
	var headHTML strings.Builder
	for _, r := range t.rows {
		if !r.header {
			break
		}
		nHead++
		longest = maxInt(longest, r.textLen)
		if r.text != "" {
			headText = append(headText, r.text)
		}
		headHTML.WriteString(r.headHTML)
	}
	head := strings.Join(headText, " ")
	headLen = runeLen(head)
	// The total header must also leave room for body text, or repeating it could never end.
	if !repeat || nHead == 0 || nHead == len(t.rows) || longest > (max+1)/2 || headLen > (max+1)/2 {
		nHead = 0
	}

	s := &tableSplitter{max: max}
	if nHead > 0 {
		s.head = head
		s.headHTML = "<thead>" + headHTML.String() + "</thead>"
		s.nHead = nHead
		s.headLen = headLen
	}
	for _, r := range t.rows {
		if !s.rowFits(r) {
			s.flushRows()
		}
		if s.rowFits(r) {
			s.rows = append(s.rows, r)
			continue
		}
		s.splitRow(r)
	}
	s.flushRows()
	return s.out
}

type tableSplitter struct {
	max      int
	head     string
	headHTML string
	headLen  int
	nHead    int
	rows     []htmlRow
	out      []subTable
}

// budget is the text room of the next sub-table: continuation sub-tables give up room for the
// repeated header and the space after it.
func (s *tableSplitter) budget() int {
	if len(s.out) > 0 && s.nHead > 0 {
		return s.max - s.headLen - 1
	}
	return s.max
}

func (s *tableSplitter) rowFits(r htmlRow) bool {
	used := 0
	for _, x := range s.rows {
		used += x.textLen + 1
	}
	return s.budget()-used >= r.textLen
}

// emit appends a sub-table made of body (inner HTML) and text, adding the header on
// continuations.
func (s *tableSplitter) emit(text, body string) {
	st := subTable{text: text, html: "<table>" + body + "</table>"}
	if len(s.out) > 0 && s.nHead > 0 {
		st.carried = s.nHead
		st.html = "<table>" + s.headHTML + body + "</table>"
		if s.head != "" {
			if text != "" {
				st.text = s.head + " " + text
			} else {
				st.text = s.head
			}
		}
	}
	s.out = append(s.out, st)
}

func (s *tableSplitter) flushRows() {
	if len(s.rows) == 0 {
		return
	}
	var texts []string
	var body strings.Builder
	for _, r := range s.rows {
		if r.text != "" {
			texts = append(texts, r.text)
		}
		body.WriteString(r.html)
	}
	s.rows = s.rows[:0]
	s.emit(strings.Join(texts, " "), body.String())
}

// splitRow cuts a row that is too long alone on cell boundaries.
func (s *tableSplitter) splitRow(r htmlRow) {
	var cells []htmlCell
	flush := func() {
		if len(cells) == 0 {
			return
		}
		var texts []string
		var body strings.Builder
		body.WriteString("<tr>")
		for _, c := range cells {
			if c.text != "" {
				texts = append(texts, c.text)
			}
			body.WriteString(c.html)
		}
		body.WriteString("</tr>")
		cells = cells[:0]
		s.emit(strings.Join(texts, " "), body.String())
	}
	fits := func(c htmlCell) bool {
		used := 0
		for _, x := range cells {
			used += x.textLen + 1
		}
		return s.budget()-used >= c.textLen
	}
	for _, c := range r.cells {
		if !fits(c) {
			flush()
		}
		if fits(c) {
			cells = append(cells, c)
			continue
		}
		s.splitCell(c)
	}
	flush()
}

// splitCell cuts a cell too long alone into text pieces, each its own one-cell table. The
// piece size leaves 33 characters for `<table><tr><td></td></tr></table>`, as the reference
// does, though only the text is bound by max_characters.
func (s *tableSplitter) splitCell(c htmlCell) {
	size := func(b int) int {
		n := b - 33
		if n < 1 {
			// Only reachable with a repeated header eating into a small window.
			n = maxInt(b/2, 1)
		}
		return n
	}
	first := s.budget()
	later := first
	if s.nHead > 0 {
		later = s.max - s.headLen - 1
	}
	sp := splitter{max: size(later), first: size(first)}
	for _, piece := range sp.splitAll(c.text) {
		var body strings.Builder
		body.WriteString("<tr><td>")
		escapeText(&body, piece)
		body.WriteString("</td></tr>")
		s.emit(piece, body.String())
	}
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
