package tables

import (
	"strconv"
	"strings"
)

// HTML is the table's text_as_html in the shape the reference's hi_res table model writes:
// <table><thead><tr><th>…</th></tr></thead><tbody><tr><td>…</td></tr></tbody></table>, the
// thead only when the table has header rows, colspan and rowspan where a cell spans, cell
// text escaped with lines joined by a space, empty cells as <td></td>.
func (t *Table) HTML() string {
	var b strings.Builder
	b.WriteString("<table>")
	i := 0
	section := func(tag, cellTag string, below int) {
		if i >= len(t.Cells) || t.Cells[i].Row >= below {
			return
		}
		b.WriteString("<" + tag + ">")
		for i < len(t.Cells) && t.Cells[i].Row < below {
			row := t.Cells[i].Row
			b.WriteString("<tr>")
			for i < len(t.Cells) && t.Cells[i].Row == row {
				c := t.Cells[i]
				b.WriteString("<" + cellTag)
				if c.ColSpan > 1 {
					b.WriteString(` colspan="` + strconv.Itoa(c.ColSpan) + `"`)
				}
				if c.RowSpan > 1 {
					b.WriteString(` rowspan="` + strconv.Itoa(c.RowSpan) + `"`)
				}
				b.WriteByte('>')
				b.WriteString(escape(strings.Join(strings.Fields(c.Text), " ")))
				b.WriteString("</" + cellTag + ">")
				i++
			}
			b.WriteString("</tr>")
		}
		b.WriteString("</" + tag + ">")
	}
	section("thead", "th", t.HeaderRows)
	section("tbody", "td", t.Rows)
	b.WriteString("</table>")
	return b.String()
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escape(s string) string { return escaper.Replace(s) }

// Text is the table's element text: the non-empty cell texts in row-major order joined by
// single spaces, whitespace collapsed.
func (t *Table) Text() string {
	var parts []string
	for _, c := range t.Cells {
		if s := strings.Join(strings.Fields(c.Text), " "); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// Grid is the table as a Rows×Cols matrix: each cell's text at its top-left position, the
// other positions of a spanning cell empty.
func (t *Table) Grid() [][]string {
	g := make([][]string, t.Rows)
	for i := range g {
		g[i] = make([]string, t.Cols)
	}
	for _, c := range t.Cells {
		if c.Row < t.Rows && c.Col < t.Cols {
			g[c.Row][c.Col] = c.Text
		}
	}
	return g
}

// nonEmpty returns the cells with text.
func (t *Table) nonEmpty() []Cell {
	var out []Cell
	for _, c := range t.Cells {
		if c.Text != "" {
			out = append(out, c)
		}
	}
	return out
}
