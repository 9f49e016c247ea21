package opc

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadChart(t *testing.T) {
	const c = `xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"`
	cases := []struct {
		name, xml string
		want      Chart
	}{
		{"scatter, title from a cell", `<c:chartSpace ` + c + `><c:chart><c:title><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>Height vs age</c:v></c:pt></c:strCache></c:strRef></c:tx></c:title><c:plotArea><c:scatterChart>` +
			`<c:ser><c:tx><c:v>Boys</c:v></c:tx><c:xVal><c:numLit><c:pt idx="0"><c:v>5</c:v></c:pt><c:pt idx="1"><c:v>10</c:v></c:pt></c:numLit></c:xVal>` +
			`<c:yVal><c:numLit><c:pt idx="0"><c:v>110</c:v></c:pt><c:pt idx="1"><c:v>140</c:v></c:pt></c:numLit></c:yVal></c:ser></c:scatterChart></c:plotArea></c:chart></c:chartSpace>`,
			Chart{Titles: []string{"Height vs age"}, Rows: [][]string{{"", "Boys"}, {"5", "110"}, {"10", "140"}}}},
		{"multi-level categories, gaps", `<c:chartSpace ` + c + `><c:chart><c:plotArea><c:lineChart><c:ser><c:cat><c:multiLvlStrRef><c:multiLvlStrCache>` +
			`<c:lvl><c:pt idx="0"><c:v>Jan</c:v></c:pt><c:pt idx="2"><c:v>Mar</c:v></c:pt></c:lvl><c:lvl><c:pt idx="0"><c:v>2025</c:v></c:pt></c:lvl></c:multiLvlStrCache></c:multiLvlStrRef></c:cat>` +
			`<c:val><c:numRef><c:numCache><c:pt idx="0"><c:v>1</c:v></c:pt><c:pt idx="2"><c:v>3</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser></c:lineChart></c:plotArea></c:chart></c:chartSpace>`,
			Chart{Rows: [][]string{{"", ""}, {"Jan", "1"}, {"Mar", "3"}}}},
		{"no data", `<c:chartSpace ` + c + `><c:chart><c:autoTitleDeleted val="1"/><c:plotArea><c:pieChart><c:ser><c:val><c:numRef><c:f>Sheet1!$B$2</c:f></c:numRef></c:val></c:ser></c:pieChart></c:plotArea></c:chart></c:chartSpace>`,
			Chart{}},
		{"damaged after the title", `<c:chartSpace ` + c + `><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Kept</a:t></a:r></a:p><a:p><a:r><a:t>two lines</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:barChart><c:ser><c:v`,
			Chart{Titles: []string{"Kept\ntwo lines"}}},
		{"hostile index", `<c:chartSpace ` + c + `><c:chart><c:plotArea><c:barChart><c:ser><c:val><c:numLit><c:pt idx="999999999"><c:v>1</c:v></c:pt></c:numLit></c:val></c:ser></c:barChart></c:plotArea></c:chart></c:chartSpace>`,
			Chart{}},
	}
	for _, tc := range cases {
		if got := ReadChart([]byte(tc.xml)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	// Many series are bounded.
	var b strings.Builder
	b.WriteString(`<c:chartSpace ` + c + `><c:chart><c:plotArea><c:barChart>`)
	for range maxChartSeries + 10 {
		b.WriteString(`<c:ser><c:val><c:numLit><c:pt idx="0"><c:v>1</c:v></c:pt></c:numLit></c:val></c:ser>`)
	}
	b.WriteString(`</c:barChart></c:plotArea></c:chart></c:chartSpace>`)
	if got := ReadChart([]byte(b.String())); len(got.Rows) != 2 || len(got.Rows[0]) != maxChartSeries+1 {
		t.Errorf("series not bounded: %d rows, %d columns", len(got.Rows), len(got.Rows[0]))
	}
}
