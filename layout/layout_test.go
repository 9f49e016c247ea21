package layout

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"fmt"
	"image/jpeg"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/internal/pdftest"
	"github.com/quarrydocs/quarry/pdf"
)

// fonts is the resources dictionary of a document of n pages: F1 Helvetica, F2 bold.
func fonts(n int, more string) string {
	f := pdftest.FirstExtra(n)
	return fmt.Sprintf("<< /Font << /F1 %d 0 R /F2 %d 0 R >> %s >>", f, f+1, more)
}

func docOf(pages ...string) pdftest.Doc {
	d := pdftest.Doc{Extra: []string{pdftest.Helvetica, pdftest.HelveticaBold}}
	for _, c := range pages {
		d.Pages = append(d.Pages, pdftest.Page{Content: c, Resources: fonts(len(pages), "")})
	}
	return d
}

// paragraph sets lines of body text (10 pt, 12 pt leading) from the top y down.
func paragraph(x, y float64, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(pdftest.Text("F1", 10, x, y-float64(12*i), l))
	}
	return b.String()
}

func layoutBytes(t *testing.T, data []byte) []element.Element {
	t.Helper()
	ctx := context.Background()
	d, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	doc := New(Options{TableHTML: true})
	var out []element.Element
	for n := 1; n <= d.NumPages(); n++ {
		p, err := d.Page(ctx, n, Params(pdf.DefaultLAParams()))
		if err != nil {
			t.Fatal(err)
		}
		if ok, why := Usable(p); !ok {
			t.Fatalf("page %d not usable: %s", n, why)
		}
		if err := doc.Add(ctx, p); err != nil {
			t.Fatal(err)
		}
		for _, l := range doc.Ready() {
			out = append(out, l.Elements...)
		}
	}
	for _, l := range doc.Finish() {
		out = append(out, l.Elements...)
	}
	return out
}

func texts(els []element.Element) []string {
	var out []string
	for _, e := range els {
		out = append(out, string(e.Type)+": "+e.Text)
	}
	return out
}

func TestTwoColumnsReadInOrder(t *testing.T) {
	left := "the left column has its own words in lines"
	right := "the right column follows after the left one"
	c := pdftest.Text("F2", 18, 72, 720, "A Study of Columns") +
		paragraph(72, 680, "Left one starts here and", left, left, left+".") +
		paragraph(72, 620, "Left two starts here and", left, left+".") +
		paragraph(320, 680, "Right one starts here and", right, right+".") +
		paragraph(320, 632, "Right two starts here and", right, right, right+".")
	els := layoutBytes(t, docOf(c).Bytes())
	got := texts(els)
	want := []string{"Title: A Study of Columns", "NarrativeText: Left one", "NarrativeText: Left two", "NarrativeText: Right one", "NarrativeText: Right two"}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("element %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
	for _, e := range els {
		if e.Metadata.Coordinates == nil || len(e.Metadata.Coordinates.Points) != 4 {
			t.Errorf("no coordinates on %q", e.Text)
		}
	}
}

func TestFakeBoldReadOnce(t *testing.T) {
	c := pdftest.Text("F1", 12, 72, 700, "Drawn twice for weight") + pdftest.Text("F1", 12, 72.4, 700, "Drawn twice for weight")
	els := layoutBytes(t, docOf(c).Bytes())
	if len(els) != 1 || els[0].Text != "Drawn twice for weight" {
		t.Errorf("got %q", texts(els))
	}
}

// TestTinyDoubledLettersKept: doubled letters of tiny text (identifiers set at half a point, as some
// exporters hide them) are one advance apart, under the half point a fake-bold copy may be
// offset by, and must not be dropped as copies.
func TestTinyDoubledLettersKept(t *testing.T) {
	c := pdftest.Text("F1", 12, 72, 700, "Stakeholders") + pdftest.Text("F1", 0.5, 400, 700, "_df8d5d4c-bf81-11ec-ac27-35c7f582ea00")
	els := layoutBytes(t, docOf(c).Bytes())
	if got := strings.Join(texts(els), " "); !strings.Contains(got, "11ec") || !strings.Contains(got, "ea00") {
		t.Errorf("got %q", got)
	}
}

func TestClipHidesText(t *testing.T) {
	c := "q 0 400 612 392 re W n " + pdftest.Text("F1", 12, 72, 700, "Visible words here") + pdftest.Text("F1", 12, 72, 200, "Hidden words there") + "Q"
	els := layoutBytes(t, docOf(c).Bytes())
	if got := texts(els); len(got) != 1 || !strings.Contains(got[0], "Visible") {
		t.Errorf("got %q", got)
	}
	// A clip hiding every glyph is not trusted: the page is not emptied silently.
	c = "q 0 0 1 1 re W n " + pdftest.Text("F1", 12, 72, 700, "Everything clipped") + "Q"
	if got := texts(layoutBytes(t, docOf(c).Bytes())); len(got) != 1 {
		t.Errorf("all-clipped page: got %q", got)
	}
}

func TestRunningHeadsAndPageNumbers(t *testing.T) {
	var pages []string
	for i := 1; i <= 3; i++ {
		pages = append(pages, pdftest.Text("F1", 9, 72, 760, "ACME Annual Report 2024")+
			paragraph(72, 700, "Body text of the page goes on for a while and", "then it stops at the end of the sentence.")+
			pdftest.Text("F1", 9, 300, 40, fmt.Sprint(i)))
	}
	els := layoutBytes(t, docOf(pages...).Bytes())
	counts := map[element.Type]int{}
	for _, e := range els {
		counts[e.Type]++
	}
	if counts[element.Header] != 3 || counts[element.PageNumber] != 3 || counts[element.NarrativeText] != 3 {
		t.Errorf("types = %v: %q", counts, texts(els))
	}
}

func TestRuledTableAndImage(t *testing.T) {
	var c strings.Builder
	// A 3 x 3 grid of rules with a word in each cell.
	for i := 0; i <= 3; i++ {
		fmt.Fprintf(&c, "72 %d m 372 %d l S\n", 600-i*20, 600-i*20)
		fmt.Fprintf(&c, "%d 540 m %d 600 l S\n", 72+i*100, 72+i*100)
	}
	for r := 0; r < 3; r++ {
		for k := 0; k < 3; k++ {
			c.WriteString(pdftest.Text("F1", 10, float64(80+k*100), float64(586-r*20), fmt.Sprintf("r%dc%d", r, k)))
		}
	}
	c.WriteString(paragraph(72, 500, "A paragraph under the table explains what it shows", "and ends here with a full stop."))
	c.WriteString("q 200 0 0 100 72 300 cm /Im1 Do Q\n")
	d := docOf(c.String())
	img := pdftest.FirstExtra(1) + 2
	d.Pages[0].Resources = fonts(1, fmt.Sprintf("/XObject << /Im1 %d 0 R >>", img))
	d.Extra = append(d.Extra, pdftest.Stream("/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8", "\x00\xff\xff\x00"))
	els := layoutBytes(t, d.Bytes())
	var table, image *element.Element
	for i := range els {
		switch els[i].Type {
		case element.Table:
			table = &els[i]
		case element.Image:
			image = &els[i]
		}
	}
	if table == nil || !strings.Contains(table.Metadata.TextAsHTML, "<td>r1c2</td>") || !strings.Contains(table.Text, "r2c0") {
		t.Fatalf("no table with its cells: %q", texts(els))
	}
	for _, e := range els {
		if e.Type != element.Table && strings.Contains(e.Text, "r1c1") {
			t.Errorf("table text also in the flow: %q", e.Text)
		}
	}
	if image == nil {
		t.Fatalf("no image: %q", texts(els))
	}
	pts := image.Metadata.Coordinates.Points
	if pts[0][0] != 72 || pts[0][1] != 792-400 || pts[2][0] != 272 || pts[2][1] != 792-300 {
		t.Errorf("image box = %v", pts)
	}
}

// A page drawing a million path segments lays out within the 2 s budget, with its text.
func TestMillionSegmentsPage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20 MB content stream")
	}
	var c strings.Builder
	c.Grow(24 << 20)
	for i := 0; i < 1_000_000; i++ {
		x, y := 100+i%400, 100+(i/400)%500
		fmt.Fprintf(&c, "%d %d m %d %d l S\n", x, y, x+2, y+1)
	}
	c.WriteString(pdftest.Text("F1", 10, 72, 720, "A caption above the map drawing."))
	data := docOf(c.String()).Bytes()
	start := time.Now()
	els := layoutBytes(t, data)
	// About 1.5 s on a shared core; the bound catches a hang or a quadratic pass, not jitter.
	if el := time.Since(start); el > 15*time.Second {
		t.Errorf("page took %v", el)
	}
	found := false
	for _, e := range els {
		if strings.Contains(e.Text, "caption above the map") {
			found = true
		}
	}
	if !found {
		t.Errorf("text lost: %q", texts(els))
	}
}

func TestUsable(t *testing.T) {
	read := func(content, res string, extra ...string) *pdf.Page {
		d := pdftest.Doc{Pages: []pdftest.Page{{Content: content, Resources: res}}, Extra: extra}
		data := d.Bytes()
		doc, err := pdf.Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		p, err := doc.Page(context.Background(), 1, Params(pdf.DefaultLAParams()))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	f := pdftest.FirstExtra(1)
	res := fmt.Sprintf("<< /Font << /F1 %d 0 R >> /XObject << /Im1 %d 0 R /Mask1 %d 0 R >> >>", f, f+1, f+3)
	mask := pdftest.Stream("/Type /XObject /Subtype /Image /Width 8 /Height 1 /ImageMask true /BitsPerComponent 1", "\x55")
	img := pdftest.Stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8", "\x80")
	// A Type0 font without ToUnicode: every glyph is (cid:NN).
	cidFont := fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [%d 0 R] >>", f+2)
	desc := "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 >>"
	for _, c := range []struct {
		name    string
		content string
		font    string
		want    bool
	}{
		{"text", pdftest.Text("F1", 12, 72, 700, "Plain readable words"), pdftest.Helvetica, true},
		{"scan", "q 612 0 0 792 0 0 cm /Im1 Do Q", pdftest.Helvetica, false},
		{"scan under invisible OCR text", "q 612 0 0 792 0 0 cm /Im1 Do Q BT 3 Tr /F1 12 Tf 72 700 Td (hidden OCR words) Tj ET", pdftest.Helvetica, false},
		{"unmapped glyphs", "BT /F1 12 Tf 72 700 Td <0001000200030004000500060007> Tj ET", cidFont, false},
		// A 1-bit scan stored as a page-sized stencil mask (CCITT fax scans) is a scan; a
		// small stencil (a logo) on an otherwise blank page is not.
		{"stencil-mask scan", "q 600 0 0 780 6 6 cm /Mask1 Do Q", pdftest.Helvetica, false},
		{"small stencil", "q 60 0 0 30 72 700 cm /Mask1 Do Q", pdftest.Helvetica, true},
	} {
		p := read(c.content, res, c.font, img, desc, mask)
		if ok, why := Usable(p); ok != c.want {
			t.Errorf("%s: usable = %v (%s), want %v", c.name, ok, why, c.want)
		}
	}
}

// A page carrying a 10,000-row table (a tall page, ruled rows) lays out within the budget and
// keeps its text.
func TestTenThousandRowTable(t *testing.T) {
	if testing.Short() {
		t.Skip("large fixture")
	}
	const rows = 10000
	var c strings.Builder
	c.WriteString("0.2 w\n")
	for r := 0; r < rows; r++ {
		y := float64(rows-r) * 9
		fmt.Fprintf(&c, "BT /F1 7 Tf 72 %g Td (row %d) Tj 150 0 Td (%d.5) Tj 150 0 Td (x%d) Tj ET\n", y, r, r, r)
		fmt.Fprintf(&c, "72 %g m 540 %g l S\n", y-2, y-2)
	}
	d := docOf(c.String())
	d.Pages[0].Width, d.Pages[0].Height = 612, rows*9+40
	start := time.Now()
	els := layoutBytes(t, d.Bytes())
	// About 2 s on a shared core (37 s with pdfminer's box grouping, which Params skips); the
	// bound catches a hang or a quadratic pass, not jitter.
	if el := time.Since(start); el > 15*time.Second {
		t.Errorf("page took %v", el)
	}
	n := 0
	for _, e := range els {
		n += strings.Count(e.Text, "row ")
	}
	if n != rows {
		t.Errorf("rows kept: %d of %d (%d elements)", n, rows, len(els))
	}
}

// A sentence alone at the top of a page is body text, not a running head.
func TestSentenceAtTopIsNotAHeader(t *testing.T) {
	els := layoutBytes(t, docOf(pdftest.Text("F1", 11, 72, 750, "A born-digital page with a picture below it.")).Bytes())
	if len(els) != 1 || els[0].Type != element.NarrativeText {
		t.Errorf("got %q", texts(els))
	}
}

// Two ruled grids drawn over each other: the page lays out, and every cell's word is read once.
func TestOverlappingTables(t *testing.T) {
	var c strings.Builder
	grid := func(x0, y0 float64, tag string) {
		for i := 0; i <= 3; i++ {
			fmt.Fprintf(&c, "%g %g m %g %g l S\n", x0, y0-float64(i*20), x0+300, y0-float64(i*20))
			fmt.Fprintf(&c, "%g %g m %g %g l S\n", x0+float64(i*100), y0-60, x0+float64(i*100), y0)
		}
		for r := 0; r < 3; r++ {
			for k := 0; k < 3; k++ {
				c.WriteString(pdftest.Text("F1", 9, x0+8+float64(k*100), y0-14-float64(r*20), fmt.Sprintf("%s%d%d", tag, r, k)))
			}
		}
	}
	grid(72, 600, "a")
	grid(122, 590, "b")
	els := layoutBytes(t, docOf(c.String()).Bytes())
	all := strings.Join(texts(els), " ")
	for _, tag := range []string{"a", "b"} {
		for r := 0; r < 3; r++ {
			for k := 0; k < 3; k++ {
				w := fmt.Sprintf("%s%d%d", tag, r, k)
				if n := strings.Count(all, w); n != 1 {
					t.Errorf("%s read %d times: %q", w, n, texts(els))
				}
			}
		}
	}
}

// A figure set large is not a heading; a short bold line is.
func TestTitlesAreWords(t *testing.T) {
	c := pdftest.Text("F2", 16, 72, 700, "Results of the Year") +
		paragraph(72, 670, "Body text explains the figures that follow and goes on", "for a second line before it ends.") +
		pdftest.Text("F2", 16, 72, 620, "$6.8B $(10.5)B")
	got := texts(layoutBytes(t, docOf(c).Bytes()))
	want := []string{"Title: Results of the Year", "NarrativeText: Body text", "UncategorizedText: $6.8B"}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("element %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
}

// curvesAround draws a border of small curves around the box (a decorative frame or a
// chart's outline): one cluster of drawing items, which figures takes as a picture.
func curvesAround(x0, y0, x1, y1 float64) string {
	var b strings.Builder
	for x := x0; x < x1; x += 8 {
		fmt.Fprintf(&b, "%g %g m %g %g %g %g %g %g c S\n", x, y0, x+2, y0+3, x+6, y0-3, x+8, y0)
		fmt.Fprintf(&b, "%g %g m %g %g %g %g %g %g c S\n", x, y1, x+2, y1+3, x+6, y1-3, x+8, y1)
	}
	for y := y0; y < y1; y += 8 {
		fmt.Fprintf(&b, "%g %g m %g %g %g %g %g %g c S\n", x0, y, x0+3, y+2, x0-3, y+6, x0, y+8)
		fmt.Fprintf(&b, "%g %g m %g %g %g %g %g %g c S\n", x1, y, x1+3, y+2, x1-3, y+6, x1, y+8)
	}
	return b.String()
}

// Text drawn over a picture is never dropped with it: over a page-sized frame it stays text
// (the title keeps its type), over a small drawing it is the picture's text (a label).
func TestTextOverPicturesKept(t *testing.T) {
	c := curvesAround(30, 36, 564, 804) +
		pdftest.Text("F2", 24, 200, 700, "Walden Pond") +
		paragraph(72, 640, "Some words of running text sit inside the frame", "and a second line of them follows the first.") +
		curvesAround(350, 200, 500, 350) + pdftest.Text("F1", 9, 380, 270, "Revenue by year")
	els := layoutBytes(t, docOf(c).Bytes())
	got := strings.Join(texts(els), " | ")
	for _, want := range []string{"Title: Walden Pond", "running text sit inside the frame", "Revenue by year"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q missing from %q", want, got)
		}
	}
}

// A filled form's values (widgets) and a FreeText note are drawn by annotations, not the
// content stream: they are laid out with the page's own text.
func TestFormValuesLaidOut(t *testing.T) {
	d := docOf(pdftest.Text("F1", 10, 72, 700, "First name:") + pdftest.Text("F1", 10, 72, 600, "Country:"))
	d.Pages[0].Entries = "/Annots [ << /Type /Annot /Subtype /Widget /FT /Tx /T (first) /V (Hindou) /Rect [150 695 300 712] >> " +
		"<< /Type /Annot /Subtype /Widget /FT /Tx /T (country) /V (Chad) /Rect [150 595 300 612] >> " +
		"<< /Type /Annot /Subtype /FreeText /Contents (Approved by the board) /Rect [72 400 300 420] >> ]"
	got := strings.Join(texts(layoutBytes(t, d.Bytes())), " | ")
	for _, want := range []string{"Hindou", "Chad", "Approved by the board", "First name:"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q missing from %q", want, got)
		}
	}
	if strings.Index(got, "Hindou") > strings.Index(got, "Chad") {
		t.Errorf("values out of reading order: %q", got)
	}
}

// A sheet drawn turned by the content stream (not /Rotate) — a landscape table, a booklet —
// is read as a reader turns it: its lines keep their words, in order, in each of the three
// turned directions. A page with one turned label keeps its frame.
func TestTurnedTextReadUpright(t *testing.T) {
	body := paragraph(72, 500, "The first line of the turned sheet reads well",
		"and the second line follows it in order", "while a third line closes the paragraph.")
	for _, cm := range []string{"0 1 -1 0 612 0 cm", "0 -1 1 0 0 792 cm", "-1 0 0 -1 612 792 cm"} {
		els := layoutBytes(t, docOf("q "+cm+" "+body+" Q").Bytes())
		got := strings.Join(texts(els), " | ")
		if !strings.Contains(got, "The first line of the turned sheet reads well and the second line follows it in order") {
			t.Errorf("%s: got %q", cm, got)
		}
	}
	label := "q 0 1 -1 0 40 300 cm " + pdftest.Text("F1", 8, 0, 0, "margin") + " Q"
	d := docOf(label + body)
	data := d.Bytes()
	doc, err := pdf.Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := doc.Page(context.Background(), 1, Params(pdf.DefaultLAParams()))
	if err != nil {
		t.Fatal(err)
	}
	if q := p.TurnUpright(Params(pdf.DefaultLAParams())); q != 0 || p.Width != 612 {
		t.Errorf("page with a turned label turned %d (width %v)", q, p.Width)
	}
}

// image_base64 of placed images that are not JPEG streams: a Flate-compressed Indexed image
// is decoded and handed on (as the auto strategy wires pdf.Document.ImageJPEG), and an image
// the decoder refuses (JPEG 2000) leaves its element without image_base64, the page intact.
func TestImageDataBeyondJPEG(t *testing.T) {
	var zb bytes.Buffer
	zw := zlib.NewWriter(&zb)
	pix := make([]byte, 40*30)
	for i := range pix {
		pix[i] = byte(i % 3)
	}
	zw.Write(pix)
	zw.Close()
	c := paragraph(72, 720, "A page with two pictures and a line of text above them.") +
		"q 200 0 0 150 72 450 cm /Im1 Do Q\nq 200 0 0 150 320 450 cm /Im2 Do Q\n"
	d := docOf(c)
	img := pdftest.FirstExtra(1) + 2
	d.Pages[0].Resources = fonts(1, fmt.Sprintf("/XObject << /Im1 %d 0 R /Im2 %d 0 R >>", img, img+1))
	d.Extra = append(d.Extra,
		pdftest.Stream("/Type /XObject /Subtype /Image /Width 40 /Height 30 /ColorSpace [/Indexed /DeviceRGB 2 <ff000000ff000000ff>] /BitsPerComponent 8 /Filter /FlateDecode", zb.String()),
		pdftest.Stream("/Type /XObject /Subtype /Image /Width 40 /Height 30 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /JPXDecode", "not decoded"))
	data := d.Bytes()
	ctx := context.Background()
	doc, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	ld := New(Options{ExtractTypes: map[element.Type]bool{element.Image: true}, ImageData: func(im pdf.Image) (string, string, bool) {
		if b, ok := doc.ImageJPEG(im.Ref); ok {
			return "image/jpeg", base64.StdEncoding.EncodeToString(b), true
		}
		return "", "", false
	}})
	p, err := doc.Page(ctx, 1, Params(pdf.DefaultLAParams()))
	if err != nil {
		t.Fatal(err)
	}
	els, err := ld.Page(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var withData, without int
	for _, e := range els {
		if e.Type != element.Image {
			continue
		}
		if e.Metadata.ImageBase64 == "" {
			without++
			continue
		}
		withData++
		b, _ := base64.StdEncoding.DecodeString(e.Metadata.ImageBase64)
		im, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil || im.Bounds().Dx() != 40 || im.Bounds().Dy() != 30 || e.Metadata.ImageMIMEType != "image/jpeg" {
			t.Errorf("image_base64: %v %v %q", err, im, e.Metadata.ImageMIMEType)
		}
	}
	if withData != 1 || without != 1 {
		t.Errorf("images with data %d, without %d: %q", withData, without, texts(els))
	}
}

// A grid ruled in both directions under a row of column labels is a table even when its
// cells hold sentences (a table of definitions); the same grid without the label row is
// prose boxed in columns and stays text.
func TestRuledGridOfSentences(t *testing.T) {
	grid := func(labels bool) string {
		var c strings.Builder
		xs := []float64{72, 180, 360, 540}
		ys := []float64{700, 680, 620, 560, 500}
		for _, y := range ys {
			fmt.Fprintf(&c, "72 %g m 540 %g l S\n", y, y)
		}
		for _, x := range xs {
			fmt.Fprintf(&c, "%g 500 m %g 700 l S\n", x, x)
		}
		if labels {
			for k, l := range []string{"Measure", "Definition", "Usefulness to investors"} {
				c.WriteString(pdftest.Text("F1", 9, xs[k]+4, 687, l))
			}
		} else {
			for k := range 3 {
				c.WriteString(pdftest.Text("F1", 9, xs[k]+4, 687, "the costs we leave out of the figures"))
			}
		}
		for r := range 3 {
			y := 667 - float64(r)*60
			c.WriteString(pdftest.Text("F1", 9, 76, y, fmt.Sprintf("Item %d charges", r+1)))
			for k := 1; k < 3; k++ {
				c.WriteString(pdftest.Text("F1", 9, xs[k]+4, y, "these costs are recorded when the"))
				c.WriteString(pdftest.Text("F1", 9, xs[k]+4, y-11, "charges occur and are excluded from"))
				c.WriteString(pdftest.Text("F1", 9, xs[k]+4, y-22, "the results we present to investors."))
			}
		}
		return c.String()
	}
	els := layoutBytes(t, docOf(grid(true)).Bytes())
	if len(els) != 1 || els[0].Type != element.Table || !strings.Contains(els[0].Metadata.TextAsHTML, ">Definition</t") {
		t.Errorf("labelled grid: %q", texts(els))
	}
	for _, e := range layoutBytes(t, docOf(grid(false)).Bytes()) {
		if e.Type == element.Table {
			t.Errorf("grid of prose without labels became a table: %q", e.Text)
		}
	}
}

// Vertical Japanese (a WMode 1 font) reads down each column, the columns from right to left.
func TestVerticalCJKReadInColumns(t *testing.T) {
	f := pdftest.FirstExtra(1)
	font := fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-V /DescendantFonts [%d 0 R] >>", f+1)
	desc := "<< /Type /Font /Subtype /CIDFontType0 /BaseFont /X /DW 1000 /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 0 >> >>"
	var c strings.Builder
	// Eight columns of "日本語のテキスト" (CIDs of Adobe-Japan1), right to left, the first
	// column's first glyph at the top right.
	for col := 0; col < 8; col++ {
		fmt.Fprintf(&c, "BT /F1 14 Tf %d 700 Td <0CD40E8A07A0022603C203A903B503C4> Tj ET\n", 500-col*20)
	}
	d := pdftest.Doc{Pages: []pdftest.Page{{Content: c.String(), Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", f)}},
		Extra: []string{font, desc}}
	got := strings.ReplaceAll(strings.Join(texts(layoutBytes(t, d.Bytes())), ""), " ", "")
	if want := strings.Repeat("日本語のテキスト", 8); !strings.Contains(got, want) {
		t.Errorf("got %q, want the columns in order: %q", got, want)
	}
}

// Text turned against the page's own (an arXiv identifier up the margin, a vertical axis
// title, a label reading downwards) reads as words, forwards, in a block of its own — not
// letter-spaced and backwards — and the page's upright text is untouched.
func TestTurnedLabelsReadAsWords(t *testing.T) {
	body := paragraph(72, 700, "The first line of the page reads well here", "and the second line follows it in order")
	for _, c := range []struct{ draw, want string }{
		{"q 0 1 -1 0 30 250 cm " + pdftest.Text("F1", 20, 0, 0, "arXiv:2103.00020v1 [cs.CV] 26 Feb 2021") + " Q\n", "arXiv:2103.00020v1 [cs.CV] 26 Feb 2021"},
		{"q 0 1 -1 0 60 300 cm " + pdftest.Text("F1", 9, 0, 0, "Revenue in millions") + " Q\n", "Revenue in millions"},
		{"q 0 -1 1 0 560 600 cm " + pdftest.Text("F1", 9, 0, 0, "Downward label text") + " Q\n", "Downward label text"},
		{"q -1 0 0 -1 400 100 cm " + pdftest.Text("F1", 9, 0, 0, "Upside down note") + " Q\n", "Upside down note"},
	} {
		got := texts(layoutBytes(t, docOf(body+c.draw).Bytes()))
		joined := strings.Join(got, " | ")
		if !strings.Contains(joined, ": "+c.want) || !strings.Contains(joined, ": The first line of the page reads well here and the second line follows it in order") {
			t.Errorf("%q: got %q", c.want, got)
		}
	}
}

// Two paragraphs set with a paragraph spacing smaller than a blank line (half a line here,
// LibreOffice's 0.2 cm), the first ending on a full line: the gap over the block's own line
// pitch starts the second. A paragraph whose lines step unevenly because one carries a
// superscript stays whole.
func TestParagraphSpacingSplits(t *testing.T) {
	full := "departments reported their expenses in the same"
	c := paragraph(72, 700, full, full, full+".") + paragraph(72, 660, full, full, "to finance.")
	got := texts(layoutBytes(t, docOf(c).Bytes()))
	if len(got) != 2 {
		t.Errorf("want two paragraphs, got %q", got)
	}

	sup := paragraph(72, 700, full, full) + pdftest.Text("F1", 10, 72, 676, "departments reported") +
		pdftest.Text("F1", 6, 168, 680, "2") + pdftest.Text("F1", 10, 172, 676, "their expenses in the same") +
		paragraph(72, 664, full, "to finance.")
	got = texts(layoutBytes(t, docOf(sup).Bytes()))
	if len(got) != 1 {
		t.Errorf("a superscript split its paragraph: %q", got)
	}
	uneven := paragraph(72, 700, full, full) + paragraph(72, 674, full, full, "to finance.")
	got = texts(layoutBytes(t, docOf(uneven).Bytes()))
	if len(got) != 1 {
		t.Errorf("a step of two points over the pitch split a paragraph: %q", got)
	}
}

// LibreOffice's export of twelve justified paragraphs 0.2 cm apart (testdata/
// paragraph-spacing.pdf, from paragraph-spacing.fodt), two of them carrying a superscript and
// a subscript: each paragraph is one element, whether or not the one before ends on a full
// line, and the lines with raised or lowered marks stay in their paragraph.
func TestLibreOfficeParagraphSpacing(t *testing.T) {
	data, err := os.ReadFile("testdata/paragraph-spacing.pdf")
	if err != nil {
		t.Fatal(err)
	}
	var paras []string
	for _, e := range layoutBytes(t, data) {
		if e.Type == element.NarrativeText {
			paras = append(paras, e.Text)
		}
	}
	if len(paras) != 12 {
		t.Fatalf("want 12 paragraphs, got %d: %q", len(paras), paras)
	}
	for i, p := range paras {
		if want := fmt.Sprintf("Paragraph %d. ", i+1); !strings.HasPrefix(p, want) || !strings.HasSuffix(p, ".") {
			t.Errorf("paragraph %d read as %q", i+1, p)
		}
	}
}
