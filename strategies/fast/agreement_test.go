package fast

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/pdf"
)

var agreementSplit = regexp.MustCompile(`\s*\n\s*`)

// pdfminerOrderText is the page text in pdfminer's object order (boxes, then figures), cleaned
// as the reference cleans element text: what /tmp-style pdfminer dumps contain.
func pdfminerOrderText(p *pdf.Page) string {
	var out []string
	for _, b := range p.Boxes {
		if s, _ := cleanWhitespace(b.Text(), false); strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	for _, f := range p.Figures {
		var sb strings.Builder
		for _, it := range f.Items {
			if it.Glyph == nil {
				sb.WriteByte('\n')
			} else {
				sb.WriteString(it.Glyph.Text)
			}
		}
		for _, snip := range agreementSplit.Split(sb.String(), -1) {
			if s, _ := cleanWhitespace(snip, false); strings.TrimSpace(s) != "" {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, "\n")
}

// TestPdfminerAgreement compares, page by page, Quarry's boxes with pdfminer.six's on the same
// LAParams. Set PDFMINER_DUMPS to a directory of <file>.txt dumps (pages separated by form
// feeds) and PDFMINER_DOCS to the directory of the PDFs.
func TestPdfminerAgreement(t *testing.T) {
	dumps, docs := os.Getenv("PDFMINER_DUMPS"), os.Getenv("PDFMINER_DOCS")
	if dumps == "" || docs == "" {
		t.Skip("PDFMINER_DUMPS / PDFMINER_DOCS not set")
	}
	files, _ := filepath.Glob(filepath.Join(dumps, "*.pdf.txt"))
	for _, dump := range files {
		name := strings.TrimSuffix(filepath.Base(dump), ".txt")
		want, err := os.ReadFile(dump)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(docs, name))
		if err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		d, err := pdf.Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		wantPages := strings.Split(string(want), "\f")
		var dist, total float64
		worst, worstPage := 1.0, 0
		for n := 1; n <= d.NumPages() && n <= len(wantPages); n++ {
			p, err := d.Page(context.Background(), n, pdf.DefaultLAParams())
			got := ""
			if err == nil {
				got = pdfminerOrderText(p)
			}
			w := wantPages[n-1]
			acc := accuracy(got, w)
			l := float64(len([]rune(w)))
			dist += (1 - acc) * l
			total += l
			if acc < worst && l > 0 {
				worst, worstPage = acc, n
			}
		}
		score := 1.0
		if total > 0 {
			score = 1 - dist/total
		}
		t.Logf("%-45s pages %4d/%4d  agreement %.3f  worst page %d (%.3f)", name, d.NumPages(), len(wantPages), score, worstPage, worst)
		if score < 0.97 {
			t.Errorf("%s: agreement %.3f < 0.97", name, score)
		}
	}
}
