package wordproc

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

func para(style, text string) Block {
	return Block{P: &Paragraph{StyleID: style, Items: []Inline{{Kind: KindRun, Text: text}}}}
}

func run(t *testing.T, d *Document, opts *engine.Options) []element.Element {
	t.Helper()
	var out []element.Element
	var keys contract.Options
	if opts != nil {
		keys = opts.Keys()
	}
	if err := Partition(context.Background(), d, keys, func(e element.Element) error {
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// A section-less document, as odt builds: types from style names, numbering and the text rules.
func TestBodyTypes(t *testing.T) {
	list := para("", "second level item")
	list.P.HasNumPr, list.P.ILvl, list.P.HasILvl = true, 1, true
	d := &Document{
		Styles: map[string]string{"H2": "Heading 2", "Q": "Quote"},
		Body: []Block{
			para("H2", "Results"),
			para("", "   "), // blank: no element
			list,
			para("", "• a bullet written as text"),
			para("Q", "A quoted line that is long enough to be narrative text."),
			para("", "This paragraph is an ordinary sentence of body text in the document."),
		},
		DefaultStyle: "Normal",
	}
	got := run(t, d, nil)
	want := []struct {
		typ   element.Type
		text  string
		depth int
	}{
		{element.Title, "Results", 1},
		{element.ListItem, "second level item", 1},
		{element.ListItem, "a bullet written as text", 0},
		{element.UncategorizedText, "A quoted line that is long enough to be narrative text.", 0},
		{element.NarrativeText, "This paragraph is an ordinary sentence of body text in the document.", 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d elements, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Type != w.typ || g.Text != w.text || g.Metadata.CategoryDepth == nil || *g.Metadata.CategoryDepth != w.depth {
			t.Errorf("#%d: got %s %q depth %v, want %s %q depth %d", i, g.Type, g.Text, g.Metadata.CategoryDepth, w.typ, w.text, w.depth)
		}
		if g.Metadata.PageNumber != nil {
			t.Errorf("#%d: page number without rendered page breaks", i)
		}
	}
}

// Sections: headers by kind (the first-page one only with a title page), rendered page breaks
// split a paragraph and number pages, page-break elements only when asked for.
func TestSectionsAndPages(t *testing.T) {
	broken := Block{P: &Paragraph{Items: []Inline{{Kind: KindRun, Text: "Page one ends here.Page two starts here.", PageBreakAt: []int{19}}}}}
	hf := func(s string) *HeaderFooter { return &HeaderFooter{Blocks: []Block{para("", s)}} }
	d := &Document{
		HasRenderedPageBreaks: true,
		Sections: []Section{{
			Blocks:    []Block{broken},
			TitlePage: true,
			Headers:   map[string]*HeaderFooter{"default": hf("Running head"), "first": hf("First head"), "even": hf("Even head")},
			Footers:   map[string]*HeaderFooter{"default": hf("Foot")},
		}},
	}
	opts := &engine.Options{IncludePageBreaks: true}
	var kinds []string
	for _, e := range run(t, d, opts) {
		s := e.Text // the text rules' verdict on these lines is not what this test is about
		switch e.Type {
		case element.Header, element.Footer, element.PageBreak:
			s = string(e.Type) + ":" + e.Text
		}
		if e.Metadata.HeaderFooterType != "" {
			s += "/" + e.Metadata.HeaderFooterType
		}
		if e.Metadata.PageNumber != nil {
			s += "@" + string(rune('0'+*e.Metadata.PageNumber))
		}
		kinds = append(kinds, s)
	}
	want := []string{
		"Header:Running head/primary", "Header:First head/first_page",
		"Page one ends here.@1", "PageBreak:", "Page two starts here.@2",
		"Footer:Foot/primary",
	}
	if strings.Join(kinds, "|") != strings.Join(want, "|") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
}

// Tables: spans repeat a cell per grid column, vertical merges repeat the cell above, the text
// skips merge continuations.
func TestTable(t *testing.T) {
	cell := func(s string, span int, vm string) Cell {
		return Cell{GridSpan: span, VMerge: vm, Blocks: []Block{para("", s)}}
	}
	tbl := &Table{Rows: []Row{
		{Cells: []Cell{cell("wide", 2, ""), cell("tall", 1, "restart")}},
		{Cells: []Cell{cell("a", 1, ""), cell("b", 1, ""), cell("", 1, "continue")}},
	}}
	got := run(t, &Document{Body: []Block{{T: tbl}}}, nil)
	if len(got) != 1 || got[0].Type != element.Table {
		t.Fatalf("got %+v", got)
	}
	if got[0].Text != "wide tall a b" {
		t.Errorf("text %q", got[0].Text)
	}
	html := got[0].Metadata.TextAsHTML
	if strings.Count(html, "wide") != 2 || strings.Count(html, "tall") != 2 {
		t.Errorf("grid not expanded: %s", html)
	}
	// A hostile span is clamped to the grid limit instead of allocating without bound.
	huge := &Table{Rows: []Row{{Cells: []Cell{cell("x", 1<<30, "")}}}}
	if n := len(gridRows(huge)[0]); n != maxGridCols {
		t.Errorf("span clamped to %d cells, want %d", n, maxGridCols)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	body := make([]Block, 1000)
	for i := range body {
		body[i] = para("", "some words of text here")
	}
	err := Partition(ctx, &Document{Body: body}, nil, func(element.Element) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
