package odt

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

const odtNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"`

func odtOf(t testing.TB, body string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	files := [][2]string{
		{"mimetype", MIME},
		{"content.xml", `<office:document-content ` + odtNS + `><office:automatic-styles>` +
			`<style:style style:name="T1" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style>` +
			`<style:style style:name="T2" style:family="text" style:parent-style-name="T1"><style:text-properties fo:font-style="italic"/></style:style>` +
			`</office:automatic-styles><office:body><office:text>` + body + `</office:text></office:body></office:document-content>`},
	}
	for _, f := range files {
		w, err := zw.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, f[1])
	}
	zw.Close()
	return buf.Bytes()
}

func TestStructure(t *testing.T) {
	body := `<text:h text:outline-level="2">Methods  used</text:h>` +
		`<text:p>  The <text:span text:style-name="T1">committee</text:span> <text:span text:style-name="T2">approved</text:span> the budget, see <text:a xlink:href="https://example.com/">the site</text:a>.<text:note><text:note-body><text:p>footnote</text:p></text:note-body></text:note></text:p>` +
		`<text:list><text:list-item><text:p>First</text:p><text:list><text:list-item><text:p>Nested</text:p></text:list-item></text:list></text:list-item><text:list-item/></text:list>` +
		`<table:table><table:table-row><table:table-cell table:number-columns-spanned="2"><text:p>wide</text:p></table:table-cell><table:covered-table-cell/></table:table-row>` +
		`<table:table-row><table:table-cell><text:p>a</text:p></table:table-cell><table:table-cell><text:p>b</text:p></table:table-cell></table:table-row></table:table>`
	got, err := partitionBytes(t, "x.odt", odtOf(t, body))
	if err != nil {
		t.Fatal(err)
	}
	type exp struct {
		typ   element.Type
		text  string
		depth int
	}
	want := []exp{
		{element.Title, "Methods used", 1},
		{element.NarrativeText, "The committee approved the budget, see the site.", 0},
		{element.ListItem, "First", 0},
		{element.ListItem, "Nested", 1},
		{element.Table, "wide a b", -1},
		{element.UncategorizedText, "footnote", 0}, // notes follow the body
	}
	if len(got) != len(want) {
		for _, g := range got {
			t.Logf("%s %q", g.Type, g.Text)
		}
		t.Fatalf("got %d elements, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		d := -1
		if g.Metadata.CategoryDepth != nil {
			d = *g.Metadata.CategoryDepth
		}
		if g.Type != w.typ || g.Text != w.text || d != w.depth {
			t.Errorf("#%d: got %s %q %d, want %+v", i, g.Type, g.Text, d, w)
		}
	}
	m := got[1].Metadata
	if strings.Join(m.EmphasizedTextContents, "|") != "committee|approved|approved" || strings.Join(m.EmphasizedTextTags, "|") != "b|b|i" {
		t.Errorf("emphasis %v %v", m.EmphasizedTextContents, m.EmphasizedTextTags)
	}
	if len(m.Links) != 1 || m.Links[0].URL != "https://example.com/" || m.Links[0].StartIndex != 39 {
		t.Errorf("links %+v", m.Links)
	}
	if h := got[4].Metadata.TextAsHTML; h != `<table><tr><td>wide</td><td>wide</td></tr><tr><td>a</td><td>b</td></tr></table>` {
		t.Errorf("html %s", h)
	}
}

func TestBadInput(t *testing.T) {
	deep := strings.Repeat(`<text:list><text:list-item>`, 3000) + strings.Repeat(`</text:list-item></text:list>`, 3000)
	cases := []struct {
		name string
		data []byte
		msg  string
	}{
		{"not a zip", []byte("hello"), "File is not a valid odt"},
		{"no content", func() []byte {
			var b bytes.Buffer
			zw := zip.NewWriter(&b)
			w, _ := zw.Create("mimetype")
			io.WriteString(w, MIME)
			zw.Close()
			return b.Bytes()
		}(), "File is not a valid odt"},
		{"deep nesting", odtOf(t, deep), "too deep"},
		{"malformed", odtOf(t, `<text:p>unclosed`), "odt:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := partitionBytes(t, "x.odt", c.data)
			var ee *engine.Error
			if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable || !strings.Contains(ee.Msg, c.msg) {
				t.Fatalf("got %v, want unprocessable error containing %q", err, c.msg)
			}
		})
	}
}

// TestFrames: captions of images (draw:frame > draw:text-box), of linked images (draw:a) and
// text boxes follow their anchor paragraph; the fixture is LibreOffice's (testdata/gen.sh).
func TestFrames(t *testing.T) {
	data, err := os.ReadFile("testdata/frames.odt")
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.DefaultOptions()
	var got []string
	err = Partition(context.Background(), bytes.NewReader(data), int64(len(data)), opts.Keys(), func(e element.Element) error {
		got = append(got, e.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
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

func TestRuby(t *testing.T) {
	body := `<text:p><text:ruby><text:ruby-base>東京</text:ruby-base><text:ruby-text>とうきょう</text:ruby-text></text:ruby>へ行きます。</text:p>`
	got, err := partitionBytes(t, "x.odt", odtOf(t, body))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Text != "東京へ行きます。" {
		t.Errorf("got %+v", got)
	}
}

// An embedded chart (draw:object linking "./Object 1", as LibreOffice writes it) gives its
// titles and its local data table after the paragraph that anchors it; a formula object and a
// link outside the package give nothing.
func TestChartObject(t *testing.T) {
	const chartNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:chart="urn:oasis:names:tc:opendocument:xmlns:chart:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"`
	const drawNS = `xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"`
	frame := func(href string) string {
		return `<draw:frame ` + drawNS + `><draw:object xlink:href="` + href + `"/><draw:image xlink:href="./ObjectReplacements/x"/></draw:frame>`
	}
	body := `<text:p>Sales figures below.` + frame("./Object 1") + frame("./Object 2") + frame("../outside") + `</text:p><text:p>After the chart.</text:p>`
	chart := `<office:document-content ` + chartNS + `><office:body><office:chart><chart:chart chart:class="chart:bar">` +
		`<chart:title><text:p>Units sold</text:p></chart:title><chart:plot-area><chart:axis chart:dimension="x"><chart:title><text:p>Month</text:p></chart:title></chart:axis>` +
		`<chart:series chart:values-cell-range-address="local-table.$B$2:.$B$3"/></chart:plot-area>` +
		`<table:table table:name="local-table"><table:table-header-rows><table:table-row><table:table-cell><text:p/></table:table-cell><table:table-cell><text:p>Bolts</text:p></table:table-cell></table:table-row></table:table-header-rows>` +
		`<table:table-rows><table:table-row><table:table-cell><text:p>May</text:p></table:table-cell><table:table-cell><text:p>120</text:p></table:table-cell></table:table-row></table:table-rows></table:table>` +
		`</chart:chart></office:chart></office:body></office:document-content>`
	formula := `<office:document-content ` + chartNS + `><office:body><office:formula><math xmlns="http://www.w3.org/1998/Math/MathML"><mi>x</mi></math></office:formula></office:body></office:document-content>`
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range [][2]string{
		{"mimetype", MIME},
		{"content.xml", `<office:document-content ` + odtNS + `><office:body><office:text>` + body + `</office:text></office:body></office:document-content>`},
		{"Object 1/content.xml", chart},
		{"Object 2/content.xml", formula},
	} {
		w, err := zw.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, f[1])
	}
	zw.Close()
	got, err := partitionBytes(t, "chart.odt", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range got {
		texts = append(texts, string(e.Type)+":"+e.Text)
	}
	if want := "UncategorizedText:Sales figures below.|NarrativeText:Units sold|UncategorizedText:Month|Table:Bolts May 120|UncategorizedText:After the chart."; strings.Join(texts, "|") != want {
		t.Fatalf("got %q\nwant %s", texts, want)
	}
	if h := got[3].Metadata.TextAsHTML; h != "<table><tr><td/><td>Bolts</td></tr><tr><td>May</td><td>120</td></tr></table>" {
		t.Errorf("html %s", h)
	}
}
