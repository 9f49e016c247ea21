package xlsx

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

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

const ssNS = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

// book builds a workbook with one sheet per (name, sheetData XML) pair.
func book(t testing.TB, sheets [][2]string, sharedStrings []string) []byte {
	return styledBook(t, `<styleSheet `+ssNS+`><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd"/></numFmts>`+
		`<cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/></cellXfs></styleSheet>`, sheets, sharedStrings)
}

// styledBook is book with its own styles part.
func styledBook(t testing.TB, styles string, sheets [][2]string, sharedStrings []string) []byte {
	files := map[string]string{"xl/styles.xml": styles}
	var sh, rels strings.Builder
	for i, s := range sheets {
		fmt.Fprintf(&sh, `<sheet name="%s" sheetId="%d" r:id="rId%d"/>`, s[0], i+1, i+1)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet%d.xml"/>`, i+1, i+1)
		files[fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1)] = `<worksheet ` + ssNS + `><sheetData>` + s[1] + `</sheetData></worksheet>`
	}
	rels.WriteString(`<Relationship Id="rS" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>`)
	files["xl/workbook.xml"] = `<workbook ` + ssNS + `><sheets>` + sh.String() + `</sheets></workbook>`
	files["xl/_rels/workbook.xml.rels"] = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels.String() + `</Relationships>`
	var ss strings.Builder
	for _, s := range sharedStrings {
		ss.WriteString(`<si><t>` + s + `</t></si>`)
	}
	files["xl/sharedStrings.xml"] = `<sst ` + ssNS + `>` + ss.String() + `</sst>`
	return zipOf(t, files)
}

func c(ref, typ, v string) string {
	switch typ {
	case "s", "b", "e", "str":
		return fmt.Sprintf(`<c r="%s" t="%s"><v>%s</v></c>`, ref, typ, v)
	case "inline":
		return fmt.Sprintf(`<c r="%s" t="inlineStr"><is><t>%s</t></is></c>`, ref, v)
	case "date":
		return fmt.Sprintf(`<c r="%s" s="1"><v>%s</v></c>`, ref, v)
	}
	return fmt.Sprintf(`<c r="%s"><v>%s</v></c>`, ref, v)
}

func row(n int, cells ...string) string {
	return fmt.Sprintf(`<row r="%d">%s</row>`, n, strings.Join(cells, ""))
}

func TestFloatFormatting(t *testing.T) {
	cases := []struct {
		in   []float64
		want string
	}{
		{[]float64{13, 1.5}, "13.0|1.5"},
		{[]float64{1.25, 2.5}, "1.25|2.50"},
		{[]float64{13}, "13.0"},
		{[]float64{0.1234567}, "0.123457"},
		{[]float64{12345678.5, 1}, "12345678.5|1.0"},
		{[]float64{123456789.123, 1}, "1.234568e+08|1.000000e+00"},
		{[]float64{1e-7, 1}, "1.000000e-07|1.000000e+00"},
		{[]float64{-2, 3.75}, "-2.00|3.75"},
	}
	for _, c := range cases {
		if got := strings.Join(formatFloatColumn(c.in), "|"); got != c.want {
			t.Errorf("%v: got %s want %s", c.in, got, c.want)
		}
	}
	for f, want := range map[float64]string{13: "13.0", 0.1: "0.1", 1e16: "1e+16", 1.5e-05: "1.5e-05", -3.25: "-3.25", 123456789012: "123456789012.0"} {
		if got := pyFloat(f); got != want {
			t.Errorf("pyFloat(%v) = %s want %s", f, got, want)
		}
	}
}

func TestSheetShapes(t *testing.T) {
	// Sheet 1: a title row, a table whose numeric column has a gap (→ floats), a trailing
	// note; then, separated by an empty row, a second block.
	s1 := row(1, c("A1", "s", "0")) +
		row(2, c("A2", "s", "1"), c("B2", "s", "2"), c("C2", "s", "3")) +
		row(3, c("A3", "s", "4"), c("B3", "", "1"), c("C3", "b", "1")) +
		row(4, c("A4", "s", "5"), c("C4", "b", "0")) +
		row(5, c("A5", "inline", "Scores &amp; notes are preliminary and subject to review by the committee.")) +
		row(7, c("B7", "", "2.5"), c("C7", "date", "45292"), c("E7", "", "3")) +
		row(8, c("B8", "", "10"), c("C8", "str", "NA"), c("D8", "s", "6"), c("E8", "", "4"))
	got, err := partitionBytes(t, "book.xlsx", book(t, [][2]string{{"Data", s1}, {"Empty", ""}},
		[]string{"Quarterly Report", "Team", "Score", "Won", "Blues", "Flyers", "x"}))
	if err != nil {
		t.Fatal(err)
	}
	type exp struct {
		typ  element.Type
		text string
		html string
	}
	want := []exp{
		{element.Title, "Quarterly Report", ""},
		// Column B holds a string, so pandas keeps it object and 1 stays 1.
		{element.Table, "Team Score Won Blues 1 True Flyers False",
			`<table><tr><td>Team</td><td>Score</td><td>Won</td></tr><tr><td>Blues</td><td>1</td><td>True</td></tr><tr><td>Flyers</td><td/><td>False</td></tr></table>`},
		{element.NarrativeText, "Scores & notes are preliminary and subject to review by the committee.", ""},
		// Column E is numeric with gaps in the sheet, so pandas makes it float: 3.0.
		{element.Table, "2.5 2024-01-01 00:00:00 3.0 10 x 4.0",
			`<table><tr><td>2.5</td><td>2024-01-01 00:00:00</td><td/><td>3.0</td></tr><tr><td>10</td><td/><td>x</td><td>4.0</td></tr></table>`},
	}
	if len(got) != len(want) {
		for _, g := range got {
			t.Logf("%s %q %s", g.Type, g.Text, g.Metadata.TextAsHTML)
		}
		t.Fatalf("got %d elements, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Type != w.typ || g.Text != w.text || g.Metadata.TextAsHTML != w.html {
			t.Errorf("#%d: got %s %q %s\nwant %+v", i, g.Type, g.Text, g.Metadata.TextAsHTML, w)
		}
		if g.Metadata.PageName != "Data" || g.Metadata.PageNumber == nil || *g.Metadata.PageNumber != 1 {
			t.Errorf("#%d: page %v %q", i, g.Metadata.PageNumber, g.Metadata.PageName)
		}
	}
}

func TestExcelTime(t *testing.T) {
	for serial, want := range map[float64]string{45292: "2024-01-01 00:00:00", 45292.5: "2024-01-01 12:00:00", 1: "1900-01-01 00:00:00", 61: "1900-03-01 00:00:00"} {
		tm, ok := excelTime(serial, false)
		if !ok || tm.Format(time.DateTime) != want {
			t.Errorf("%v: got %v want %s", serial, tm, want)
		}
	}
}

func TestBadInput(t *testing.T) {
	valid := book(t, [][2]string{{"S", row(1, c("A1", "", "1"))}}, nil)
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	w, _ := zw.Create("xl/workbook.xml")
	w.Write([]byte(`<workbook ` + ssNS + `><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`))
	w, _ = zw.Create("xl/_rels/workbook.xml.rels")
	w.Write([]byte(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`))
	w, _ = zw.CreateRaw(&zip.FileHeader{Name: "xl/worksheets/sheet1.xml", Method: zip.Store, CompressedSize64: 3, UncompressedSize64: 1 << 40})
	w.Write([]byte("<ws"))
	zw.Close()
	cases := []struct {
		name string
		data []byte
		msg  string
	}{
		{"not a zip", []byte("a,b,c\n1,2,3\n"), "File is not a valid xlsx"},
		{"truncated", valid[:len(valid)/2], "File is not a valid xlsx"},
		{"missing workbook", zipOf(t, map[string]string{"x": "y"}), "File is not a valid xlsx"},
		{"zip bomb", bomb.Bytes(), "exceeds"},
		{"encrypted (CFB container)", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...), "File is not a valid xlsx"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := partitionBytes(t, "x.xlsx", c.data)
			var ee *engine.Error
			if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable || !strings.Contains(ee.Msg, c.msg) {
				t.Fatalf("got %v, want unprocessable error containing %q", err, c.msg)
			}
		})
	}
}

// TestMillionCells partitions a 1000×1000 numeric sheet and checks time and memory stay
// proportionate (the sheet is streamed; only non-empty cells are held).
func TestMillionCells(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	var b strings.Builder
	for r := 1; r <= 1000; r++ {
		fmt.Fprintf(&b, `<row r="%d">`, r)
		for col := 0; col < 1000; col++ {
			fmt.Fprintf(&b, `<c><v>%d</v></c>`, r*col%97)
		}
		b.WriteString(`</row>`)
	}
	data := book(t, [][2]string{{"Big", b.String()}}, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	got, err := partitionBytes(t, "big.xlsx", data)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(got) != 1 || got[0].Type != element.Table {
		t.Fatalf("got %d elements", len(got))
	}
	t.Logf("1e6 cells: %v, %d MiB allocated, html %d KiB", time.Since(start).Round(time.Millisecond),
		(after.TotalAlloc-before.TotalAlloc)>>20, len(got[0].Metadata.TextAsHTML)>>10)
}

// TestSideBySideTables: two tables next to each other on one sheet (an empty column between,
// different heights) are two tables; one table split by an empty spacer column stays one.
func TestSideBySideTables(t *testing.T) {
	sheet := row(1, c("A1", "inline", "Region"), c("B1", "inline", "Sales"), c("D1", "inline", "Product"), c("E1", "inline", "Units")) +
		row(2, c("A2", "inline", "North"), c("B2", "", "120"), c("D2", "inline", "Bolts"), c("E2", "", "5000")) +
		row(3, c("A3", "inline", "South"), c("B3", "", "95"), c("D3", "inline", "Nuts"), c("E3", "", "7000")) +
		row(4, c("D4", "inline", "Washers"), c("E4", "", "900")) +
		// Rows 6-7: one table with an empty spacer column C.
		row(6, c("A6", "inline", "Name"), c("B6", "inline", "Dept"), c("D6", "inline", "Phone")) +
		row(7, c("A7", "inline", "Ann"), c("B7", "inline", "Sales"), c("D7", "", "5551234"))
	got, err := partitionBytes(t, "book.xlsx", book(t, [][2]string{{"Data", sheet}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range got {
		texts = append(texts, string(e.Type)+": "+e.Text)
	}
	want := []string{
		"Table: Region Sales North 120 South 95",
		"Table: Product Units Bolts 5000 Nuts 7000 Washers 900",
		"Table: Name Dept Phone Ann Sales 5551234",
	}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", texts, want)
	}
}

// TestDamagedSheet: a sheet whose part is broken markup is skipped with one warning; the other
// sheets are kept; a workbook with no readable sheet fails with why.
func TestDamagedSheet(t *testing.T) {
	good := row(1, c("A1", "inline", "Kept"), c("B1", "", "1")) + row(2, c("A2", "inline", "Rows"), c("B2", "", "2"))
	broken := row(1, c("A1", "inline", "Lost")) + `<row r="2"><c r="A2" t="inlineStr"><is><t>cut`
	var log bytes.Buffer
	opts := engine.DefaultOptions()
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	var got []element.Element
	data := book(t, [][2]string{{"One", good}, {"Two", broken}}, nil)
	err := Partition(contract.WithLogger(t.Context(), opts.Logger), bytes.NewReader(data), int64(len(data)), opts.Keys(), func(e element.Element) error { got = append(got, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Text != "Kept 1 Rows 2" {
		t.Errorf("got %+v", got)
	}
	if n := strings.Count(log.String(), "damaged parts"); n != 1 || !strings.Contains(log.String(), "sheet Two") {
		t.Errorf("want one warning naming sheet Two:\n%s", log.String())
	}
	only := book(t, [][2]string{{"Two", broken}}, nil)
	if err := Partition(t.Context(), bytes.NewReader(only), int64(len(only)), opts.Keys(), func(element.Element) error { return nil }); err == nil {
		t.Error("a workbook with nothing readable succeeded")
	}
}

// TestSheetShapesText: text boxes and shapes drawn over a sheet (grouped ones included) come
// after the sheet's cells; charts and pictures add nothing.
func TestSheetShapesText(t *testing.T) {
	data := book(t, [][2]string{{"Budget", row(1, c("A1", "inline", "Item"), c("B1", "inline", "Cost")) + row(2, c("A2", "inline", "Rent"), c("B2", "", "900"))}}, nil)
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
	const xdr = `xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"`
	box := func(text string) string {
		return `<xdr:sp><xdr:nvSpPr><xdr:cNvPr id="2" name="TextBox 1"/></xdr:nvSpPr><xdr:txBody><a:bodyPr/><a:p><a:r><a:t>` + text + `</a:t></a:r></a:p></xdr:txBody></xdr:sp>`
	}
	files["xl/drawings/drawing1.xml"] = `<xdr:wsDr ` + xdr + `><xdr:twoCellAnchor>` + box("Figures are provisional until the audit is complete.") +
		`</xdr:twoCellAnchor><xdr:twoCellAnchor><xdr:grpSp>` + box("Approved by the finance team.") + `</xdr:grpSp></xdr:twoCellAnchor>` +
		`<xdr:twoCellAnchor><xdr:pic><xdr:nvPicPr><xdr:cNvPr id="5" name="Logo"/></xdr:nvPicPr></xdr:pic></xdr:twoCellAnchor>` +
		// A chart gives its titles (its data are the sheet's cells, already read).
		`<xdr:twoCellAnchor><xdr:graphicFrame><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">` +
		`<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="rC"/>` +
		`</a:graphicData></a:graphic></xdr:graphicFrame></xdr:twoCellAnchor></xdr:wsDr>`
	files["xl/drawings/_rels/drawing1.xml.rels"] = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
		`<Relationship Id="rC" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="../charts/chart1.xml"/></Relationships>`
	files["xl/charts/chart1.xml"] = `<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" ` + xdr + `><c:chart>` +
		`<c:title><c:tx><c:rich><a:p><a:r><a:t>Monthly costs</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:barChart><c:ser>` +
		`<c:val><c:numRef><c:f>Budget!$B$2</c:f><c:numCache><c:pt idx="0"><c:v>900</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser></c:barChart></c:plotArea></c:chart></c:chartSpace>`
	files["xl/worksheets/_rels/sheet1.xml.rels"] = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
		`<Relationship Id="rD" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/drawing" Target="../drawings/drawing1.xml"/></Relationships>`
	got, err := partitionBytes(t, "book.xlsx", zipOf(t, files))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range got {
		texts = append(texts, string(e.Type)+": "+e.Text)
	}
	want := "Table: Item Cost Rent 900|NarrativeText: Figures are provisional until the audit is complete.|NarrativeText: Approved by the finance team.|Title: Monthly costs"
	if strings.Join(texts, "|") != want {
		t.Errorf("got  %q\nwant %s", texts, want)
	}
	if got[1].Metadata.PageName != "Budget" || *got[1].Metadata.PageNumber != 1 {
		t.Errorf("metadata %+v", got[1].Metadata)
	}
}

func TestTimesAndDurations(t *testing.T) {
	// Styles: 1 h:mm (built-in 20), 2 [h]:mm:ss (built-in 46), 3 custom [hh]:mm, 4 custom
	// mm:ss.0 (a time), 5 yyyy-mm-dd.
	styles := `<styleSheet ` + ssNS + `><numFmts count="3"><numFmt numFmtId="164" formatCode="[hh]:mm"/>` +
		`<numFmt numFmtId="165" formatCode="mm:ss.0"/><numFmt numFmtId="166" formatCode="yyyy\-mm\-dd"/></numFmts>` +
		`<cellXfs count="6"><xf numFmtId="0"/><xf numFmtId="20"/><xf numFmtId="46"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/></cellXfs></styleSheet>`
	cell := func(ref string, s int, v string) string {
		return fmt.Sprintf(`<c r="%s" s="%d"><v>%s</v></c>`, ref, s, v)
	}
	sheet := row(1, c("A1", "inline", "start"), c("B1", "inline", "worked"), c("C1", "inline", "total"), c("D1", "inline", "lap"), c("E1", "inline", "when")) +
		row(2, cell("A2", 1, "0.375"), cell("B2", 2, "0.3125"), cell("C2", 3, "1"), cell("D2", 4, "0.0003530092593"), cell("E2", 5, "45296")) +
		row(3, cell("A3", 1, "0.75"), cell("B3", 2, "1.75"), cell("C3", 3, "2"), cell("D3", 4, "0.5"), cell("E3", 5, "0.25"))
	// A second sheet without a header: its columns hold durations only (a timedelta64 column).
	bare := row(1, cell("A1", 2, "0.3125"), cell("B1", 3, "1")) + row(2, cell("A2", 2, "1.75"), cell("B2", 3, "2"))
	got, err := partitionBytes(t, "times.xlsx", styledBook(t, styles, [][2]string{{"Times", sheet}, {"Bare", bare}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	// The header makes every column object: times and durations are their Python str().
	want := []string{`<table><tr><td>start</td><td>worked</td><td>total</td><td>lap</td><td>when</td></tr>` +
		`<tr><td>09:00:00</td><td>7:30:00</td><td>1 day, 0:00:00</td><td>00:00:30.500000</td><td>2024-01-05 00:00:00</td></tr>` +
		`<tr><td>18:00:00</td><td>1 day, 18:00:00</td><td>2 days, 0:00:00</td><td>12:00:00</td><td>06:00:00</td></tr></table>`,
		`<table><tr><td>0 days 07:30:00</td><td>1 days</td></tr><tr><td>1 days 18:00:00</td><td>2 days</td></tr></table>`}
	if len(got) != len(want) {
		t.Fatalf("got %d elements: %+v", len(got), got)
	}
	for i, w := range want {
		if got[i].Metadata.TextAsHTML != w {
			t.Errorf("#%d: got %s\nwant %s", i, got[i].Metadata.TextAsHTML, w)
		}
	}
	// In a column with other values a duration is a Python timedelta's str().
	for us, want := range map[int64]string{86400e6 + 18*3600e6: "1 day, 18:00:00", 1857e6 + 500e3: "0:30:57.500000", 3 * 86400e6: "3 days, 0:00:00"} {
		if got := pyTimedelta(us); got != want {
			t.Errorf("pyTimedelta(%d) = %q, want %q", us, got, want)
		}
	}
}

// SpreadsheetML's _xHHHH_ escapes are the characters they stand for (text pasted with line
// breaks, tabs); "_x005F_" escapes the underscore of a literal "_x0041_".
func TestEscapedCharacters(t *testing.T) {
	sheet := row(1, c("A1", "s", "0"), c("B1", "s", "1"), c("C1", "inline", "Tab_x0009_here"), c("D1", "str", "A_x000A_B"))
	got, err := partitionBytes(t, "esc.xlsx", book(t, [][2]string{{"S", sheet}}, []string{"Line one_x000D_\nLine two", "keep _x005F_x0041_ and _xZZZZ_"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := "<table><tr><td>Line one Line two</td><td>keep _x0041_ and _xZZZZ_</td><td>Tab here</td><td>A B</td></tr></table>"; len(got) != 1 || got[0].Metadata.TextAsHTML != want {
		t.Errorf("got %+v\nwant %s", got, want)
	}
}
