package layout

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/internal/pdftest"
)

// Reading-order fixtures, one per class of page: every paragraph starts with a tag (L1, R2,
// T1...) and the test compares the tags in the order the elements come out.

var filler = strings.Fields("the reader follows each column down to its foot before the next one " +
	"starts at the top again and never jumps across the gutter between them while a figure " +
	"or a heading set across the whole page ends one run of columns and starts another")

// para sets a paragraph of n lines (10 pt on 12 pt) whose first word is tag, in a column
// chars wide, from baseline y down; it returns the content and the baseline of the next
// paragraph (a blank line below).
func para(x, y float64, tag string, n, chars int) (string, float64) {
	var b strings.Builder
	w := 0
	for i := 0; i < n; i++ {
		line := ""
		if i == 0 {
			line = tag
		}
		limit := chars
		if i == n-1 {
			limit = chars * 2 / 3 // a paragraph's last line ends short, with a full stop
		}
		for len(line) < limit {
			if line != "" {
				line += " "
			}
			line += filler[w%len(filler)]
			w++
		}
		if i == n-1 {
			line += "."
		}
		b.WriteString(pdftest.Text("F1", 10, x, y-float64(12*i), line))
	}
	return b.String(), y - float64(12*n) - 14
}

// column sets paragraphs of the given line counts from y down, tagged prefix1, prefix2...
func column(x, y float64, prefix string, chars int, lines ...int) (string, float64) {
	var b strings.Builder
	for i, n := range lines {
		var s string
		s, y = para(x, y, fmt.Sprintf("%s%d", prefix, i+1), n, chars)
		b.WriteString(s)
	}
	return b.String(), y
}

var tagRE = regexp.MustCompile(`\b[A-Z]{1,2}[0-9]\b`)

// tagOrder lists the tags in the elements' order (an Image or Table element is written as
// its type) and fails when a tag is read twice or an element mixes two paragraphs.
func tagOrder(t *testing.T, els []element.Element) []string {
	t.Helper()
	var out []string
	for _, e := range els {
		if e.Type == element.Image || e.Type == element.Table {
			out = append(out, string(e.Type))
			continue
		}
		tags := tagRE.FindAllString(e.Text, -1)
		if len(tags) > 1 {
			t.Errorf("one element holds paragraphs %v: %q", tags, e.Text)
		}
		out = append(out, tags...)
	}
	seen := map[string]bool{}
	for _, tg := range out {
		if seen[tg] && tg != string(element.Image) && tg != string(element.Table) {
			t.Errorf("%s read twice", tg)
		}
		seen[tg] = true
	}
	return out
}

func wantOrder(t *testing.T, content string, want ...string) []element.Element {
	t.Helper()
	els := layoutBytes(t, docOf(content).Bytes())
	if got := tagOrder(t, els); !slices.Equal(got, want) {
		t.Errorf("order %v, want %v\n%s", got, want, strings.Join(texts(els), "\n"))
	}
	return els
}

// heading is a bold 14-pt line centred across both columns of a two-column page.
func heading(y float64, tag string) string {
	return pdftest.Text("F2", 14, 160, y, tag+" Columns Under One Heading")
}

// Two columns whose paragraph gaps line up exactly under a full-width title: the bands the
// gaps make are one run of columns, read column by column (before, the page was cut at the
// aligned gaps first and the columns interleaved), and a page number in the gutter comes last.
func TestOrderTwoColumnsAlignedGaps(t *testing.T) {
	l, _ := column(72, 700, "L", 42, 4, 5, 3)
	r, _ := column(320, 700, "R", 42, 4, 5, 3)
	pn := pdftest.Text("F1", 9, 303, 40, "7")
	els := wantOrder(t, heading(740, "T1")+l+r+pn, "T1", "L1", "L2", "L3", "R1", "R2", "R3")
	if last := els[len(els)-1]; last.Type != element.PageNumber {
		t.Errorf("last element %s %q, want the page number", last.Type, last.Text)
	}
}

// Three columns with aligned gaps and a title across them.
func TestOrderThreeColumns(t *testing.T) {
	a, _ := column(60, 700, "A", 28, 4, 4)
	b, _ := column(230, 700, "B", 28, 4, 4)
	c, _ := column(400, 700, "C", 28, 4, 4)
	wantOrder(t, heading(740, "T1")+a+b+c, "T1", "A1", "A2", "B1", "B2", "C1", "C2")
}

// A full-width heading between two runs of columns: the run above is read out, then the
// heading, then the run below; the columns above are of uneven height (left longer).
func TestOrderHeadingBetweenRunsUnevenColumns(t *testing.T) {
	l, yl := column(72, 720, "L", 42, 4, 4, 3)
	r, _ := column(320, 720, "R", 42, 4)
	y := yl - 10
	l2, _ := column(72, y-30, "M", 42, 3)
	r2, _ := column(320, y-30, "N", 42, 3, 4)
	wantOrder(t, l+r+heading(y, "T2")+l2+r2, "L1", "L2", "L3", "R1", "T2", "M1", "N1", "N2")
}

// A full-width picture between two runs of columns.
func TestOrderFigureBetweenRuns(t *testing.T) {
	l, yl := column(72, 720, "L", 42, 4, 4)
	r, _ := column(320, 720, "R", 42, 4, 4)
	top := yl - 130
	fig := fmt.Sprintf("q 468 0 0 120 72 %g cm /Im1 Do Q\n", top)
	l2, _ := column(72, top-24, "M", 42, 4)
	r2, _ := column(320, top-24, "N", 42, 4)
	d := docOf(l + r + fig + l2 + r2)
	img := pdftest.FirstExtra(1) + 2
	d.Pages[0].Resources = fonts(1, fmt.Sprintf("/XObject << /Im1 %d 0 R >>", img))
	d.Extra = append(d.Extra, pdftest.Stream("/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8", "\x00\xff\xff\x00"))
	els := layoutBytes(t, d.Bytes())
	want := []string{"L1", "L2", "R1", "R2", "Image", "M1", "N1"}
	if got := tagOrder(t, els); !slices.Equal(got, want) {
		t.Errorf("order %v, want %v\n%s", got, want, strings.Join(texts(els), "\n"))
	}
}

// A ruled table across both columns between two runs of columns.
func TestOrderColumnSpanningTable(t *testing.T) {
	l, yl := column(72, 720, "L", 42, 4, 4)
	r, _ := column(320, 720, "R", 42, 4, 4)
	var tb strings.Builder
	top := yl - 6
	for i := 0; i <= 3; i++ {
		fmt.Fprintf(&tb, "72 %g m 540 %g l S\n", top-float64(i*20), top-float64(i*20))
	}
	for i := 0; i <= 4; i++ {
		x := 72 + float64(i)*117
		fmt.Fprintf(&tb, "%g %g m %g %g l S\n", x, top-60, x, top)
	}
	for row := 0; row < 3; row++ {
		for k := 0; k < 4; k++ {
			tb.WriteString(pdftest.Text("F1", 9, 80+float64(k)*117, top-14-float64(row*20), fmt.Sprintf("cell %d.%d", row, k)))
		}
	}
	l2, _ := column(72, top-90, "M", 42, 3)
	r2, _ := column(320, top-90, "N", 42, 3)
	els := wantOrder(t, l+r+tb.String()+l2+r2, "L1", "L2", "R1", "R2", "Table", "M1", "N1")
	for _, e := range els {
		if e.Type == element.Table && !strings.Contains(e.Text, "cell 2.3") {
			t.Errorf("table text %q", e.Text)
		}
	}
}

// A boxed sidebar beside the main column: the main column is read out, then the sidebar as a
// unit (its heading with its text), not a one-cell table and not interleaved with the main text.
func TestOrderSidebarBox(t *testing.T) {
	m, _ := column(72, 720, "M", 56, 5, 5, 5, 4)
	s := "0.5 w 396 520 156 150 re S\n" +
		pdftest.Text("F2", 11, 404, 652, "S1 In Brief") +
		func() string { c, _ := column(404, 634, "S", 28, 5); return strings.Replace(c, "S1", "S2", 1) }()
	wantOrder(t, heading(760, "T1")+m+s, "T1", "M1", "M2", "M3", "M4", "S1", "S2")
}

// A two-column page with a single short column (the paper's last page): the title, the one
// paragraph and the page number, nothing lost to the empty column.
func TestOrderSingleShortColumn(t *testing.T) {
	l, _ := column(72, 700, "L", 42, 3)
	els := wantOrder(t, heading(740, "T1")+l+pdftest.Text("F1", 9, 303, 40, "12"), "T1", "L1")
	if len(els) != 3 || els[2].Type != element.PageNumber {
		t.Errorf("got %q", texts(els))
	}
}

// A chart a plotting tool wrote as one Form XObject: the curve is the picture, and its tick
// labels and axis title, set outside the plot's frame, are the picture's text, not
// paragraphs of the flow read between the columns' text.
func TestOrderChartLabelsStayWithChart(t *testing.T) {
	var f strings.Builder
	// The plot: a wavy curve of many short Bézier pieces in a 160 x 100 frame at (40, 30)
	// in form space, with tick labels under the frame and the axis title below them.
	f.WriteString("0.5 w 40 30 m 200 30 l 200 130 l 40 130 l h S\n40 40 m\n")
	for i := 0; i < 32; i++ {
		x := 40 + float64(i)*5
		fmt.Fprintf(&f, "%g %g %g %g %g %g c\n", x+1, 60.0+float64(i%5)*8, x+3, 70.0, x+5, 50.0+float64(i%7)*9)
	}
	f.WriteString("S\n")
	for i, lbl := range []string{"20", "40", "60", "80", "100"} {
		f.WriteString(pdftest.Text("F1", 7, 46+float64(i)*36, 20, lbl))
	}
	f.WriteString(pdftest.Text("F1", 7, 90, 8, "k: passages retrieved"))
	l, _ := column(72, 720, "L", 42, 4, 4)
	r, _ := column(320, 560, "R", 42, 4)
	page := l + r + "q 1 0 0 1 300 580 cm /Fm1 Do Q\n"
	d := docOf(page)
	fm := pdftest.FirstExtra(1) + 2
	d.Pages[0].Resources = fonts(1, fmt.Sprintf("/XObject << /Fm1 %d 0 R >>", fm))
	formRes := fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", pdftest.FirstExtra(1))
	d.Extra = append(d.Extra, pdftest.Stream("/Type /XObject /Subtype /Form /BBox [0 0 240 150] /Resources "+formRes, f.String()))
	els := layoutBytes(t, d.Bytes())
	want := []string{"L1", "L2", "Image", "R1"}
	if got := tagOrder(t, els); !slices.Equal(got, want) {
		t.Errorf("order %v, want %v\n%s", got, want, strings.Join(texts(els), "\n"))
	}
	for _, e := range els {
		if e.Type == element.Image {
			if !strings.Contains(e.Text, "100") || !strings.Contains(e.Text, "passages retrieved") {
				t.Errorf("chart text %q lacks its labels: %q %v", e.Text, texts(els), e.Metadata.Coordinates.Points)
			}
			continue
		}
		if strings.Contains(e.Text, "passages retrieved") || strings.TrimSpace(e.Text) == "60" {
			t.Errorf("a chart label in the flow: %s %q", e.Type, e.Text)
		}
	}
}

// A line pdfminer cut at an inline formula into runs of its own, lying wholly inside the
// paragraph in the same type size, goes back into the paragraph, read in its row; up to
// three lines of small type beside a block of larger type join it too, but a four-line
// block of small type is a block of its own.
func TestAbsorbFragments(t *testing.T) {
	line := func(x0, y0, x1 float64, size float64, s string) tline {
		return tline{text: s, b: box{x0, y0, x1, y0 + size}, size: size}
	}
	para := region{}
	for i := 0; i < 8; i++ {
		l := line(300, 100+float64(i)*13, 520, 10.9, fmt.Sprintf("p%d", i))
		if i == 3 {
			l.b.x1 = 410 // the row the formula runs continue
		}
		para.lines = append(para.lines, l)
		para.b = para.b.union(l.b)
	}
	para.b = box{300, 100, 520, 100 + 7*13 + 10.9}
	runs := region{lines: []tline{
		line(420, 139, 450, 10.9, "run1"), line(452, 141, 470, 8, "sub"), line(472, 139, 490, 10.9, "run2"), line(492, 141, 500, 8, "e"),
	}}
	runs.b = box{420, 139, 500, 149.9}
	small := region{}
	for i := 0; i < 4; i++ {
		small.lines = append(small.lines, line(300, 300+float64(i)*10, 520, 8, "note"))
	}
	small.b = box{300, 300, 520, 338}
	got := absorbFragments([]region{para, runs, small}, 10.9)
	if len(got) != 2 || len(got[0].lines) != 12 || len(got[1].lines) != 4 {
		t.Fatalf("got %d blocks", len(got))
	}
	orderRows(got[0].lines)
	var row []string
	for _, l := range got[0].lines {
		if l.b.y0 >= 139 && l.b.y0 < 145 {
			row = append(row, l.text)
		}
	}
	if want := []string{"p3", "run1", "sub", "run2", "e"}; !slices.Equal(row, want) {
		t.Errorf("row %v, want %v", row, want)
	}
}

// Running text set over a large picture (a background photo, a tinted panel drawn as an
// image) stays in the flow, in order; before, every glyph over a picture was dropped.
func TestTextOverBackgroundPicture(t *testing.T) {
	body, _ := column(90, 640, "P", 80, 5, 5, 5)
	d := docOf("q 440 0 0 400 86 300 cm /Im1 Do Q\n" + body)
	img := pdftest.FirstExtra(1) + 2
	d.Pages[0].Resources = fonts(1, fmt.Sprintf("/XObject << /Im1 %d 0 R >>", img))
	d.Extra = append(d.Extra, pdftest.Stream("/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8", "\x10\x20\x30\x40"))
	els := layoutBytes(t, d.Bytes())
	var got []string
	for _, tg := range tagOrder(t, els) {
		if tg != string(element.Image) {
			got = append(got, tg)
		}
	}
	if want := []string{"P1", "P2", "P3"}; !slices.Equal(got, want) {
		t.Errorf("text over the picture: %v, want %v\n%s", got, want, strings.Join(texts(els), "\n"))
	}
}

// A line opening with a quotation mark hung into the margin (TeX's microtype) does not move
// the paragraph's edge: the next paragraph's first-line indent still starts a new block.
func TestHangingPunctuationKeepsParagraphs(t *testing.T) {
	c := pdftest.Text("F1", 10, 318, 700, "P1 retrieval in open-domain question answering is usually") +
		pdftest.Text("F1", 10, 307, 688, "implemented with sparse vectors and an inverted index so") +
		pdftest.Text("F1", 10, 303, 676, "\"who is the bad guy in the story\" can be answered from a") +
		pdftest.Text("F1", 10, 307, 664, "context that shares hardly a word with the question asked") +
		pdftest.Text("F1", 10, 307, 652, "and a dense encoder maps both of them close together.") +
		pdftest.Text("F1", 10, 307, 640, "Guo et al. (2016).") +
		pdftest.Text("F1", 10, 318, 628, "P2 however it is generally believed that learning a good") +
		pdftest.Text("F1", 10, 307, 616, "dense representation needs a large number of labeled pairs") +
		pdftest.Text("F1", 10, 307, 604, "of questions and contexts, which are expensive to collect.")
	wantOrder(t, c, "P1", "P2")
}

// Rows read across, not down: a signature block under a title is rows, as is a grid of prose cells ruled
// between its rows that the table finder leaves as text; a running head at the top right is
// read before the title at the left under it (two lines each: pieces side by side in no
// columns); a heading of two lines over a full-width list after two columns leads the list.
func TestOrderRowsAndHeads(t *testing.T) {
	t.Run("signature block", func(t *testing.T) {
		c := pdftest.Text("F2", 14, 72, 740, "T1 Signatures of the Registrant") +
			pdftest.Text("F1", 10, 72, 700, "K1 Date:") + pdftest.Text("F1", 10, 250, 700, "V1 October 26, 2023") +
			pdftest.Text("F1", 10, 72, 680, "K2 By:") + pdftest.Text("F1", 10, 250, 680, "V2 /s/ Chief Financial Officer")
		wantOrder(t, c, "T1", "K1", "V1", "K2", "V2")
	})
	t.Run("ruled grid of prose", func(t *testing.T) {
		var c strings.Builder
		c.WriteString(heading(740, "T1"))
		y := 700.0
		for r := 1; r <= 3; r++ {
			fmt.Fprintf(&c, "0.6 w 72 %g m 540 %g l S\n", y+14, y+14)
			a, _ := para(76, y, fmt.Sprintf("A%d", r), 3, 40)
			b, _ := para(316, y, fmt.Sprintf("B%d", r), 3, 40)
			c.WriteString(a + b)
			y -= 60
		}
		fmt.Fprintf(&c, "72 %g m 540 %g l S\n", y+14, y+14)
		wantOrder(t, c.String(), "T1", "A1", "B1", "A2", "B2", "A3", "B3")
	})
	t.Run("running head and title", func(t *testing.T) {
		c := pdftest.Text("F1", 8, 440, 770, "H1 Quarterly Report") + pdftest.Text("F1", 8, 440, 761, "of the Company") +
			pdftest.Text("F2", 16, 72, 730, "T1 A Quarter") + pdftest.Text("F2", 16, 72, 712, "in Review") +
			func() string { s, _ := para(72, 680, "P1", 3, 90); return s }()
		wantOrder(t, c, "H1", "T1", "P1")
	})
	t.Run("heading over a full-width list", func(t *testing.T) {
		l, _ := column(72, 720, "L", 42, 4, 3)
		r, _ := column(320, 720, "R", 42, 4, 4)
		c := l + r + pdftest.Text("F2", 12, 72, 600, "T2 Key Developments") + pdftest.Text("F2", 12, 72, 586, "of the Quarter")
		for i, y := range []float64{570, 556} {
			c += pdftest.Text("F1", 10, 72, y, fmt.Sprintf("- B%d an item of the list that runs across the whole width of the page, both columns", i+1))
		}
		wantOrder(t, c, "L1", "L2", "R1", "R2", "T2", "B1", "B2")
	})
}

// imagePage is a one-page document of content with Im1, a 2 x 2 gray image, placed by cm.
func imagePage(t *testing.T, content string) []element.Element {
	t.Helper()
	d := docOf(content)
	img := pdftest.FirstExtra(1) + 2
	d.Pages[0].Resources = fonts(1, fmt.Sprintf("/XObject << /Im1 %d 0 R >>", img))
	d.Extra = append(d.Extra, pdftest.Stream("/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8", "\x00\xff\xff\x00"))
	return layoutBytes(t, d.Bytes())
}

// A banner over two columns: a photograph at the top left and the page's goal statement in
// bold beside it, set apart from the columns below by a wide gap. The statement heads the
// page and is read before the columns, not after the left one; a heading that sits close
// over its column's text (the second page) still leads that column only.
func TestOrderBannerOverColumns(t *testing.T) {
	photo := "q 230 0 0 120 72 600 cm /Im1 Do Q\n"
	l, _ := column(72, 560, "L", 42, 4, 4)
	r, _ := column(320, 560, "R", 42, 4, 4)
	goal := pdftest.Text("F2", 12, 320, 705, "G1 STRATEGIC GOAL: IMPROVE THE") +
		pdftest.Text("F2", 12, 320, 690, "SERVICES OF THE AGENCY TO THE") +
		pdftest.Text("F2", 12, 320, 675, "PUBLIC IT SERVES EVERY DAY")
	want := []string{"Image", "G1", "L1", "L2", "R1", "R2"}
	els := imagePage(t, photo+goal+l+r)
	if got := tagOrder(t, els); !slices.Equal(got, want) {
		t.Errorf("banner: order %v, want %v\n%s", got, want, strings.Join(texts(els), "\n"))
	}
	// The heading 8 points over its column's first paragraph (under 1.5 body sizes), the
	// picture's foot level with the heading's: the heading leads the right column.
	r2, _ := column(320, 680, "R", 42, 4, 4)
	l2, _ := column(72, 560, "L", 42, 4, 4, 4)
	head := pdftest.Text("F2", 12, 320, 700, "H1 Results of the Quarter")
	want = []string{"Image", "L1", "L2", "L3", "H1", "R1", "R2"}
	els = imagePage(t, "q 230 0 0 100 72 592 cm /Im1 Do Q\n"+head+l2+r2)
	if got := tagOrder(t, els); !slices.Equal(got, want) {
		t.Errorf("column heading: order %v, want %v\n%s", got, want, strings.Join(texts(els), "\n"))
	}
}

// A watermark across two columns (DRAFT set at 120 pt, turned 60°, drawn over the text) and
// a picture under them (a tinted background): neither is part of the flow's geometry, so the
// columns are still read one after the other; the watermark's text comes after the page's,
// the picture before it. Before, both crossed the gutter and the columns were read across.
func TestOrderWatermarkAndBackgroundOverColumns(t *testing.T) {
	l, _ := column(72, 700, "L", 42, 6, 5, 6)
	r, y := column(320, 700, "R", 42, 5, 6, 6)
	mark := "BT /F2 120 Tf 0.5 0.866 -0.866 0.5 330 250 Tm (DRAFT) Tj ET\n"
	// Two lines of a listing in small type under the watermark stay text of their own, not
	// the watermark's (small type overlapping a block of larger type joins it otherwise).
	code := pdftest.Text("F1", 8, 320, y, "C1 FUNCTION {emphasize}") + pdftest.Text("F1", 8, 330, y-10, "{ duplicate$ empty$ }")
	els := wantOrder(t, l+mark+r+code, "L1", "L2", "L3", "R1", "R2", "R3", "C1")
	// (One word: its letters are not read one by one, as pdfminer's lines would have them.)
	if last := els[len(els)-1]; last.Text != "DRAFT" {
		t.Errorf("last element %s %q, want the watermark", last.Type, last.Text)
	}
	els = imagePage(t, "q 480 0 0 500 66 250 cm /Im1 Do Q\n"+l+r)
	if got, want := tagOrder(t, els), []string{"Image", "L1", "L2", "L3", "R1", "R2", "R3"}; !slices.Equal(got, want) {
		t.Errorf("background: order %v, want %v\n%s", got, want, strings.Join(texts(els), "\n"))
	}
}

// A table of contents at the top of the left column, its page numbers flush with the
// column's right edge and the right column's lines on the same baselines beyond the gutter:
// a number closes its entry's row, it does not open the right column's line as a section
// number opens its heading. Before, each number joined the right column's line, which then
// crossed the gutter, and the columns were read across.
func TestOrderContentsNumbersBesideColumn(t *testing.T) {
	mono := func(x, y float64, s string) string { return pdftest.Text("F1", 10, x, y, s) }
	var c strings.Builder
	// Courier: every letter 6 points wide at 10 pt, so the left column's lines (40 letters
	// from x 72) end at 312, where the right-aligned page numbers end too.
	for i, e := range []string{"E1 Introduction", "E2 Methods"} {
		y := 700 - float64(22*i)
		c.WriteString(pdftest.Text("F2", 10, 72, y, e) + mono(306, y, fmt.Sprint(i+3)))
	}
	left := []string{"L1 the left column runs on with its text", "and every line of it is forty letters we", "set in a fixed width so that all of them", "end at one edge of the column as set now", "which is how a justified column would be", "set by any typesetter that knows its job", "and so the numbers are flush with it too."}
	for i, s := range left {
		c.WriteString(mono(72, 634-float64(12*i), s))
	}
	right := []string{"R1 The right column starts at the top of", "the page beside the contents, and it runs", "down on its own to the foot of the page,", "as any column of a newsletter does when",
		"the reader follows it. The numbers of the", "contents at the left are no part of it,", "however close they come to its left edge", "on the lines they share with it in the",
		"first rows of the page, for a gutter lies", "between the two columns all the way down."}
	for i, s := range right {
		c.WriteString(mono(330, 700-float64(12*i), s))
	}
	d := pdftest.Doc{Extra: []string{
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier-Bold /Encoding /WinAnsiEncoding >>",
	}}
	d.Pages = append(d.Pages, pdftest.Page{Content: c.String(), Resources: fonts(1, "")})
	els := layoutBytes(t, d.Bytes())
	if got, want := tagOrder(t, els), []string{"E1", "E2", "L1", "R1"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v\n%s", got, want, strings.Join(texts(els), "\n"))
	}
	for _, e := range els {
		if strings.Contains(e.Text, "R1") && !strings.HasPrefix(e.Text, "R1") {
			t.Errorf("a page number joined the right column: %q", e.Text)
		}
	}
}

// Labels in the margin set a point lower than the paragraph they label and a few points
// from it, closer than a gutter (a documented macro's name beside its description): each
// label is read before its paragraph, as its row begins with it, not after it because its
// top lies a point lower.
func TestOrderMarginLabelsBeforeTheirText(t *testing.T) {
	var c strings.Builder
	for k, y := range []float64{700, 640} {
		// Courier: 5.4 points a letter at 9 pt, so the label ends at 83.2, 3.8 points from
		// the text at 87.
		c.WriteString(pdftest.Text("F1", 9, 40, y-1, fmt.Sprintf("M%d alpha", k+1)) + pdftest.Text("F1", 9, 40, y-12, "beta"))
		for i, s := range []string{fmt.Sprintf("P%d the description of the macro runs on", k+1), "for three lines beside the label that it", "explains to the reader of the manual."} {
			c.WriteString(pdftest.Text("F1", 10, 87, y-float64(12*i), s))
		}
	}
	d := pdftest.Doc{Extra: []string{
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier-Bold /Encoding /WinAnsiEncoding >>",
	}}
	d.Pages = append(d.Pages, pdftest.Page{Content: c.String(), Resources: fonts(1, "")})
	els := layoutBytes(t, d.Bytes())
	if got, want := tagOrder(t, els), []string{"M1", "P1", "M2", "P2"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v\n%s", got, want, strings.Join(texts(els), "\n"))
	}
}

// A short right column beside a long left one, and a running foot centred across the gutter
// (so the page has no gutter from top to bottom): below the right column's foot the left
// column's bands hold one column only, among them a one-line heading over its paragraph. A
// one-column band is no row read across, however few lines it holds: it stays in the run
// of columns, which is read column by column. Before, the heading's band ended the run
// and the right column was read between the left column's first paragraph and the heading.
func TestOrderShortColumnBesideHeadings(t *testing.T) {
	l1, y := para(72, 720, "L1", 7, 42)
	h := pdftest.Text("F2", 10, 72, y, "H1 Office of the Director")
	l2, y := para(72, y-14, "L2", 9, 42)
	h2 := pdftest.Text("F2", 10, 72, y, "H2 Other Offices")
	l3, _ := para(72, y-14, "L3", 8, 42)
	r, _ := para(320, 720, "R1", 3, 42)
	foot := pdftest.Text("F1", 8, 220, 40, "F1 Annual Report of the Agency") + pdftest.Text("F1", 8, 380, 40, "19")
	wantOrder(t, l1+h+l2+h2+l3+r+foot, "L1", "H1", "L2", "H2", "L3", "R1", "F1")
}

// A table of contents at the top of the left column, its page numbers set apart at the
// column's right edge, beside the right column's running text, and below it the left
// column's first heading level with the last two lines of a right-column paragraph; a
// running foot across the gutter. The contents' rows lie beside a paragraph of several
// lines, so they are no rows read across the page, and a row-like band between bands that
// are not (a heading beside a paragraph's lines) stays in the run: the left column is read
// out, then the right one. Before, each band of the contents ended the run of columns and
// the right column's paragraphs were read between its entries and after the heading.
func TestOrderContentsBesideRunningText(t *testing.T) {
	var c strings.Builder
	c.WriteString(pdftest.Text("F2", 11, 72, 722, "C1 Contents"))
	for i, e := range []string{"E1 Introduction", "E2 Auto-detecting arguments", "E3 A note for font developers", "E4 Bug fixes"} {
		y := 700 - float64(22*i)
		c.WriteString(pdftest.Text("F2", 10, 72, y, e) + pdftest.Text("F1", 10, 282, y, fmt.Sprint(i+1)))
	}
	c.WriteString(pdftest.Text("F2", 11, 72, 600, "H1 Introduction"))
	l, _ := column(72, 582, "L", 42, 6, 5)
	r1, _ := para(340, 722, "R1", 9, 40)
	r2, _ := para(340, 608, "R2", 2, 40)
	r3, _ := para(340, 570, "R3", 9, 40)
	foot := pdftest.Text("F1", 8, 220, 40, "F1 News of the Project, brought to you by its team")
	wantOrder(t, c.String()+l+r1+r2+r3+foot, "C1", "E1", "E2", "E3", "E4", "H1", "L1", "L2", "R1", "R2", "R3", "F1")
}

// A table of contents filling the top of the left column (entries with leader dots, page
// numbers at the column's right edge, no running text there whose lines end at that edge),
// the right column's heading and lines a gutter beyond the numbers on their baselines: a
// number after leader dots, and every number right-aligned with it, closes its entry's
// row; it does not open the right column's line as a section number opens a heading.
// Before, the numbers joined the right column's lines ("3 Extending the hook…"), which
// then crossed the gutter, and the page was read across.
func TestOrderContentsPageNumbersBeforeGutter(t *testing.T) {
	var c strings.Builder
	c.WriteString(pdftest.Text("F2", 11, 72, 722, "C1 Contents"))
	entries := []string{"E1 Introduction", "E2 Shipping out a page . . . . . . . . .", "E3 A new hook for fonts . . . . . . . .",
		"E4 Other hook business", "E5 Changes to packages . . . . . . . ."}
	for i, e := range entries {
		y := 700 - float64(22*i)
		font := "F1"
		if !strings.Contains(e, ". .") {
			font = "F2"
		}
		c.WriteString(pdftest.Text(font, 10, 72, y, e) + pdftest.Text("F1", 10, 262, y, fmt.Sprint(i/2+1)))
	}
	r1, _ := para(290, 700, "R1", 9, 40)
	c.WriteString(r1)
	c.WriteString(pdftest.Text("F2", 12, 290, 590, "H2 Extending the hook concept"))
	c.WriteString(pdftest.Text("F1", 8, 200, 40, "F1 News of the Project, brought to you by its team"))
	els := wantOrder(t, c.String(), "C1", "E1", "E2", "E3", "E4", "E5", "R1", "H2", "F1")
	for _, e := range els {
		if regexp.MustCompile(`^[0-9]+ [A-Z]`).MatchString(e.Text) {
			t.Errorf("a page number opened a line of the right column: %q", e.Text)
		}
	}
}

// Two columns of a TUGboat article, each a paragraph and a listing, where a listing's
// closing line in the left column sits level with a listing line of the right column,
// paragraphs above and below on both sides: that band of single lines, alone between bands
// of running text, lies within the run's columns and stays in the run. Before, it was read
// across as a row, so the page was read in three bands.
func TestOrderLoneRowInColumns(t *testing.T) {
	p1, y := para(72, 720, "P1", 5, 42)
	k := pdftest.Text("F1", 10, 72, y+6, "K1 }")
	p2, _ := para(72, y-14, "P2", 8, 42)
	r1, _ := para(320, 720, "R1", 5, 42)
	q := pdftest.Text("F1", 10, 340, y+6, "Q1 { pop$ }")
	r2, _ := para(320, y-14, "R2", 8, 42)
	foot := pdftest.Text("F1", 8, 220, 40, "F1 preliminary draft, September 24, 2008")
	wantOrder(t, p1+k+p2+r1+q+r2+foot, "P1", "K1", "P2", "R1", "Q1", "R2", "F1")
}

// A statement's column labels (a date over each figure column, one of them two lines)
// under a centred title and over a centred section label: a lone band that looks like a
// row and adds columns to the run above is a row, read before the label under it, not
// joined to the title's run and read after the label (the first version of the rule for
// lone rows did that: the label came first).
func TestOrderColumnLabelsUnderTitle(t *testing.T) {
	c := pdftest.Text("F2", 11, 228, 740, "T1 BALANCE SHEETS") +
		pdftest.Text("F1", 8, 400, 700, "D1 December 31, 2022") +
		pdftest.Text("F1", 8, 522, 700, "S1 September 30, 2023") + pdftest.Text("F1", 8, 522, 691, "(unaudited)") +
		pdftest.Text("F2", 9, 202, 676, "A1 ASSETS") +
		func() string { s, _ := para(60, 650, "P1", 3, 100); return s }()
	wantOrder(t, c, "T1", "D1", "S1", "A1", "P1")
}
