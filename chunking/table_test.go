package chunking

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"
	"golang.org/x/net/html"

	"github.com/quarrydocs/quarry/element"
)

func table(text, htmlText string) element.Element {
	t := el(element.Table, text)
	t.Metadata.TextAsHTML = htmlText
	return t
}

// §10.8: the compact form drops wrappers and attributes (but colspan/rowspan), renames th,
// normalises whitespace, writes empty cells as <td/> and escapes text.
func TestCompactHTML(t *testing.T) {
	cases := []struct{ in, want string }{
		{`<table><tr><td>a</td></tr></table>`, `<table><tr><td>a</td></tr></table>`},
		{"<table border=\"1\" class=\"dataframe\">\n  <thead>\n    <tr style=\"x\">\n      <th>h  1</th>\n      <th colspan=\"2\">h2</th>\n    </tr>\n  </thead>\n  <tbody>\n    <tr>\n      <td>1 &amp; 2</td>\n      <td rowspan=\"2\">&lt;x&gt;</td>\n      <td></td>\n    </tr>\n  </tbody>\n</table>",
			`<table><tr><td>h 1</td><td colspan="2">h2</td></tr><tr><td>1 &amp; 2</td><td rowspan="2">&lt;x&gt;</td><td/></tr></table>`},
		{`<table><tr><td/><td>a<br/>b</td><td> </td></tr></table>`, `<table><tr><td/><td>a<br/>b</td><td></td></tr></table>`},
		{`<p>before</p><table><tr><td>x</td></tr></table><table><tr><td>y</td></tr></table>`, `<table><tr><td>x</td></tr></table>`},
	}
	for _, c := range cases {
		tb, ok := parseTable(c.in)
		if !ok || tb.html != c.want {
			t.Errorf("compact(%q)\n got %q\nwant %q", c.in, tb.html, c.want)
		}
	}
	if _, ok := parseTable("no table here"); ok {
		t.Error("parsed a table out of plain text")
	}
	tb, _ := parseTable(`<table><thead><tr><td>H</td></tr></thead><tr><th>K</th><td>a<br>b</td></tr><tr><td>x</td></tr></table>`)
	var hdr []bool
	var txt []string
	for _, r := range tb.rows {
		hdr = append(hdr, r.header)
		txt = append(txt, r.text)
	}
	if !reflect.DeepEqual(hdr, []bool{true, true, false}) || !reflect.DeepEqual(txt, []string{"H", "K a b", "x"}) {
		t.Errorf("rows header=%v text=%q", hdr, txt)
	}
}

// §10.7: a table that fits is one Table with compact HTML, its own metadata minus chunk-foreign
// fields, and orig_elements holding the table.
func TestSmallTable(t *testing.T) {
	tb := table(" a\nb ", "<table>\n<tr><th>a</th></tr><tr><td>b</td></tr></table>")
	tb.Metadata.PageNumber = ip(2)
	tb.Metadata.ParentID = "p"
	tb.Metadata.Coordinates = &element.Coordinates{System: "PixelSpace"}
	tb.Metadata.Extra = map[string][]byte{"table_as_cells": []byte(`[]`), "key_value_pairs": []byte(`[]`)}
	got := mustChunk(t, []element.Element{tb}, opts("basic", 100))
	if len(got) != 1 {
		t.Fatalf("got %d chunks", len(got))
	}
	g := got[0]
	if g.Type != element.Table || g.Text != "a\nb" {
		t.Errorf("got %s %q (text is trimmed, not collapsed)", g.Type, g.Text)
	}
	m := g.Metadata
	if m.TextAsHTML != "<table><tr><td>a</td></tr><tr><td>b</td></tr></table>" || *m.PageNumber != 2 ||
		m.ParentID != "" || m.Coordinates != nil || m.TableID != "" || m.ChunkIndex != nil {
		t.Errorf("metadata %+v", m)
	}
	if _, ok := m.Extra["table_as_cells"]; !ok || m.Extra["key_value_pairs"] != nil {
		t.Errorf("extra %v", m.Extra)
	}
	if len(m.OrigElements) != 1 || m.OrigElements[0].Text != tb.Text || m.OrigElements[0].Metadata.Coordinates == nil {
		t.Errorf("orig_elements %+v", m.OrigElements)
	}
	// A table whose text is only whitespace gives no chunk.
	if got := mustChunk(t, []element.Element{table(" \n ", "<table><tr><td/></tr></table>")}, opts("basic", 100)); len(got) != 0 {
		t.Errorf("blank table gave %q", texts(got))
	}
}

func rowsTable(rows [][]string, head bool) element.Element {
	var b strings.Builder
	b.WriteString("<table>")
	for i, r := range rows {
		if head && i == 0 {
			b.WriteString("<thead>")
		}
		b.WriteString("<tr>")
		for _, c := range r {
			tag := "td"
			if head && i == 0 {
				tag = "th"
			}
			b.WriteString("<" + tag + ">" + html.EscapeString(c) + "</" + tag + ">")
		}
		b.WriteString("</tr>")
		if head && i == 0 {
			b.WriteString("</thead><tbody>")
		}
	}
	if head {
		b.WriteString("</tbody>")
	}
	b.WriteString("</table>")
	var cells []string
	for _, r := range rows {
		cells = append(cells, r...)
	}
	return table(strings.Join(cells, " "), b.String())
}

func checkTableChunks(t *testing.T, got []element.Element, max int) {
	t.Helper()
	id := ""
	for k, c := range got {
		m := c.Metadata
		if c.Type != element.TableChunk {
			t.Fatalf("chunk %d is %s", k, c.Type)
		}
		if runeLen(c.Text) > max {
			t.Errorf("chunk %d text %d > %d", k, runeLen(c.Text), max)
		}
		if _, err := uuid.Parse(m.TableID); err != nil {
			t.Errorf("table_id %q", m.TableID)
		}
		if id == "" {
			id = m.TableID
		} else if m.TableID != id {
			t.Errorf("chunk %d table_id changed", k)
		}
		if m.ChunkIndex == nil || *m.ChunkIndex != k || m.IsContinuation != (k > 0) || m.NumCarriedOverHeaderRows == nil {
			t.Errorf("chunk %d: index %v continuation %v carried %v", k, m.ChunkIndex, m.IsContinuation, m.NumCarriedOverHeaderRows)
		}
		if m.TextAsHTML != "" {
			if err := wellFormedTable(m.TextAsHTML); err != "" {
				t.Errorf("chunk %d html %q: %s", k, m.TextAsHTML, err)
			}
			// The HTML holds exactly the chunk's text.
			tb, _ := parseTable(m.TextAsHTML)
			var txt []string
			for _, r := range tb.rows {
				if r.text != "" {
					txt = append(txt, r.text)
				}
			}
			if strings.Join(txt, " ") != c.Text {
				t.Errorf("chunk %d: html text %q != text %q", k, strings.Join(txt, " "), c.Text)
			}
		}
	}
}

// wellFormedTable checks that s is a single <table> element whose tags balance.
func wellFormedTable(s string) string {
	if !strings.HasPrefix(s, "<table>") || !strings.HasSuffix(s, "</table>") {
		return "not one table"
	}
	z := html.NewTokenizer(strings.NewReader(s))
	var stack []string
	for {
		switch z.Next() {
		case html.ErrorToken:
			if len(stack) != 0 {
				return "unclosed " + strings.Join(stack, ",")
			}
			return ""
		case html.StartTagToken:
			n, _ := z.TagName()
			if string(n) != "br" {
				stack = append(stack, string(n))
			}
		case html.EndTagToken:
			n, _ := z.TagName()
			if len(stack) == 0 || stack[len(stack)-1] != string(n) {
				return "mismatched </" + string(n) + ">"
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 && z.Next() != html.ErrorToken {
				return "content after </table>"
			}
		}
	}
}

// §10.7: an oversized table is cut on row boundaries; text and HTML stay synchronised.
func TestTableRowChunks(t *testing.T) {
	var rows [][]string
	for i := 0; i < 12; i++ {
		rows = append(rows, []string{"row" + string(rune('a'+i)), "value"})
	}
	tb := rowsTable(rows, false) // each row text "rowa value" = 10 chars
	got := mustChunk(t, []element.Element{tb}, opts("basic", 60))
	checkTableChunks(t, got, 60)
	// rows fit while Σ(len+1) ≤ 60: five rows of 10 (55) fit, a sixth would need 66.
	if len(got) != 3 || got[0].Text != "rowa value rowb value rowc value rowd value rowe value" {
		t.Errorf("got %q", texts(got))
	}
	if !strings.HasPrefix(got[1].Metadata.TextAsHTML, "<table><tr><td>rowf</td>") {
		t.Errorf("html %q", got[1].Metadata.TextAsHTML)
	}
}

// §10.7: header rows are repeated on continuation chunks, as <thead>, counted in
// num_carried_over_header_rows; the text starts with the header text.
func TestTableHeaderRepetition(t *testing.T) {
	rows := [][]string{{"Name", "Qty"}}
	for i := 0; i < 10; i++ {
		rows = append(rows, []string{"item" + string(rune('a'+i)), "12"})
	}
	tb := rowsTable(rows, true)
	got := mustChunk(t, []element.Element{tb}, opts("basic", 60))
	checkTableChunks(t, got, 60)
	if len(got) < 2 {
		t.Fatalf("got %q", texts(got))
	}
	if *got[0].Metadata.NumCarriedOverHeaderRows != 0 || !strings.HasPrefix(got[0].Text, "Name Qty itema 12") {
		t.Errorf("first chunk %q carried %d", got[0].Text, *got[0].Metadata.NumCarriedOverHeaderRows)
	}
	if !strings.HasPrefix(got[0].Metadata.TextAsHTML, "<table><tr><td>Name</td>") {
		t.Errorf("first chunk html %q", got[0].Metadata.TextAsHTML)
	}
	for _, c := range got[1:] {
		if *c.Metadata.NumCarriedOverHeaderRows != 1 || !strings.HasPrefix(c.Text, "Name Qty item") ||
			!strings.HasPrefix(c.Metadata.TextAsHTML, "<table><thead><tr><th>Name</th><th>Qty</th></tr></thead><tr><td>item") {
			t.Errorf("continuation %q %q", c.Text, c.Metadata.TextAsHTML)
		}
	}
	// All body rows appear exactly once.
	var all []string
	for _, c := range got {
		all = append(all, strings.TrimPrefix(strings.TrimPrefix(c.Text, "Name Qty"), " "))
	}
	if j := strings.Join(all, " "); j != strings.TrimPrefix(tb.Text, "Name Qty ") {
		t.Errorf("body text %q", j)
	}
	// Turned off, or a header longer than half the window: no repetition.
	o := opts("basic", 60)
	no := false
	o.RepeatTableHeaders = &no
	for _, c := range mustChunk(t, []element.Element{tb}, o)[1:] {
		if *c.Metadata.NumCarriedOverHeaderRows != 0 || strings.HasPrefix(c.Text, "Name") {
			t.Errorf("repeat off: %q", c.Text)
		}
	}
	rows[0] = []string{strings.Repeat("H", 40)}
	for _, c := range mustChunk(t, []element.Element{rowsTable(rows, true)}, opts("basic", 60))[1:] {
		if *c.Metadata.NumCarriedOverHeaderRows != 0 {
			t.Errorf("long header repeated: %q", c.Text)
		}
	}
}

// §10.7: a row too long alone is split by cells; a cell too long alone is text-split into
// one-cell tables of at most M-33 characters.
func TestTableRowAndCellSplits(t *testing.T) {
	long := strings.Repeat("word ", 40) // 200 chars
	rows := [][]string{{"a1", "b1"}, {"c1 c1 c1 c1 c1 c1", "d1 d1 d1 d1 d1 d1", "e1 e1 e1 e1 e1 e1", "f1"}, {long}, {"z"}}
	tb := rowsTable(rows, false)
	got := mustChunk(t, []element.Element{tb}, opts("basic", 50))
	checkTableChunks(t, got, 50)
	var joined []string
	for _, c := range got {
		joined = append(joined, c.Text)
		if strings.Contains(c.Text, "word") && runeLen(c.Text) > 50-33 {
			t.Errorf("cell piece %q longer than M-33", c.Text)
		}
	}
	if !strings.Contains(got[1].Metadata.TextAsHTML, "<tr><td>c1") || strings.Contains(got[1].Metadata.TextAsHTML, "<tr><td>a1") {
		t.Errorf("row split html %q", got[1].Metadata.TextAsHTML)
	}
	if strings.Join(strings.Fields(strings.Join(joined, " ")), " ") != strings.Join(strings.Fields(tb.Text), " ") {
		t.Errorf("text lost:\n%q\n%q", strings.Join(joined, " "), tb.Text)
	}
}

// §10.7: without HTML, or with max_characters < 50, a table is text-split into TableChunks
// without HTML; skip_table_chunking passes it through whole.
func TestTableTextOnlyAndSkip(t *testing.T) {
	tb := el(element.Table, "one two three four five six seven eight nine ten")
	got := mustChunk(t, []element.Element{tb}, opts("basic", 20))
	checkTableChunks(t, got, 20)
	if len(got) != 3 || got[0].Text != "one two three four" || got[0].Metadata.TextAsHTML != "" {
		t.Errorf("got %q", texts(got))
	}
	withHTML := rowsTable([][]string{{"one two three"}, {"four five six"}, {"seven eight nine ten"}}, false)
	for _, c := range mustChunk(t, []element.Element{withHTML}, opts("basic", 30)) {
		if c.Metadata.TextAsHTML != "" {
			t.Errorf("M<50 chunk carries html %q", c.Metadata.TextAsHTML)
		}
	}
	o := opts("basic", 20)
	o.SkipTableChunking = true
	got = mustChunk(t, []element.Element{withHTML}, o)
	if len(got) != 1 || got[0].Type != element.Table || got[0].Metadata.TextAsHTML == "" {
		t.Errorf("skip_table_chunking: got %v", got)
	}
}
