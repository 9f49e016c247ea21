package markdown

import (
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

func el(t element.Type, text string) element.Element { return element.Element{Type: t, Text: text} }

func depth(e element.Element, d int) element.Element {
	e.Metadata.CategoryDepth = &d
	return e
}

func TestMarshal(t *testing.T) {
	tbl := el(element.Table, "Year Sales 2023 10")
	tbl.Metadata.TextAsHTML = "<table><tr><td>Year</td><td>Sales | net</td></tr><tr><td>2023</td><td>10&amp;5</td></tr><tr><td/><td>a<br/>b</td></tr></table>"
	spanned := el(element.Table, "A B C")
	spanned.Metadata.TextAsHTML = `<table><tr><td colspan="2">A</td></tr><tr><td>B</td><td>C</td></tr></table>`
	img := el(element.Image, "A [chart]")
	img.Metadata.ImageBase64, img.Metadata.ImageMIMEType = "iVBORw0KGgo=", "image/png"
	elems := []element.Element{
		el(element.Header, "ACME Corp confidential"),
		el(element.Title, "Annual report"),
		depth(el(element.Title, "1. Results"), 1),
		el(element.NarrativeText, "Revenue grew *a lot* in_2023.\nSecond line"),
		el(element.ListItem, "• first point"),
		el(element.ListItem, "- second point"),
		el(element.NarrativeText, "# not a heading"),
		el(element.NarrativeText, "2023. A year"),
		tbl,
		spanned,
		img,
		el(element.Image, ""),
		el(element.FigureCaption, "Figure 1: sales"),
		el(element.CodeSnippet, "x := `a`\n```"),
		el(element.PageNumber, "3"),
		el(element.PageBreak, ""),
		el(element.Footer, "page 3 of 9"),
		depth(el(element.Title, "Deep"), 9),
	}
	want := strings.Join([]string{
		"# Annual report",
		"## 1\\. Results",
		"Revenue grew \\*a lot\\* in\\_2023.  \nSecond line",
		"- first point\n- second point",
		"\\# not a heading",
		"2023\\. A year",
		"| Year | Sales \\| net |\n| --- | --- |\n| 2023 | 10&5 |\n|  | a<br>b |",
		`<table><tr><td colspan="2">A</td></tr><tr><td>B</td><td>C</td></tr></table>`,
		"![A \\[chart\\]](data:image/png;base64,iVBORw0KGgo=)",
		"*Figure 1: sales*",
		"````\nx := `a`\n```\n````",
		"###### Deep",
	}, "\n\n") + "\n"
	if got := string(Marshal(elems)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestMarshalEmpty(t *testing.T) {
	if got := Marshal(nil); len(got) != 0 {
		t.Errorf("no elements: %q", got)
	}
	if got := Marshal([]element.Element{el(element.PageBreak, ""), el(element.Footer, "x")}); len(got) != 0 {
		t.Errorf("furniture only: %q", got)
	}
	// A table whose HTML holds no cells falls back to its text.
	tb := el(element.Table, "a b")
	tb.Metadata.TextAsHTML = "<table></table>"
	if got := string(Marshal([]element.Element{tb})); got != "a b\n" {
		t.Errorf("cell-less table: %q", got)
	}
}
