package tables_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
	"github.com/quarrydocs/quarry/layout/tables"
	"github.com/quarrydocs/quarry/pdf"
)

// pdfTables reads every page of a PDF through package pdf and the layout's adapter
// (pageInput) and returns the tables found with their page numbers.
func pdfTables(t *testing.T, data []byte) ([]tables.Table, []int) {
	t.Helper()
	ctx := context.Background()
	doc, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out []tables.Table
	var pages []int
	for n := 1; n <= doc.NumPages(); n++ {
		p, err := doc.Page(ctx, n, pdf.DefaultLAParams())
		if err != nil {
			t.Fatal(err)
		}
		ts, err := tables.Find(ctx, pageInput(p), tables.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range ts {
			out = append(out, tb)
			pages = append(pages, n)
		}
	}
	return out, pages
}

func grid(tb tables.Table) string {
	var rows []string
	for _, r := range tb.Grid() {
		for i := range r {
			r[i] = strings.Join(strings.Fields(r[i]), " ")
		}
		rows = append(rows, strings.Join(r, " | "))
	}
	return strings.Join(rows, "\n")
}

// TestLibreOfficeFixtures reads PDFs that LibreOffice made from HTML tables of each kind
// (testdata/fixtures/*.html, gen.sh): the rules come from its vector paths, the text from its
// fonts, as in office documents.
func TestLibreOfficeFixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		kind tables.Kind
		want string
		html string
	}{
		{"ruled", tables.Ruled, `Region | Sales (EUR m) | | Staff
 | 2022 | 2023 | 
North | 1 204.5 | 1 310.2 | 412
South | 2 311.0 | 2 402.7 | 655
East and central regions combined | 877.3 | 901.0 | 230
Total | 4 392.8 | 4 613.9 | 1 297`, `<thead><tr><th rowspan="2">Region</th><th colspan="2">Sales (EUR m)</th><th rowspan="2">Staff</th></tr><tr><th>2022</th><th>2023</th></tr></thead><tbody><tr><td>North</td>`},
		{"borderless", tables.Borderless, ` | Revenue | Cost | Margin
Northern division | 1 204.5 | 980.1 | 18.6
Southern division | 2 311.0 | 1 802.4 | 22.0
Eastern division | 877.3 | 701.9 | 20.0
Western division | 1 020.8 | 850.2 | 16.7`, `<thead><tr><th></th><th>Revenue</th><th>Cost</th><th>Margin</th></tr></thead>`},
		// The borderless table with a cell padding of 3 px: its figures' columns are 0.4 em
		// apart on the tightest row, found by their right-aligned edges.
		{"tight", tables.Borderless, ` | Revenue | Cost | Margin
Northern division | 1 204.5 | 980.1 | 18.6
Southern division | 2 311.0 | 1 802.4 | 22.0
Eastern division | 877.3 | 701.9 | 20.0
Western division | 1 020.8 | 850.2 | 16.7`, `<td>2 311.0</td><td>1 802.4</td>`},
		{"partly", tables.PartlyRuled, `Item | 2023 | 2022
Cash and equivalents | 1 200 | 1 100
Receivables | 3 400 | 2 950
Inventories | 870 | 910
Total | 5 470 | 4 960`, `<tr><td>Cash and equivalents</td><td>1 200</td><td>1 100</td></tr>`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile("testdata/fixtures/" + tc.file + ".pdf")
			if err != nil {
				t.Fatal(err)
			}
			ts, _ := pdfTables(t, data)
			if len(ts) != 1 {
				t.Fatalf("%d tables", len(ts))
			}
			if ts[0].Kind != tc.kind {
				t.Errorf("kind %v, want %v", ts[0].Kind, tc.kind)
			}
			want := strings.ReplaceAll(tc.want, "| |", "|  |")
			if got := grid(ts[0]); strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(want), " ") {
				t.Errorf("grid\n%s\nwant\n%s", got, want)
			}
			if h := ts[0].HTML(); !strings.Contains(h, tc.html) {
				t.Errorf("HTML %s lacks %s", h, tc.html)
			}
		})
	}
}

// onePagePDF writes a one-page PDF (Helvetica as F1) with the given page dictionary entries
// (such as /Rotate 90) and content stream.
func onePagePDF(pageEntries, content string) []byte {
	return pdftest.Doc{
		Pages: []pdftest.Page{{Content: content, Entries: pageEntries, Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", pdftest.FirstExtra(1))}},
		Extra: []string{pdftest.Helvetica},
	}.Bytes()
}

// ruledContent draws a 4×3 ruled table whose text runs along the direction given by the text
// matrix prefix (a b c d of Tm): upright with "1 0 0 1", turned a quarter with "0 1 -1 0".
// Cell (r, c) is placed at the table-frame coordinates (x, y) mapped by place.
func ruledContent(tm string, place func(x, y float64) (float64, float64)) string {
	var b strings.Builder
	cells := [][]string{{"Code", "Name", "Qty"}, {"A1", "Bolt", "12"}, {"B7", "Nut", "40"}, {"C3", "Washer", "7"}}
	xs := []float64{0, 80, 200, 260}
	ys := []float64{0, -20, -40, -60, -80}
	line := func(x0, y0, x1, y1 float64) {
		a, c := place(x0, y0)
		d, e := place(x1, y1)
		fmt.Fprintf(&b, "%.2f %.2f m %.2f %.2f l S\n", a, c, d, e)
	}
	b.WriteString("0.5 w\n")
	for _, y := range ys {
		line(xs[0], y, xs[3], y)
	}
	for _, x := range xs {
		line(x, ys[0], x, ys[4])
	}
	for r, row := range cells {
		for c, s := range row {
			x, y := place(xs[c]+4, ys[r+1]+6)
			fmt.Fprintf(&b, "BT /F1 10 Tf %s %.2f %.2f Tm (%s) Tj ET\n", tm, x, y, s)
		}
	}
	return b.String()
}

const wantRuled = "Code | Name | Qty\nA1 | Bolt | 12\nB7 | Nut | 40\nC3 | Washer | 7"

func TestRotatedPDFs(t *testing.T) {
	upright := func(x, y float64) (float64, float64) { return 150 + x, 600 + y }
	// A table turned a quarter counter-clockwise on a portrait page: its text reads bottom
	// to top, its rows advance to the right.
	sideways := func(x, y float64) (float64, float64) { return 300 - y, 200 + x }
	for _, tc := range []struct {
		name, page, content string
		dir                 int
	}{
		{"upright", "", ruledContent("1 0 0 1", upright), 0},
		// A page turned for display: the table reads top to bottom on it.
		{"rotated page", "/Rotate 90", ruledContent("1 0 0 1", upright), 270},
		{"rotated table", "", ruledContent("0 1 -1 0", sideways), 90},
		{"upside-down page", "/Rotate 180", ruledContent("1 0 0 1", upright), 180},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, _ := pdfTables(t, onePagePDF(tc.page, tc.content))
			if len(ts) != 1 {
				t.Fatalf("%d tables", len(ts))
			}
			if got := grid(ts[0]); got != wantRuled {
				t.Errorf("grid\n%s\nwant\n%s", got, wantRuled)
			}
			if ts[0].Dir != tc.dir {
				t.Errorf("dir %d, want %d", ts[0].Dir, tc.dir)
			}
		})
	}
}

// TestListsAboveTable reads a PDF LibreOffice made from pandoc's DOCX (testdata/fixtures/
// listabove.md, gen.sh): numbered and bulleted lists whose markers are set apart by a tab, a
// heading and a caption, then a table with one rule under its head. The list items are lines
// of two phrases, as a table's rows are; they are not the table's first rows.
func TestListsAboveTable(t *testing.T) {
	data, err := os.ReadFile("testdata/fixtures/listabove.pdf")
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := pdfTables(t, data)
	if len(ts) != 1 {
		t.Fatalf("%d tables, want 1", len(ts))
	}
	want := `Item | Q1 | Q2 | Q3 | Q4
Heating | 1,200 | 800 | 300 | 2,100
Roof | 0 | 15,400 | 2,000 | 0
Doors | 450 | 450 | 450 | 450
Total | 1,650 | 16,650 | 2,750 | 2,550`
	if got := grid(ts[0]); got != want {
		t.Errorf("grid\n%s\nwant\n%s", got, want)
	}
}
