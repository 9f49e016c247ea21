package icdar

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"
)

// TestRatioMatchesCPython checks Ratio against values computed by CPython's difflib
// (testdata/difflib_gen.py), including sequences long enough for its autojunk rule.
func TestRatioMatchesCPython(t *testing.T) {
	data, err := os.ReadFile("testdata/difflib.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		A, B  []string
		Ratio float64
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 10 {
		t.Fatalf("only %d cases", len(cases))
	}
	for i, c := range cases {
		if got := Ratio(c.A, c.B); math.Abs(got-c.Ratio) > 1e-12 {
			t.Errorf("case %d (len %d, %d): ratio %v, CPython %v", i, len(c.A), len(c.B), got, c.Ratio)
		}
	}
}

func TestTEDSProxyShapePenalty(t *testing.T) {
	gt := [][]string{{"a", "b"}, {"c", "d"}}
	if got := TEDSProxy(gt, gt); got != 1 {
		t.Errorf("identical: %v", got)
	}
	// One missing row: content 2·4/(4+6) = 0.8, shape 1 − 1/(2+2+3+2+1) = 0.9.
	pred := [][]string{{"a", "b"}, {"c", "d"}, {"", ""}}
	if got := TEDSProxy(pred, gt); math.Abs(got-0.72) > 1e-12 {
		t.Errorf("extra row: %v, want 0.72", got)
	}
	if got := TEDSProxy([][]string{{"A  B"}}, [][]string{{"a b"}}); got != 1 {
		t.Errorf("normalisation: %v", got)
	}
}

func TestRelationsWithSpans(t *testing.T) {
	cells := []Cell{
		{Row: 0, Col: 0, EndRow: 1, EndCol: 0, Text: "Name"},
		{Row: 0, Col: 1, EndRow: 0, EndCol: 2, Text: "Results"},
		{Row: 1, Col: 1, EndRow: 1, EndCol: 1, Text: "A"},
		{Row: 1, Col: 2, EndRow: 1, EndCol: 2, Text: ""},
		{Row: 2, Col: 0, EndRow: 2, EndCol: 0, Text: "x"},
		{Row: 2, Col: 2, EndRow: 2, EndCol: 2, Text: "y"},
	}
	got := map[Relation]bool{}
	for _, r := range Relations(cells) {
		got[r] = true
	}
	want := []Relation{{"Name", "Results", 'H'}, {"Name", "A", 'H'}, {"Name", "x", 'V'}, {"Results", "A", 'V'}, {"Results", "y", 'V'}, {"x", "y", 'H'}}
	for _, w := range want {
		if !got[w] {
			t.Errorf("missing %v", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d relations %v, want %d", len(got), got, len(want))
	}
}

func TestCompareCountsPerPage(t *testing.T) {
	tab := func(page int, texts ...string) Table {
		tb := Table{Page: page}
		for i, s := range texts {
			tb.Cells = append(tb.Cells, Cell{Row: i / 2, Col: i % 2, EndRow: i / 2, EndCol: i % 2, Text: s})
		}
		return tb
	}
	gt := []Table{tab(1, "a", "b", "c", "d"), tab(2, "e", "f", "g", "h")}
	pred := []Table{tab(1, "a", "b", "c", "d"), tab(1, "x", "y"), tab(3, "p", "q")}
	c := Compare(pred, gt)
	if c.TP != 1 || c.FP != 2 || c.FN != 1 || c.Matched != 1 || c.RowsOK != 1 {
		t.Fatalf("counts %+v", c)
	}
	s := c.Score()
	if math.Abs(s.F1-0.4) > 1e-12 {
		t.Errorf("F1 %v, want 0.4 (P 1/3, R 1/2)", s.F1)
	}
	// Page 1: 4 right relations + 1 extra; page 2: 4 missed; page 3: 1 extra.
	if c.RelOK != 4 || c.RelPred != 6 || c.RelGT != 8 {
		t.Errorf("relations %d/%d/%d", c.RelOK, c.RelPred, c.RelGT)
	}
}

func TestReadStructure(t *testing.T) {
	ts, err := ReadStructure("../testdata/icdar2013-eu/eu-010-str.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].Page != 1 {
		t.Fatalf("tables %+v", ts)
	}
	g := Grid(ts[0].Cells)
	if g[0][0] != "FEMIP Country" || g[0][1] != "Signed TA (EURm)" || g[1][0] != "Algeria" {
		t.Errorf("grid head %q", g[:2])
	}
}

func TestFromHTML(t *testing.T) {
	for _, s := range []string{
		`<table><thead><tr><th rowspan="2">Name</th><th colspan="2">Results</th></tr></thead><tbody><tr><td>A</td><td></td></tr><tr><td>x &amp; y</td><td/><td>z<br/>w</td></tr></tbody></table>`,
		`<table><tr><td rowspan="2">Name</td><td colspan="2">Results</td></tr><tr><td>A</td><td/></tr><tr><td>x &amp; y</td><td/><td>z<br/>w</td></tr></table>`,
	} {
		cells, err := FromHTML(s)
		if err != nil {
			t.Fatal(err)
		}
		g := Grid(cells)
		want := [][]string{{"Name", "Results", ""}, {"", "A", ""}, {"x & y", "", "z w"}}
		if fmt.Sprint(g) != fmt.Sprint(want) {
			t.Errorf("%s\n grid %q\n want %q", s, g, want)
		}
		if cells[0].EndRow != 1 || cells[1].EndCol != 2 {
			t.Errorf("spans %+v", cells[:2])
		}
	}
}
