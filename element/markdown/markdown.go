// Package markdown renders partitioned elements as one Markdown document, for readers and for
// tools that ingest Markdown (the output users of docling-style converters expect). It is a
// view: element ids, coordinates and most metadata are not carried; use JSON for those.
package markdown

import (
	"bytes"
	"strconv"
	"strings"

	"golang.org/x/net/html"

	"github.com/quarrydocs/quarry/element"
)

// Marshal writes elements in order, one block per element, separated by blank lines:
//   - Title as an ATX heading, its level from metadata.category_depth (depth 0 is "#"), capped at 6;
//   - ListItem as a "- " item (consecutive items form one list), its own bullet removed;
//   - Table as a pipe table from text_as_html when the table has no spanning cells, as the HTML
//     itself when it has (Markdown has no spans; CommonMark passes HTML blocks through), and as
//     its text when there is no HTML;
//   - Image as an image with its text as alt text when image_base64 or image_url is set, else as
//     its text;
//   - FigureCaption in italics, CodeSnippet fenced, Formula in a $$ block;
//   - Header, Footer, PageNumber and PageBreak left out: they are page furniture, not content;
//   - everything else (NarrativeText, UncategorizedText, Address, chunks…) as a paragraph.
//
// Text that Markdown would read as syntax (a leading "#", "-", "1.", ">"…) is escaped.
func Marshal(elems []element.Element) []byte {
	var b bytes.Buffer
	prevList := false
	for i := range elems {
		e := &elems[i]
		block, isList := render(e)
		if block == "" {
			continue
		}
		if b.Len() > 0 {
			if isList && prevList {
				b.WriteByte('\n')
			} else {
				b.WriteString("\n\n")
			}
		}
		b.WriteString(block)
		prevList = isList
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// render returns an element's Markdown block and whether it is a list item.
func render(e *element.Element) (string, bool) {
	text := strings.TrimSpace(e.Text)
	switch e.Type {
	case element.Header, element.Footer, element.PageNumber, element.PageBreak:
		return "", false
	case element.Title:
		if text == "" {
			return "", false
		}
		level := 1
		if d := e.Metadata.CategoryDepth; d != nil && *d > 0 {
			level = min(*d+1, 6)
		}
		return strings.Repeat("#", level) + " " + inline(text), false
	case element.ListItem:
		text = strings.TrimSpace(strings.TrimLeft(text, "•◦▪▫‣⁃●○■□-–—*·"))
		if text == "" {
			return "", false
		}
		return "- " + inline(text), true
	case element.Table, element.TableChunk:
		if h := e.Metadata.TextAsHTML; h != "" {
			if t := table(h); t != "" {
				return t, false
			}
		}
		return paragraph(text), false
	case element.Image:
		src := e.Metadata.ImageURL
		if e.Metadata.ImageBase64 != "" {
			mime := e.Metadata.ImageMIMEType
			if mime == "" {
				mime = "image/png"
			}
			src = "data:" + mime + ";base64," + e.Metadata.ImageBase64
		}
		if src == "" {
			return paragraph(text), false
		}
		alt := strings.NewReplacer("[", `\[`, "]", `\]`, "\n", " ").Replace(text)
		return "![" + alt + "](" + strings.ReplaceAll(src, " ", "%20") + ")", false
	case element.FigureCaption:
		if text == "" {
			return "", false
		}
		return "*" + inline(text) + "*", false
	case element.CodeSnippet:
		if text == "" {
			return "", false
		}
		fence := "```"
		for strings.Contains(text, fence) {
			fence += "`"
		}
		return fence + "\n" + text + "\n" + fence, false
	case element.Formula:
		if text == "" {
			return "", false
		}
		return "$$\n" + text + "\n$$", false
	}
	return paragraph(text), false
}

// paragraph keeps the text's line breaks as hard breaks inside one paragraph.
func paragraph(text string) string {
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, inline(l))
		}
	}
	return strings.Join(out, "  \n")
}

// inline escapes what would turn a line of plain text into Markdown structure or markup.
func inline(s string) string {
	s = inlineEscaper.Replace(s)
	// Block syntax is only read at the start of a line.
	switch {
	case strings.HasPrefix(s, "#"), strings.HasPrefix(s, ">"), strings.HasPrefix(s, "+"),
		strings.HasPrefix(s, "-"), strings.HasPrefix(s, "="):
		return `\` + s
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && i <= 9 &&
		(s[i] == '.' || s[i] == ')') {
		return s[:i] + `\` + s[i:]
	}
	return s
}

var inlineEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`,
	"<", `\<`, "|", `\|`)

// table turns the reference's table HTML into a pipe table; a table with spanning cells is
// returned as the HTML, and "" means the HTML held no cells.
func table(h string) string {
	var rows [][]string
	var cell *strings.Builder
	z := html.NewTokenizer(strings.NewReader(h))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		name, hasAttr := z.TagName()
		tag := string(name)
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			switch tag {
			case "tr":
				rows = append(rows, nil)
			case "td", "th":
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					if (string(k) == "colspan" || string(k) == "rowspan") && spans(string(v)) {
						return h
					}
				}
				if len(rows) == 0 {
					rows = append(rows, nil)
				}
				rows[len(rows)-1] = append(rows[len(rows)-1], "")
				cell = nil
				if tt == html.StartTagToken {
					cell = &strings.Builder{}
				}
			case "br":
				if cell != nil {
					cell.WriteString("<br>")
				}
			}
		case html.EndTagToken:
			if (tag == "td" || tag == "th") && cell != nil {
				r := rows[len(rows)-1]
				r[len(r)-1] = strings.TrimSpace(cell.String())
				cell = nil
			}
		case html.TextToken:
			if cell != nil {
				cell.WriteString(cellEscaper.Replace(strings.Join(strings.Fields(string(z.Text())), " ")))
			}
		}
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	if width == 0 {
		return ""
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for j := range width {
			c := ""
			if j < len(cells) {
				c = cells[j]
			}
			b.WriteString(" " + c + " |")
		}
	}
	// The first row is the header: Markdown tables need one, and the reference's HTML does not
	// mark it, so a header-less table reads its first row as the header.
	line(rows[0])
	b.WriteString("\n|")
	b.WriteString(strings.Repeat(" --- |", width))
	for _, r := range rows[1:] {
		b.WriteByte('\n')
		line(r)
	}
	return b.String()
}

func spans(v string) bool {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return err == nil && n > 1
}

var cellEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;")
