package csv

import (
	"context"
	"reflect"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

func TestSniff(t *testing.T) {
	cases := map[string]rune{
		"a,b,c\n1,2,3\n":                     ',',
		"a;b;c\n1;2;3\n":                     ';',
		"a|b\n1|2\n3|4\n":                    '|',
		"\"x;y\",b\n\"1;2\",c\n":             ',',
		"single column\nvalues\n":            ',',
		"a\tb\tc\n1\t2\t3\n":                 '\t',
		"name\tnote\nann\tx, y\nbob\tz, w\n": '\t',
		"a,b\tc\n1,2\t3\n":                   ',',
	}
	for in, want := range cases {
		if got := Sniff(in); got != want {
			t.Errorf("Sniff(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTabSeparatedNamedCSV: a tab-separated file named .csv keeps its columns.
func TestTabSeparatedNamedCSV(t *testing.T) {
	doc := engine.NewDocument("export.csv", []byte("Name\tCity\tScore\nAnn\tParis, FR\t7\nBob\tLyon\t9\n"))
	opts := engine.DefaultOptions()
	var got []element.Element
	if err := partitionCSV(context.Background(), doc, opts.Keys(), func(e element.Element) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Text != "Name City Score Ann Paris, FR 7 Bob Lyon 9" ||
		got[0].Metadata.TextAsHTML != "<table><tr><td>Name</td><td>City</td><td>Score</td></tr><tr><td>Ann</td><td>Paris, FR</td><td>7</td></tr><tr><td>Bob</td><td>Lyon</td><td>9</td></tr></table>" {
		t.Fatalf("got %+v", got)
	}
}

func TestReadRowsKeepsQuotedLineBreaks(t *testing.T) {
	rows, err := readRows(context.Background(), "a,\"x\r\ny\"\r\n\r\nb,\"he said \"\"hi\"\"\"\nc", ',')
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"a", "x\r\ny"}, {"b", `he said "hi"`}, {"c", ""}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows = %q, want %q", rows, want)
	}
}

func TestFormatColumnsLikePandas(t *testing.T) {
	rows := [][]string{
		{"Team", "007", "1", "1.5", "true"},
		{"Blues", "8", "", "13", "FALSE"},
	}
	formatColumns(rows)
	// Column 0 is text; 1 is integers; 2 has a gap so floats; 3 floats with common decimals; 4 bools.
	want := [][]string{{"Team", "7", "1.0", "1.5", "True"}, {"Blues", "8", "", "13.0", "False"}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("formatted %q, want %q", rows, want)
	}
}

func TestPartitionOneTable(t *testing.T) {
	doc := engine.NewDocument("s.csv", []byte("Stanley Cups,,\nTeam,Location,Stanley Cups\nBlues,STL,1\n"))
	opts := engine.DefaultOptions()
	var got []element.Element
	if err := partitionCSV(context.Background(), doc, opts.Keys(), func(e element.Element) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Type != element.Table {
		t.Fatalf("got %v", got)
	}
	if want := "Stanley Cups Team Location Stanley Cups Blues STL 1"; got[0].Text != want {
		t.Errorf("text %q", got[0].Text)
	}
	if want := "<table><tr><td>Stanley Cups</td><td/><td/></tr><tr><td>Team</td><td>Location</td><td>Stanley Cups</td></tr><tr><td>Blues</td><td>STL</td><td>1</td></tr></table>"; got[0].Metadata.TextAsHTML != want {
		t.Errorf("html %s", got[0].Metadata.TextAsHTML)
	}
	opts.SkipInferTableTypes = []string{"csv"}
	got = nil
	_ = partitionCSV(context.Background(), doc, opts.Keys(), func(e element.Element) error { got = append(got, e); return nil })
	if got[0].Metadata.TextAsHTML != "" {
		t.Error("skip_infer_table_types=csv still produced text_as_html")
	}
}
