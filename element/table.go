package element

import "strings"

// Cell is one table cell for TableHTML; spans of 0 or 1 are not written.
type Cell struct {
	Text    string
	ColSpan int
	RowSpan int
}

// TableHTML writes the reference's compact table HTML (§10.8) for a cell matrix: no
// thead/tbody, no attributes except colspan/rowspan, <, > and & escaped, newlines as <br/>,
// empty cells as <td/>.
func TableHTML(rows [][]Cell) string {
	var b strings.Builder
	b.WriteString("<table>")
	for _, row := range rows {
		b.WriteString("<tr>")
		for _, c := range row {
			b.WriteString("<td")
			if c.ColSpan > 1 {
				b.WriteString(` colspan="`)
				b.WriteString(itoa(c.ColSpan))
				b.WriteByte('"')
			}
			if c.RowSpan > 1 {
				b.WriteString(` rowspan="`)
				b.WriteString(itoa(c.RowSpan))
				b.WriteByte('"')
			}
			if c.Text == "" {
				b.WriteString("/>")
				continue
			}
			b.WriteByte('>')
			b.WriteString(EscapeCellText(c.Text))
			b.WriteString("</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// TextRows converts a matrix of strings into cells without spans.
func TextRows(rows [][]string) [][]Cell {
	out := make([][]Cell, len(rows))
	for i, r := range rows {
		out[i] = make([]Cell, len(r))
		for j, s := range r {
			out[i][j] = Cell{Text: s}
		}
	}
	return out
}

// EscapeCellText escapes &, < and > and turns newlines into <br/>.
func EscapeCellText(s string) string { return cellEscaper.Replace(s) }

var cellEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\n", "<br/>")

// TableText is a table's element text: every non-empty cell text joined by single spaces, with
// whitespace runs collapsed.
func TableText(rows [][]Cell) string {
	var parts []string
	for _, row := range rows {
		for _, c := range row {
			if t := strings.Join(strings.Fields(c.Text), " "); t != "" {
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, " ")
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
