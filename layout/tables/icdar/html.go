package icdar

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// FromHTML reads a table's text_as_html (any of the shapes partitioners write: with or
// without thead/tbody, th or td, colspan and rowspan) into cells placed on a grid, so that a
// strategy's Table elements can be scored against the ground truth. Positions covered by a
// rowspan from above are skipped when placing the next cells of a row, as browsers do.
func FromHTML(s string) ([]Cell, error) {
	z := html.NewTokenizer(strings.NewReader(s))
	var cells []Cell
	occupied := map[[2]int]bool{}
	row, col := -1, 0
	var cur *Cell
	var text strings.Builder
	closeCell := func() {
		if cur != nil {
			cur.Text = strings.Join(strings.Fields(text.String()), " ")
			cells = append(cells, *cur)
			cur = nil
		}
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			closeCell()
			if err := z.Err(); err != nil && err.Error() != "EOF" {
				return nil, fmt.Errorf("icdar: table html: %w", err)
			}
			return cells, nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "tr":
				closeCell()
				row++
				col = 0
			case "td", "th":
				closeCell()
				if row < 0 {
					row = 0
				}
				rs, cs := 1, 1
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					n, err := strconv.Atoi(string(v))
					if err != nil || n < 1 {
						continue
					}
					switch string(k) {
					case "rowspan":
						rs = n
					case "colspan":
						cs = n
					}
				}
				for occupied[[2]int{row, col}] {
					col++
				}
				c := Cell{Row: row, Col: col, EndRow: row + rs - 1, EndCol: col + cs - 1}
				for r := row; r < row+rs; r++ {
					for k := col; k < col+cs; k++ {
						occupied[[2]int{r, k}] = true
					}
				}
				col += cs
				text.Reset()
				cur = &c
				if tt == html.SelfClosingTagToken {
					closeCell()
				}
			case "br":
				text.WriteByte(' ')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "td", "th", "tr":
				closeCell()
			}
		case html.TextToken:
			if cur != nil {
				text.Write(z.Text())
			}
		}
	}
}
