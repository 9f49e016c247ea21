package fast

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/pdf"
)

var agreementSplit = regexp.MustCompile(`\s*\n\s*`)

// pdfminerOrderText is the page text in pdfminer's object order (boxes, then figures), cleaned
// as the reference cleans element text: what bench/peers/pdfminer_dump.py writes.
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

// TestPdfminerAgreement compares, page by page, Quarry's boxes with pdfminer.six's (Debian's
// python3-pdfminer, the reference's engine) on the same LAParams, dumped by
// bench/peers/pdfminer_dump.py: the reference PDFs always, and the bench corpus's PDFs
// (BENCH_CORPUS, default ../shared/corpus/bench beside the repository) unless -short.
func TestPdfminerAgreement(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import pdfminer").Run(); err != nil {
		t.Skip("python3-pdfminer not installed (apt-get install python3-pdfminer)")
	}
	docs, _ := filepath.Glob("../../testdata/reference/docs/*.pdf")
	corpus := os.Getenv("BENCH_CORPUS")
	if corpus == "" {
		corpus = "../../../shared/corpus/bench"
	}
	if bench, _ := filepath.Glob(filepath.Join(corpus, "pdf", "*.pdf")); len(bench) > 0 && !testing.Short() {
		docs = append(docs, bench...)
	}
	dumps := t.TempDir()
	cmd := exec.Command(python, append([]string{"../../bench/peers/pdfminer_dump.py", dumps}, docs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdfminer_dump.py: %v\n%s", err, out)
	}
	for _, path := range docs {
		name := filepath.Base(path)
		want, err := os.ReadFile(filepath.Join(dumps, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
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
