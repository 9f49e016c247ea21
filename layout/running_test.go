package layout

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/internal/pdftest"
	"github.com/quarrydocs/quarry/pdf"
)

// typesOf returns the type of the element with text s on each page (page → type).
func typesOf(els []element.Element, s string) map[int]element.Type {
	out := map[int]element.Type{}
	for _, e := range els {
		if e.Text == s {
			out[*e.Metadata.PageNumber] = e.Type
		}
	}
	return out
}

// body is a paragraph of its own for page n: pages do not repeat their text.
func body(n int) string {
	w := []string{"rivers", "deltas", "sources", "floods", "banks", "currents", "bridges", "fords"}
	return paragraph(72, 700, fmt.Sprintf("Body text about %s goes on for a while and", w[n%len(w)]), "then it stops at the end of the sentence.")
}

// A running head on every page is a Header on every page, the first one included: the pages
// after it say it repeats.
func TestRunningHeadOnFirstPage(t *testing.T) {
	var pages []string
	for i := 1; i <= 3; i++ {
		pages = append(pages, pdftest.Text("F1", 9, 72, 760, "ACME Annual Report 2024")+body(i))
	}
	got := typesOf(layoutBytes(t, docOf(pages...).Bytes()), "ACME Annual Report 2024")
	for i := 1; i <= 3; i++ {
		if got[i] != element.Header {
			t.Errorf("page %d: %q, want Header (%v)", i, got[i], got)
		}
	}
}

// Text at the top of the first page only, in body size and bold, is the document's title, not
// a running head: position alone does not make a Header.
func TestTopOfFirstPageOnlyIsATitle(t *testing.T) {
	pages := []string{pdftest.Text("F2", 10, 72, 760, "Quarterly Operations Review") + body(1), body(2), body(3)}
	got := typesOf(layoutBytes(t, docOf(pages...).Bytes()), "Quarterly Operations Review")
	if got[1] != element.Title {
		t.Errorf("got %v, want Title on page 1", got)
	}
}

// Book style: the book's title at the left of even pages, the chapter's at the right of odd
// ones, each beside the page number. Both repeat every other page; a chapter's title seen on
// one page only is a running head too, set where the document sets its heads.
func TestAlternatingRunningHeads(t *testing.T) {
	var pages []string
	for i := 1; i <= 6; i++ {
		var head string
		switch {
		case i%2 == 0:
			head = pdftest.Text("F1", 9, 72, 760, fmt.Sprint(i)) + pdftest.Text("F1", 9, 100, 760, "A Treatise on Rivers")
		case i < 5:
			head = pdftest.Text("F1", 9, 380, 760, "Chapter One: Sources") + pdftest.Text("F1", 9, 530, 760, fmt.Sprint(i))
		default:
			head = pdftest.Text("F1", 9, 380, 760, "Chapter Two: Deltas") + pdftest.Text("F1", 9, 530, 760, fmt.Sprint(i))
		}
		pages = append(pages, head+body(i))
	}
	els := layoutBytes(t, docOf(pages...).Bytes())
	for _, c := range []struct {
		text  string
		pages []int
	}{{"A Treatise on Rivers", []int{2, 4, 6}}, {"Chapter One: Sources", []int{1, 3}}, {"Chapter Two: Deltas", []int{5}}} {
		got := typesOf(els, c.text)
		for _, p := range c.pages {
			if got[p] != element.Header {
				t.Errorf("%q on page %d: %q, want Header", c.text, p, got[p])
			}
		}
	}
	for _, e := range els {
		if e.Type == element.PageNumber && e.Text != fmt.Sprint(*e.Metadata.PageNumber) {
			t.Errorf("page number %q on page %d", e.Text, *e.Metadata.PageNumber)
		}
	}
}

// Page numbers in words ("Page 2 of 3") are PageNumbers; a foot carrying them beside other
// text repeats once numbers are normalised, from the first page on.
func TestFootersWithPageNumbers(t *testing.T) {
	var pages []string
	for i := 1; i <= 3; i++ {
		pages = append(pages, body(i)+
			pdftest.Text("F1", 8, 72, 50, fmt.Sprintf("ACME Corp confidential, page %d of 3", i))+
			pdftest.Text("F1", 8, 480, 30, fmt.Sprintf("Page %d of 3", i)))
	}
	els := layoutBytes(t, docOf(pages...).Bytes())
	for i := 1; i <= 3; i++ {
		if got := typesOf(els, fmt.Sprintf("ACME Corp confidential, page %d of 3", i))[i]; got != element.Footer {
			t.Errorf("page %d: foot is %q, want Footer", i, got)
		}
		if got := typesOf(els, fmt.Sprintf("Page %d of 3", i))[i]; got != element.PageNumber {
			t.Errorf("page %d: page number is %q", i, got)
		}
	}
}

// A document of one page has no running heads or feet: short lines at its top and bottom
// are its text.
func TestOnePageHasNoRunningHeads(t *testing.T) {
	c := pdftest.Text("F1", 9, 72, 770, "Field notes from the survey") + body(1) +
		pdftest.Text("F1", 9, 72, 30, "Prepared by the survey team")
	for _, e := range layoutBytes(t, docOf(c).Bytes()) {
		if e.Type == element.Header || e.Type == element.Footer {
			t.Errorf("%s %q on a one-page document", e.Type, e.Text)
		}
	}
}

// Add holds a page until LookAhead pages follow it; Finish hands on the rest, in order.
func TestLookAheadHoldsPages(t *testing.T) {
	n := LookAhead + 2
	var pages []string
	for i := 1; i <= n; i++ {
		pages = append(pages, body(i))
	}
	data := docOf(pages...).Bytes()
	ctx := context.Background()
	d, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	doc := New(Options{})
	var order []int
	for i := 1; i <= n; i++ {
		p, err := d.Page(ctx, i, Params(pdf.DefaultLAParams()))
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.Add(ctx, p); err != nil {
			t.Fatal(err)
		}
		ready := doc.Ready()
		if want := max(0, i-LookAhead) - len(order); len(ready) != want {
			t.Errorf("after page %d: %d pages ready, want %d", i, len(ready), want)
		}
		for _, l := range ready {
			order = append(order, l.Number)
		}
	}
	for _, l := range doc.Finish() {
		order = append(order, l.Number)
		if len(l.Elements) == 0 || l.Width != 612 {
			t.Errorf("page %d: %d elements, width %g", l.Number, len(l.Elements), l.Width)
		}
	}
	for i, p := range order {
		if p != i+1 {
			t.Fatalf("pages handed on in order %v", order)
		}
	}
	if len(order) != n {
		t.Errorf("%d pages handed on, want %d", len(order), n)
	}
}

func TestRunKey(t *testing.T) {
	same := [][2]string{{"Page 3 of 9", "Page 12 of 9"}, {"Chapter iv", "Chapter v"}, {"Preface xii", "Preface ix"}, {"CONTENTS", "Contents"}}
	for _, c := range same {
		if runKey(c[0], 9) != runKey(c[1], 9) {
			t.Errorf("%q and %q differ: %q %q", c[0], c[1], runKey(c[0], 9), runKey(c[1], 9))
		}
	}
	differ := [][2]string{{"civil law", "x law"}, {"Contents", "Contents"}, {"mix", "ill"}}
	for i, c := range differ {
		size := 9.0
		if i == 1 {
			size = 14 // a chapter title set large is not its running head
		}
		if runKey(c[0], 9) == runKey(c[1], size) {
			t.Errorf("%q and %q are one key: %q", c[0], c[1], runKey(c[0], 9))
		}
	}
	for w, want := range map[string]bool{"i": true, "iv": true, "xiv": true, "mcmxcix": true, "iiii": false, "vv": false, "ic": false, "civil": false, "ill": false, "": false} {
		if isRoman(w) != want {
			t.Errorf("isRoman(%q) = %v", w, !want)
		}
	}
}

// A numbered table caption on the first line of several pages ("TABLE 2.1 A", "TABLE 2.2 A":
// alike once numbers are keyed out) is each table's caption, not a running head; the running
// foot beside it stays a Footer.
func TestCaptionAtTopOfPagesIsNoRunningHead(t *testing.T) {
	var pages []string
	for i := 1; i <= 3; i++ {
		pages = append(pages, pdftest.Text("F1", 9, 72, 760, fmt.Sprintf("TABLE 2.%d A", i))+body(i)+
			pdftest.Text("F1", 9, 72, 40, "ACME Annual Report 2024"))
	}
	els := layoutBytes(t, docOf(pages...).Bytes())
	for i := 1; i <= 3; i++ {
		if got := typesOf(els, fmt.Sprintf("TABLE 2.%d A", i))[i]; got != element.FigureCaption {
			t.Errorf("page %d: caption is %q, want FigureCaption", i, got)
		}
		if got := typesOf(els, "ACME Annual Report 2024")[i]; got != element.Footer {
			t.Errorf("page %d: foot is %q, want Footer", i, got)
		}
	}
}

// A document whose first page is small print (a cover's, a contents page's) sets its body
// size apart from the pages after it: a line of those pages in the document's body type was
// a Title for being larger than the small print seen so far. Settled LookAhead pages later,
// it is typed against the body size of the pages laid out by then.
func TestBodySizeSettledWithLookAhead(t *testing.T) {
	var small strings.Builder
	for i := 0; i < 30; i++ {
		small.WriteString(pdftest.Text("F1", 8, 72, 720-float64(12*i), "the small print of a cover page that runs across its width"))
	}
	pages := []string{small.String()}
	for n := 0; n < 5; n++ {
		var b strings.Builder
		for i := 0; i < 8; i++ {
			y := 700 - float64(40*i)
			b.WriteString(pdftest.Text("F1", 11, 72, y, "the text of this page goes on"))
			b.WriteString(pdftest.Text("F1", 11, 72, y-13, "in its body type here"))
		}
		pages = append(pages, b.String())
	}
	els := layoutBytes(t, docOf(pages...).Bytes())
	titles := 0
	for _, e := range els {
		if e.Type == element.Title {
			titles++
		}
	}
	if titles != 0 {
		t.Errorf("%d body paragraphs typed Title:\n%s", titles, strings.Join(texts(els), "\n"))
	}
}
