package pptx

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

const ns = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

const relNS = `xmlns="http://schemas.openxmlformats.org/package/2006/relationships"`
const relBase = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"

func zipOf(t testing.TB, files map[string]string) []byte {
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

// deck builds a presentation whose slides have the given spTree contents (and notes).
func deck(t testing.TB, slides []string, notes []string) []byte {
	files := map[string]string{
		"_rels/.rels": `<Relationships ` + relNS + `><Relationship Id="rId1" Type="` + relBase + `officeDocument" Target="ppt/presentation.xml"/></Relationships>`,
		"ppt/slideLayouts/slideLayout1.xml": `<p:sldLayout ` + ns + `><p:cSld><p:spTree>` +
			`<p:sp><p:nvSpPr><p:cNvPr id="2" name="t"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="100" y="50"/></a:xfrm></p:spPr></p:sp>` +
			`</p:spTree></p:cSld></p:sldLayout>`,
	}
	var ids, rels strings.Builder
	for i, body := range slides {
		n := i + 1
		fmt.Fprintf(&ids, `<p:sldId id="%d" r:id="rId%d"/>`, 255+n, n)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="%sslide" Target="slides/slide%d.xml"/>`, n, relBase, n)
		files[fmt.Sprintf("ppt/slides/slide%d.xml", n)] = `<p:sld ` + ns + `><p:cSld><p:spTree>` + body + `</p:spTree></p:cSld></p:sld>`
		srels := `<Relationship Id="rL" Type="` + relBase + `slideLayout" Target="../slideLayouts/slideLayout1.xml"/>`
		if i < len(notes) && notes[i] != "" {
			srels += fmt.Sprintf(`<Relationship Id="rN" Type="%snotesSlide" Target="../notesSlides/notesSlide%d.xml"/>`, relBase, n)
			files[fmt.Sprintf("ppt/notesSlides/notesSlide%d.xml", n)] = `<p:notes ` + ns + `><p:cSld><p:spTree>` +
				`<p:sp><p:nvSpPr><p:cNvPr id="2" name="img"/><p:cNvSpPr/><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr></p:sp>` +
				`<p:sp><p:nvSpPr><p:cNvPr id="3" name="n"/><p:cNvSpPr/><p:nvPr><p:ph type="body" idx="1"/></p:nvPr></p:nvSpPr><p:txBody>` +
				para(notes[i], false, 0) + `</p:txBody></p:sp></p:spTree></p:cSld></p:notes>`
		}
		files[fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", n)] = `<Relationships ` + relNS + `>` + srels + `</Relationships>`
	}
	files["ppt/presentation.xml"] = `<p:presentation ` + ns + `><p:sldIdLst>` + ids.String() + `</p:sldIdLst></p:presentation>`
	files["ppt/_rels/presentation.xml.rels"] = `<Relationships ` + relNS + `>` + rels.String() + `</Relationships>`
	return zipOf(t, files)
}

func para(text string, bullet bool, lvl int) string {
	ppr := fmt.Sprintf(`<a:pPr lvl="%d">`, lvl)
	if bullet {
		ppr += `<a:buChar char="•"/>`
	}
	ppr += `</a:pPr>`
	return `<a:p>` + ppr + `<a:r><a:t>` + text + `</a:t></a:r></a:p>`
}

func sp(ph string, x, y int, paras ...string) string {
	nv := `<p:nvPr/>`
	if ph != "" {
		nv = `<p:nvPr>` + ph + `</p:nvPr>`
	}
	xfrm := ""
	if x >= -1e9 {
		xfrm = fmt.Sprintf(`<a:xfrm><a:off x="%d" y="%d"/><a:ext cx="10" cy="10"/></a:xfrm>`, x, y)
	}
	return `<p:sp><p:nvSpPr><p:cNvPr id="9" name="s"/><p:cNvSpPr/>` + nv + `</p:nvSpPr><p:spPr>` + xfrm +
		`</p:spPr><p:txBody><a:bodyPr/>` + strings.Join(paras, "") + `</p:txBody></p:sp>`
}

const noPos = -2e9

func TestSlides(t *testing.T) {
	table := `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="5" name="tbl"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>` +
		`<p:xfrm><a:off x="0" y="900"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl>` +
		`<a:tr><a:tc><a:txBody>` + para("h1", false, 0) + `</a:txBody></a:tc><a:tc><a:txBody>` + para("h&amp;2", false, 0) + para("line", false, 0) + `</a:txBody></a:tc></a:tr>` +
		`<a:tr><a:tc><a:txBody>` + para("1", false, 0) + `</a:txBody></a:tc><a:tc><a:txBody><a:p/></a:txBody></a:tc></a:tr>` +
		`</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
	group := `<p:grpSp><p:nvGrpSpPr><p:cNvPr id="7" name="g"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>` +
		sp("", 0, 500, para("12345", false, 0)) + `</p:grpSp>`
	slide1 := sp("", 0, 300, para("First point", true, 0), para("Sub point", true, 1), para("Quarterly Results", false, 1)) +
		sp(`<p:ph type="title"/>`, noPos, 0, para("Slide One", false, 0)) + // inherits y=50 from the layout
		sp("", -5, -5, para("Off the slide", false, 0)) +
		table + group +
		sp("", 0, 700, para("contact@example.com", false, 0))
	slide2 := sp(`<p:ph type="title"/>`, 0, 0, para("Slide Two", false, 0))
	data := deck(t, []string{slide1, slide2}, []string{"Speaker notes here.", ""})

	opts := engine.DefaultOptions()
	opts.IncludePageBreaks = true
	got, err := partitionBytes(t, "deck.pptx", data, opts)
	if err != nil {
		t.Fatal(err)
	}
	type exp struct {
		typ   element.Type
		text  string
		page  int
		depth int // -1: none
	}
	want := []exp{
		{element.NarrativeText, "Speaker notes here.", 1, 0},
		{element.Title, "Slide One", 1, 0},
		{element.ListItem, "First point", 1, 0},
		{element.ListItem, "Sub point", 1, 1},
		{element.Title, "Quarterly Results", 1, 2},
		{element.UncategorizedText, "12345", 1, 0},
		{element.EmailAddress, "contact@example.com", 0, -1},
		{element.Table, "h1 h&2 line 1", 1, -1},
		{element.PageBreak, "", 1, -1},
		{element.Title, "Slide Two", 2, 0},
	}
	if len(got) != len(want) {
		for _, g := range got {
			t.Logf("%s %q", g.Type, g.Text)
		}
		t.Fatalf("got %d elements, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		page, depth := 0, -1
		if g.Metadata.PageNumber != nil {
			page = *g.Metadata.PageNumber
		}
		if g.Metadata.CategoryDepth != nil {
			depth = *g.Metadata.CategoryDepth
		}
		if g.Type != w.typ || g.Text != w.text || page != w.page || depth != w.depth {
			t.Errorf("#%d: got %s %q page %d depth %d, want %+v", i, g.Type, g.Text, page, depth, w)
		}
	}
	if h := got[7].Metadata.TextAsHTML; h != `<table><tr><td>h1</td><td>h&amp;2<br/>line</td></tr><tr><td>1</td><td/></tr></table>` {
		t.Errorf("table html %s", h)
	}

	// Without notes; a starting page number of 2 puts a break before the first slide too.
	opts.Extra = contract.Options{KeyIncludeSlideNotes: {"false"}}
	opts.StartingPageNumber = 2
	got, err = partitionBytes(t, "deck.pptx", data, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Type != element.PageBreak || *got[0].Metadata.PageNumber != 0 || got[1].Text != "Slide One" {
		t.Errorf("starting page 2: got %s %q first", got[0].Type, got[0].Text)
	}
}

func TestBadInput(t *testing.T) {
	deep := strings.Repeat(`<p:grpSp><p:nvGrpSpPr/>`, 2000) + strings.Repeat(`</p:grpSp>`, 2000)
	valid := deck(t, []string{sp("", 0, 0, para("x", false, 0))}, nil)
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	w, _ := zw.Create("ppt/presentation.xml")
	w.Write([]byte(`<p:presentation ` + ns + `><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`))
	w, _ = zw.Create("ppt/_rels/presentation.xml.rels")
	w.Write([]byte(`<Relationships ` + relNS + `><Relationship Id="rId1" Type="` + relBase + `slide" Target="slides/slide1.xml"/></Relationships>`))
	w, _ = zw.CreateRaw(&zip.FileHeader{Name: "ppt/slides/slide1.xml", Method: zip.Store, CompressedSize64: 4, UncompressedSize64: 1 << 40})
	w.Write([]byte("<p:s"))
	zw.Close()
	cases := []struct {
		name string
		data []byte
		msg  string
	}{
		{"not a zip", []byte("nope"), "File is not a valid pptx"},
		{"truncated", valid[:len(valid)/3], "File is not a valid pptx"},
		{"missing presentation", zipOf(t, map[string]string{"a.txt": "x"}), "File is not a valid pptx"},
		{"zip bomb", bomb.Bytes(), "exceeds"},
		{"deep groups", deck(t, []string{deep}, nil), "too deep"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := partitionBytes(t, "x.pptx", c.data, engine.DefaultOptions())
			var ee *engine.Error
			if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable || !strings.Contains(ee.Msg, c.msg) {
				t.Fatalf("got %v, want unprocessable error containing %q", err, c.msg)
			}
		})
	}
}

// TestAlternateContentShapes: shapes wrapped in mc:AlternateContent (in the tree and inside
// a group) are read from one branch only — the choice, or the fallback when the choice holds
// no shape — and text boxes in nested groups are kept.
func TestAlternateContentShapes(t *testing.T) {
	const mc = ` xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:p14="http://schemas.microsoft.com/office/powerpoint/2010/main"`
	alt := func(choice, fallback string) string {
		return `<mc:AlternateContent` + mc + `><mc:Choice Requires="p14">` + choice + `</mc:Choice><mc:Fallback>` + fallback + `</mc:Fallback></mc:AlternateContent>`
	}
	grp := func(inner string) string {
		return `<p:grpSp><p:nvGrpSpPr><p:cNvPr id="7" name="g"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>` + inner + `</p:grpSp>`
	}
	slide := alt(sp("", 0, 100, para("Shape written for newer readers.", false, 0)), sp("", 0, 100, para("Shape written for newer readers.", false, 0))) +
		grp(sp("", 0, 200, para("Grouped box one.", false, 0))+grp(alt(sp("", 0, 300, para("Nested box in a group.", false, 0)), ""))) +
		alt(`<p:contentPart r:id="ink"/>`, sp("", 0, 400, para("Fallback only shape.", false, 0)))
	got, err := partitionBytes(t, "alt.pptx", deck(t, []string{slide}, nil), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range got {
		texts = append(texts, e.Text)
	}
	want := "Shape written for newer readers.|Grouped box one.|Nested box in a group.|Fallback only shape."
	if strings.Join(texts, "|") != want {
		t.Errorf("got  %q\nwant %s", texts, want)
	}
}

// TestDamagedSlide: a slide whose part is broken markup is skipped with one warning; the other
// slides are kept. A deck whose every slide is damaged fails with why.
func TestDamagedSlide(t *testing.T) {
	good := sp("", 0, 100, para("Revenue grew in every region.", false, 0))
	broken := sp("", 0, 100, para("Lost slide", false, 0)) + `<p:sp><p:txBody><a:p><a:r><a:t>cut`
	var log bytes.Buffer
	opts := engine.DefaultOptions()
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	got, err := partitionBytes(t, "d.pptx", deck(t, []string{good, broken, good}, nil), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Text != "Revenue grew in every region." || *got[1].Metadata.PageNumber != 3 {
		t.Errorf("got %+v", got)
	}
	if n := strings.Count(log.String(), "damaged parts"); n != 1 || !strings.Contains(log.String(), "slide2.xml") {
		t.Errorf("want one warning naming slide2.xml:\n%s", log.String())
	}
	if _, err := partitionBytes(t, "d.pptx", deck(t, []string{broken}, nil), engine.DefaultOptions()); err == nil {
		t.Error("a deck with nothing readable succeeded")
	}
}

// TestSmartArt: a SmartArt frame's text (its data part's node points) is read in its place on
// the slide.
func TestSmartArt(t *testing.T) {
	const dgm = `xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram"`
	frame := `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Diagram"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>` +
		`<p:xfrm><a:off x="0" y="500"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">` +
		`<dgm:relIds ` + dgm + ` r:dm="rDm" r:lo="rLo" r:qs="rQs" r:cs="rCs"/></a:graphicData></a:graphic></p:graphicFrame>`
	data := deck(t, []string{sp("", 0, 100, para("Our process", false, 0)) + frame}, nil)
	// Add the diagram part and its relationship to slide 1.
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
	}
	files["ppt/diagrams/data1.xml"] = `<dgm:dataModel ` + dgm + ` ` + ns + `><dgm:ptLst>` +
		`<dgm:pt modelId="0" type="doc"><dgm:t><a:p><a:endParaRPr/></a:p></dgm:t></dgm:pt>` +
		`<dgm:pt modelId="1"><dgm:t><a:p><a:r><a:t>Collect requirements</a:t></a:r></a:p></dgm:t></dgm:pt>` +
		`<dgm:pt modelId="2" type="sibTrans"><dgm:t><a:p><a:r><a:t>x</a:t></a:r></a:p></dgm:t></dgm:pt>` +
		`<dgm:pt modelId="3"><dgm:t><a:p><a:r><a:t>Ship the release</a:t></a:r></a:p></dgm:t></dgm:pt>` +
		`</dgm:ptLst></dgm:dataModel>`
	rels := files["ppt/slides/_rels/slide1.xml.rels"]
	files["ppt/slides/_rels/slide1.xml.rels"] = strings.Replace(rels, "</Relationships>",
		`<Relationship Id="rDm" Type="`+relBase+`diagramData" Target="../diagrams/data1.xml"/></Relationships>`, 1)
	got, err := partitionBytes(t, "smart.pptx", zipOf(t, files), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range got {
		texts = append(texts, e.Text)
	}
	if want := "Our process|Collect requirements|Ship the release"; strings.Join(texts, "|") != want {
		t.Errorf("got %q, want %s", texts, want)
	}
}

// A chart frame gives its title and axis titles, then its cached data as a table; python-pptx
// reads none of it, so a slide's figures were lost.
func TestChart(t *testing.T) {
	const c = `xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"`
	frame := `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Chart 3"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>` +
		`<p:xfrm><a:off x="0" y="500"/><a:ext cx="10" cy="10"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">` +
		`<c:chart ` + c + ` r:id="rChart"/></a:graphicData></a:graphic></p:graphicFrame>`
	ser := func(i int, name string, vals ...string) string {
		s := fmt.Sprintf(`<c:ser><c:idx val="%d"/><c:tx><c:strRef><c:f>Sheet1!$B$1</c:f><c:strCache><c:ptCount val="1"/><c:pt idx="0"><c:v>%s</c:v></c:pt></c:strCache></c:strRef></c:tx>`, i, name) +
			`<c:cat><c:strRef><c:f>Sheet1!$A$2:$A$3</c:f><c:strCache><c:ptCount val="2"/><c:pt idx="0"><c:v>Q1</c:v></c:pt><c:pt idx="1"><c:v>Q2</c:v></c:pt></c:strCache></c:strRef></c:cat>` +
			`<c:val><c:numRef><c:f>Sheet1!$B$2:$B$3</c:f><c:numCache><c:formatCode>General</c:formatCode><c:ptCount val="2"/>`
		for k, v := range vals {
			s += fmt.Sprintf(`<c:pt idx="%d"><c:v>%s</c:v></c:pt>`, k, v)
		}
		return s + `</c:numCache></c:numRef></c:val></c:ser>`
	}
	chart := `<c:chartSpace ` + c + ` ` + ns + `><c:chart><c:title><c:tx><c:rich><a:bodyPr/><a:p><a:r><a:t>Revenue by quarter</a:t></a:r></a:p></c:rich></c:tx></c:title>` +
		`<c:plotArea><c:barChart><c:barDir val="col"/>` + ser(0, "North", "4.3", "2.5") + ser(1, "South", "2.4", "4.4") + `</c:barChart>` +
		`<c:catAx><c:axId val="1"/><c:title><c:tx><c:rich><a:bodyPr/><a:p><a:r><a:t>Quarter</a:t></a:r></a:p></c:rich></c:tx></c:title></c:catAx>` +
		`</c:plotArea></c:chart></c:chartSpace>`
	data := deck(t, []string{sp("", 0, 100, para("Results", false, 0)) + frame}, nil)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
	}
	files["ppt/charts/chart1.xml"] = chart
	rels := files["ppt/slides/_rels/slide1.xml.rels"]
	files["ppt/slides/_rels/slide1.xml.rels"] = strings.Replace(rels, "</Relationships>",
		`<Relationship Id="rChart" Type="`+relBase+`chart" Target="../charts/chart1.xml"/></Relationships>`, 1)
	got, err := partitionBytes(t, "chart.pptx", zipOf(t, files), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range got {
		texts = append(texts, string(e.Type)+":"+e.Text)
		if e.Metadata.PageNumber == nil || *e.Metadata.PageNumber != 1 {
			t.Errorf("%q: page %v", e.Text, e.Metadata.PageNumber)
		}
	}
	if want := "Title:Results|Title:Revenue by quarter|Title:Quarter|Table:North South Q1 4.3 2.4 Q2 2.5 4.4"; strings.Join(texts, "|") != want {
		t.Fatalf("got %q, want %s", texts, want)
	}
	if h := got[3].Metadata.TextAsHTML; h != `<table><tr><td/><td>North</td><td>South</td></tr><tr><td>Q1</td><td>4.3</td><td>2.4</td></tr><tr><td>Q2</td><td>2.5</td><td>4.4</td></tr></table>` {
		t.Errorf("html %s", h)
	}
}
