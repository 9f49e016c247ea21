package docx

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/email"
	_ "github.com/quarrydocs/quarry/formats/html"
)

const wNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

func buildZip(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const testStyles = `<w:styles ` + wNS + `>
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>
<w:style w:type="paragraph" w:styleId="Quote"><w:name w:val="Quote"/></w:style>
</w:styles>`

func docxOf(t testing.TB, body string, extra map[string]string) []byte {
	files := map[string]string{
		"word/document.xml": `<?xml version="1.0"?><w:document ` + wNS + `><w:body>` + body + `</w:body></w:document>`,
		"word/styles.xml":   testStyles,
		"word/_rels/document.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rLink" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/" TargetMode="External"/>
<Relationship Id="rHdr" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/>
<Relationship Id="rHdrFirst" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header2.xml"/>
</Relationships>`,
	}
	for k, v := range extra {
		files[k] = v
	}
	return buildZip(t, files)
}

func run(t testing.TB, data []byte, opts engine.Options) ([]element.Element, error) {
	var out []element.Element
	ctx := contract.WithLogger(context.Background(), opts.Logger)
	err := Partition(ctx, bytes.NewReader(data), int64(len(data)), opts.Keys(), func(e element.Element) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

func p(inner string) string { return `<w:p>` + inner + `</w:p>` }
func r(text string) string  { return `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r>` }

func TestParagraphTypes(t *testing.T) {
	body := p(`<w:pPr><w:pStyle w:val="Heading2"/></w:pPr>`+r("Background")) +
		p(`<w:pPr><w:pStyle w:val="Title"/></w:pPr>`+r("The Title")) +
		p(`<w:pPr><w:numPr><w:ilvl w:val="2"/><w:numId w:val="3"/></w:numPr></w:pPr>`+r("third level item")) +
		p(r("• bulleted text here")) +
		p(`<w:pPr><w:pStyle w:val="Quote"/></w:pPr>`+r("To be or not to be, that is the question.")) +
		p(r("   ")) +
		p(r("jane@example.com")) +
		p(r("The standing trustee has a fiduciary responsibility to the bankruptcy estate.")) +
		p(r("X")) +
		`<w:sectPr/>`
	got, err := run(t, docxOf(t, body, nil), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		typ   element.Type
		text  string
		depth int
	}{
		{element.Title, "Background", 1},
		{element.Title, "The Title", 0},
		{element.ListItem, "third level item", 2},
		{element.ListItem, "bulleted text here", 0},
		{element.UncategorizedText, "To be or not to be, that is the question.", 0},
		{element.EmailAddress, "jane@example.com", 0},
		{element.NarrativeText, "The standing trustee has a fiduciary responsibility to the bankruptcy estate.", 0},
		{element.UncategorizedText, "X", 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d elements, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Type != w.typ || g.Text != w.text || g.Metadata.CategoryDepth == nil || *g.Metadata.CategoryDepth != w.depth {
			t.Errorf("#%d: got %s %q depth %v, want %s %q %d", i, g.Type, g.Text, g.Metadata.CategoryDepth, w.typ, w.text, w.depth)
		}
		if g.Metadata.PageNumber != nil {
			t.Errorf("#%d: page number without rendered page breaks", i)
		}
	}
}

func TestEmphasisAndLinks(t *testing.T) {
	body := p(`<w:r><w:rPr><w:b/></w:rPr><w:t>Bold</w:t></w:r>`+r(" and ")+
		`<w:r><w:rPr><w:i/><w:b w:val="0"/></w:rPr><w:t>italic</w:t></w:r>`+r(" see ")+
		`<w:hyperlink r:id="rLink"><w:r><w:t>the site</w:t></w:r></w:hyperlink>`+
		`<w:hyperlink w:anchor="_Toc1"><w:r><w:t> jump</w:t></w:r></w:hyperlink>`) + `<w:sectPr/>`
	got, err := run(t, docxOf(t, body, nil), engine.DefaultOptions())
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %+v", err, got)
	}
	m := got[0].Metadata
	if got[0].Text != "Bold and italic see the site jump" {
		t.Errorf("text %q", got[0].Text)
	}
	if strings.Join(m.EmphasizedTextContents, "|") != "Bold|italic" || strings.Join(m.EmphasizedTextTags, "|") != "b|i" {
		t.Errorf("emphasis %v %v", m.EmphasizedTextContents, m.EmphasizedTextTags)
	}
	if len(m.Links) != 1 || m.Links[0].URL != "https://example.com/" || m.Links[0].Text != "the site" || m.Links[0].StartIndex != 20 {
		t.Errorf("links %+v", m.Links)
	}
	if len(m.LinkURLs) != 1 || m.LinkTexts[0] != "the site" {
		t.Errorf("link lists %v %v", m.LinkTexts, m.LinkURLs)
	}
}

func TestMergedTable(t *testing.T) {
	tc := func(props, text string) string {
		return `<w:tc><w:tcPr>` + props + `</w:tcPr>` + p(r(text)) + `</w:tc>`
	}
	body := `<w:tbl>` +
		`<w:tr>` + tc(`<w:vMerge w:val="restart"/>`, "a") + tc(`<w:gridSpan w:val="2"/>`, "b") + `</w:tr>` +
		`<w:tr>` + tc(`<w:vMerge/>`, "") + tc("", "c &amp; <x>") + tc(`<w:vMerge w:val="restart"/>`, "d") + `</w:tr>` +
		`<w:tr>` + tc(`<w:gridSpan w:val="2"/>`, "e") + tc(`<w:vMerge/>`, "") + `</w:tr>` +
		`</w:tbl>` + `<w:sectPr/>`
	body = strings.ReplaceAll(body, "<x>", "&lt;x&gt;")
	got, err := run(t, docxOf(t, body, nil), engine.DefaultOptions())
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %+v", err, got)
	}
	if got[0].Type != element.Table || got[0].Text != "a b c & <x> d e" {
		t.Errorf("table text %q", got[0].Text)
	}
	want := `<table><tr><td>a</td><td>b</td><td>b</td></tr><tr><td>a</td><td>c &amp; &lt;x&gt;</td><td>d</td></tr><tr><td>e</td><td>e</td><td>d</td></tr></table>`
	if got[0].Metadata.TextAsHTML != want {
		t.Errorf("html\n got %s\nwant %s", got[0].Metadata.TextAsHTML, want)
	}
}

func TestSectionsHeadersPageBreaks(t *testing.T) {
	hdr := func(text string) string {
		return `<w:hdr ` + wNS + `>` + p(r(text)) + `</w:hdr>`
	}
	body := p(r("first page text that is long enough to be read.")) +
		p(`<w:r><w:t>end of page one</w:t><w:lastRenderedPageBreak/><w:t>PART II</w:t></w:r>`) +
		`<w:sectPr><w:headerReference w:type="default" r:id="rHdr"/><w:headerReference w:type="first" r:id="rHdrFirst"/><w:titlePg/></w:sectPr>`
	opts := engine.DefaultOptions()
	opts.IncludePageBreaks = true
	got, err := run(t, docxOf(t, body, map[string]string{"word/header1.xml": hdr("Running head"), "word/header2.xml": hdr("Cover head")}), opts)
	if err != nil {
		t.Fatal(err)
	}
	type exp struct {
		typ  element.Type
		text string
		page int // 0: none
		hft  string
	}
	want := []exp{
		{element.Header, "Running head", 0, "primary"},
		{element.Header, "Cover head", 0, "first_page"},
		{element.NarrativeText, "first page text that is long enough to be read.", 1, ""},
		{element.UncategorizedText, "end of page one", 1, ""},
		{element.PageBreak, "", 0, ""},
		{element.UncategorizedText, "PART II", 2, ""},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d elements: %+v", len(got), got)
	}
	for i, w := range want {
		g := got[i]
		page := 0
		if g.Metadata.PageNumber != nil {
			page = *g.Metadata.PageNumber
		}
		if g.Type != w.typ || g.Text != w.text || page != w.page || g.Metadata.HeaderFooterType != w.hft {
			t.Errorf("#%d: got %s %q page %d %q, want %+v", i, g.Type, g.Text, page, g.Metadata.HeaderFooterType, w)
		}
	}
}

func TestBadInput(t *testing.T) {
	valid := docxOf(t, p(r("hello world"))+`<w:sectPr/>`, nil)
	deep := strings.Repeat(`<w:tbl><w:tr><w:tc>`, 5000) + p(r("x")) + strings.Repeat(`</w:tc></w:tr></w:tbl>`, 5000)

	// A part whose directory entry declares a huge size: refused before inflating anything.
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	w, _ := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Store,
		CompressedSize64: 5, UncompressedSize64: 1 << 40})
	w.Write([]byte("<w:d>"))
	zw.Close()

	cases := []struct {
		name string
		data []byte
		msg  string
	}{
		{"not a zip", []byte("plain text pretending to be a docx"), "File is not a valid docx"},
		{"empty", nil, "File is not a valid docx"},
		{"truncated", valid[:len(valid)/2], "File is not a valid docx"},
		{"missing document part", buildZip(t, map[string]string{"word/styles.xml": testStyles}), "File is not a valid docx"},
		{"zip bomb", bomb.Bytes(), "exceeds"},
		{"deep nesting", docxOf(t, deep, nil), "too deep"},
		{"malformed xml", buildZip(t, map[string]string{"word/document.xml": `<w:document ` + wNS + `><w:body><w:p><w:r><w:t>x</w:r>`}), "docx:"},
		{"encrypted (CFB container)", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...), "File is not a valid docx"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := run(t, c.data, engine.DefaultOptions())
			var ee *engine.Error
			if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable {
				t.Fatalf("got %v (%T), want an unprocessable engine error", err, err)
			}
			if !strings.Contains(ee.Msg, c.msg) {
				t.Errorf("message %q does not contain %q", ee.Msg, c.msg)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	var body strings.Builder
	for range 5000 {
		body.WriteString(p(r("Some paragraph text that goes on.")))
	}
	data := docxOf(t, body.String()+`<w:sectPr/>`, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts := engine.DefaultOptions()
	err := Partition(ctx, bytes.NewReader(data), int64(len(data)), opts.Keys(), func(element.Element) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestContentControls(t *testing.T) {
	body := `<w:sdt><w:sdtPr/><w:sdtContent>` + p(r("Inside a content control")) +
		`<w:tbl><w:tr><w:tc>` + p(r("cell")) + `</w:tc></w:tr></w:tbl></w:sdtContent></w:sdt><w:sectPr/>`
	got, err := run(t, docxOf(t, body, nil), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !readContentControls {
		t.Skip("content controls disabled")
	}
	if len(got) != 2 || got[0].Text != "Inside a content control" || got[1].Type != element.Table || got[1].Text != "cell" {
		t.Fatalf("got %+v", got)
	}
}

// TestTextBoxes: text in DrawingML shapes and text boxes (alternate content with its VML
// fallback read once, grouped shapes, a bare VML text box, a box inside a table cell) follows
// the paragraph that anchors it.
func TestTextBoxes(t *testing.T) {
	const ns = ` xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" xmlns:wpg="http://schemas.microsoft.com/office/word/2010/wordprocessingGroup" xmlns:v="urn:schemas-microsoft-com:vml"`
	box := func(text string) string {
		return `<wps:wsp><wps:spPr/><wps:txbx><w:txbxContent><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:txbxContent></wps:txbx></wps:wsp>`
	}
	body := `<w:p><w:r><w:t>The report opens with a summary of findings.</w:t></w:r>` +
		`<w:r><mc:AlternateContent` + ns + `><mc:Choice Requires="wps"><w:drawing><wp:anchor><wp:docPr id="1" name="Text Box 1"/>` +
		`<a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape">` + box("Callout: revenue grew by a third this year.") +
		`</a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice>` +
		`<mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>Callout: revenue grew by a third this year.</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>` +
		`<w:p><w:r><w:drawing` + ns + `><wp:inline><a:graphic><a:graphicData><wpg:wgp>` + box("Step one of the process.") + box("Step two of the process.") +
		`</wpg:wgp></a:graphicData></a:graphic></wp:inline></w:drawing></w:r><w:r><w:t>A diagram shows the process.</w:t></w:r></w:p>` +
		`<w:p><w:r><w:pict` + ns + `><v:rect><v:textbox><w:txbxContent><w:p><w:r><w:t>Legacy VML box text.</w:t></w:r></w:p></w:txbxContent></v:textbox></v:rect></w:pict></w:r></w:p>` +
		`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell</w:t></w:r><w:r><w:drawing` + ns + `><wp:inline><a:graphic><a:graphicData>` + box("boxed in a cell") + `</a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p></w:tc></w:tr></w:tbl>` +
		`<w:p><w:r><mc:AlternateContent` + ns + `><mc:Choice Requires="wps"><w:drawing><wp:anchor><a:graphic><a:graphicData><wps:wsp><wps:spPr/></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice>` +
		`<mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>Only the fallback has text.</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>`
	out, err := run(t, docxOf(t, body, nil), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out {
		got = append(got, e.Text)
	}
	want := []string{
		"The report opens with a summary of findings.", "Callout: revenue grew by a third this year.",
		"A diagram shows the process.", "Step one of the process.", "Step two of the process.",
		"Legacy VML box text.", "cell boxed in a cell", "Only the fallback has text.",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestTextBoxesLibreOffice: the same frames written by LibreOffice as Word does (DrawingML
// shapes with a VML fallback copy; testdata/gen.sh in formats/odt) come out once each.
func TestTextBoxesLibreOffice(t *testing.T) {
	data, err := os.ReadFile("testdata/frames.docx")
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(t, data, engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out {
		got = append(got, e.Text)
	}
	want := []string{
		"The survey team photographed every bridge on the northern route.",
		"Figure 1: The old stone bridge at Millford after repairs.",
		"The inspection found cracks in two of the arches.",
		"Figure 2: Map of the bridges on the route.",
		"Repairs are scheduled for the spring.",
		"Note: the east arch is closed to traffic until June.",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestDamagedParts: a document whose styles stream is corrupt, whose header is broken markup
// and whose body is cut short keeps what can be read, and warns once.
func TestDamagedParts(t *testing.T) {
	body := `<w:p><w:r><w:t>The first paragraph survives the damage.</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t>So does the second one.</w:t></w:r></w:p>` +
		`<w:sectPr><w:headerReference w:type="default" r:id="rHdr"/></w:sectPr>`
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	files := map[string]string{
		"word/document.xml": `<?xml version="1.0"?><w:document ` + wNS + `><w:body>` + body + `<w:p><w:r><w:t>cut short he`,
		"word/styles.xml":   testStyles,
		"word/header1.xml":  `<w:hdr ` + wNS + `><w:p><w:r><w:t>Header</w:t></w:r></w:p><w:p></w:hdr>`,
		"word/_rels/document.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rHdr" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/></Relationships>`,
	}
	for _, name := range []string{"word/document.xml", "word/styles.xml", "word/header1.xml", "word/_rels/document.xml.rels"} {
		// Stored, not deflated: flipping bytes below leaves a stream whose checksum fails.
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, files[name])
	}
	zw.Close()
	data := buf.Bytes()
	i := bytes.Index(data, []byte(`w:styleId="Heading2"`))
	data[i+3] ^= 0x20 // corrupt the styles stream: its CRC no longer matches
	var log bytes.Buffer
	opts := engine.DefaultOptions()
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	out, err := run(t, data, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out {
		got = append(got, e.Text)
	}
	if want := "The first paragraph survives the damage.|So does the second one."; strings.Join(got, "|") != want {
		t.Errorf("got %q, want %s", got, want)
	}
	if n := strings.Count(log.String(), "damaged parts"); n != 1 || !strings.Contains(log.String(), "styles.xml") ||
		!strings.Contains(log.String(), "header1.xml") || !strings.Contains(log.String(), "document.xml") {
		t.Errorf("want one warning naming the three parts, got:\n%s", log.String())
	}
}

// TestSmartArt: the text of a SmartArt diagram (its data part's node points) follows the
// paragraph that holds the diagram; connection and presentation points add nothing.
func TestSmartArt(t *testing.T) {
	const dgm = `xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"`
	data := `<dgm:dataModel ` + dgm + `><dgm:ptLst>` +
		`<dgm:pt modelId="{0}" type="doc"><dgm:prSet/><dgm:t><a:bodyPr/><a:p><a:endParaRPr/></a:p></dgm:t></dgm:pt>` +
		`<dgm:pt modelId="{1}"><dgm:prSet phldrT="[Text]"/><dgm:t><a:bodyPr/><a:p><a:r><a:rPr lang="en-US"/><a:t>Plan the work</a:t></a:r></a:p></dgm:t></dgm:pt>` +
		`<dgm:pt modelId="{2}" type="parTrans"><dgm:t><a:p><a:r><a:t>not text</a:t></a:r></a:p></dgm:t></dgm:pt>` +
		`<dgm:pt modelId="{3}" type="node"><dgm:t><a:p><a:r><a:t>Build the </a:t></a:r><a:r><a:t>prototype</a:t></a:r></a:p><a:p><a:r><a:t>Test it</a:t></a:r></a:p></dgm:t></dgm:pt>` +
		`<dgm:pt modelId="{4}" type="pres"><dgm:prSet presName="x"/></dgm:pt>` +
		`</dgm:ptLst><dgm:cxnLst/></dgm:dataModel>`
	body := `<w:p><w:r><w:t>The project runs in three steps.</w:t></w:r><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">` +
		`<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">` +
		`<dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" r:dm="rDm" r:lo="rLo" r:qs="rQs" r:cs="rCs"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>` +
		`<w:p><w:r><w:t>After the diagram.</w:t></w:r></w:p>`
	files := map[string]string{
		"word/diagrams/data1.xml": data,
		"word/_rels/document.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rDm" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/diagramData" Target="diagrams/data1.xml"/></Relationships>`,
	}
	out, err := run(t, docxOf(t, body, files), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out {
		got = append(got, e.Text)
	}
	want := "The project runs in three steps.|Plan the work|Build the prototype|Test it|After the diagram."
	if strings.Join(got, "|") != want {
		t.Errorf("got  %q\nwant %s", got, want)
	}
}

// TestInlineWrappers: runs inside tracked insertions, simple fields, smart tags and inline
// content controls are part of the paragraph's text; deleted text is not.
func TestInlineWrappers(t *testing.T) {
	body := `<w:p><w:r><w:t xml:space="preserve">The contract starts on </w:t></w:r>` +
		`<w:fldSimple w:instr=" DATE "><w:r><w:t>1 March 2024</w:t></w:r></w:fldSimple>` +
		`<w:del w:id="1" w:author="A"><w:r><w:delText> and never ends</w:delText></w:r></w:del>` +
		`<w:ins w:id="2" w:author="B"><w:r><w:t xml:space="preserve"> and runs for </w:t></w:r></w:ins>` +
		`<w:sdt><w:sdtPr><w:alias w:val="Term"/></w:sdtPr><w:sdtContent><w:r><w:t>two years</w:t></w:r></w:sdtContent></w:sdt>` +
		`<w:smartTag w:uri="urn:x" w:element="place"><w:r><w:t xml:space="preserve"> in Oslo</w:t></w:r></w:smartTag>` +
		`<w:r><w:t>.</w:t></w:r></w:p>`
	out, err := run(t, docxOf(t, body, nil), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Text != "The contract starts on 1 March 2024 and runs for two years in Oslo." {
		t.Errorf("got %+v", out)
	}
}

func TestRuby(t *testing.T) {
	// 東京 with furigana とうきょう over it: the line reads 東京へ行きます。, the guide left out.
	body := `<w:p><w:r><w:ruby><w:rubyPr><w:rubyAlign w:val="distributeSpace"/></w:rubyPr>` +
		`<w:rt><w:r><w:t>とうきょう</w:t></w:r></w:rt>` +
		`<w:rubyBase><w:r><w:t>東京</w:t></w:r></w:rubyBase></w:ruby></w:r>` +
		r(`へ行きます。`) + `</w:p>`
	out, err := run(t, docxOf(t, body, nil), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Text != "東京へ行きます。" {
		t.Errorf("got %+v", out)
	}
}

// Imported chunks (w:altChunk) are read in place: a web archive as html-docx-js writes its
// whole document, and an HTML chunk inside a table cell. python-docx skips them, so a
// generated "export to Word" document read empty.
func TestAltChunk(t *testing.T) {
	mht := "MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"text/html\"; boundary=\"--b\"\r\n\r\n" +
		"----b\r\nContent-Location: file:///C:/fake/document.html\r\nContent-Transfer-Encoding: quoted-printable\r\nContent-Type: text/html; charset=\"utf-8\"\r\n\r\n" +
		"<!DOCTYPE html><html><body><h1>Exported report</h1><p>Generated in the browser and saved as =\r\nWord.</p><ul><li>First point</li></ul></body></html>\r\n----b--\r\n"
	body := p(r("Cover line.")) + `<w:altChunk r:id="rChunk1"/>` +
		`<w:tbl><w:tr><w:tc><w:altChunk r:id="rChunk2"/><w:p/></w:tc><w:tc>` + p(r("cell two")) + `</w:tc></w:tr></w:tbl>` +
		`<w:altChunk r:id="rMissing"/>` + p(r("Closing line."))
	rels := `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rChunk1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="afchunk.mht"/>
<Relationship Id="rChunk2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="chunk2.html"/>
</Relationships>`
	data := docxOf(t, body, map[string]string{
		"word/_rels/document.xml.rels": rels,
		"word/afchunk.mht":             mht,
		"word/chunk2.html":             `<html><body><p>cell one</p></body></html>`,
	})
	out, err := engine.Partition(context.Background(), engine.NewDocument("export.docx", data), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out {
		got = append(got, string(e.Type)+":"+e.Text)
		if e.Metadata.Filename != "export.docx" || e.Metadata.Filetype != MIME {
			t.Errorf("%q: filename %q, filetype %q", e.Text, e.Metadata.Filename, e.Metadata.Filetype)
		}
	}
	want := "NarrativeText:Cover line. | Title:Exported report | NarrativeText:Generated in the browser and saved as Word. | " +
		"ListItem:First point | Table:cell one cell two | NarrativeText:Closing line."
	if strings.Join(got, " | ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, " | "), want)
	}
	if h := out[4].Metadata.TextAsHTML; h != "<table><tr><td>cell one</td><td>cell two</td></tr></table>" {
		t.Errorf("table html %s", h)
	}
}

// A chart gives its title and its cached data (the embedded workbook's figures) after the
// paragraph that anchors it; python-docx reads none of it.
func TestChart(t *testing.T) {
	const c = `xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"`
	body := p(r("Sales figures below.")) +
		`<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">` +
		`<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart ` + c + ` r:id="rChart"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>` +
		p(r("After the chart."))
	chart := `<c:chartSpace ` + c + `><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Units sold</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:pieChart><c:ser>` +
		`<c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>2025</c:v></c:pt></c:strCache></c:strRef></c:tx>` +
		`<c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>Bolts</c:v></c:pt><c:pt idx="1"><c:v>Nuts</c:v></c:pt></c:strCache></c:strRef></c:cat>` +
		`<c:val><c:numRef><c:numCache><c:pt idx="0"><c:v>120</c:v></c:pt><c:pt idx="1"><c:v>80</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser></c:pieChart></c:plotArea></c:chart></c:chartSpace>`
	rels := `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rChart" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="charts/chart1.xml"/>
</Relationships>`
	out, err := run(t, docxOf(t, body, map[string]string{"word/_rels/document.xml.rels": rels, "word/charts/chart1.xml": chart}), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out {
		got = append(got, string(e.Type)+":"+e.Text)
	}
	want := "UncategorizedText:Sales figures below. | NarrativeText:Units sold | Table:2025 Bolts 120 Nuts 80 | UncategorizedText:After the chart."
	if strings.Join(got, " | ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, " | "), want)
	}
	if h := out[2].Metadata.TextAsHTML; h != "<table><tr><td/><td>2025</td></tr><tr><td>Bolts</td><td>120</td></tr><tr><td>Nuts</td><td>80</td></tr></table>" {
		t.Errorf("html %s", h)
	}
}

// Symbols inserted from a symbol font (w:sym) are their characters: Symbol's Greek and maths,
// Wingdings' boxes and ticks, a plain code as itself; other private-use codes stay out.
func TestSymbols(t *testing.T) {
	sym := func(font, code string) string {
		return `<w:r><w:sym w:font="` + font + `" w:char="` + code + `"/></w:r>`
	}
	body := p(r("Dose 5 ")+sym("Symbol", "F06D")+r("g at 37 ")+sym("Symbol", "F0B0")+r("C ")+sym("Symbol", "F0B1")+r(" 0.5")) +
		p(sym("Wingdings", "F0FE")+r(" Approved ")+sym("Wingdings", "F0A8")+r(" Rejected")) +
		p(r("Arrow ")+sym("Arial", "2192")+r(" and ")+sym("Webdings", "F061")+r("icon"))
	out, err := run(t, docxOf(t, body, nil), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out {
		got = append(got, e.Text)
	}
	if want := "Dose 5 μg at 37 °C ± 0.5|☑ Approved ◻ Rejected|Arrow → and icon"; strings.Join(got, "|") != want {
		t.Errorf("got %q, want %s", got, want)
	}
}
