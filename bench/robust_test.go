package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/strategies/fast"
)

// BenchmarkRobustFixtures reads the pdf package's robustness fixtures (pdf/testdata/robust:
// hand-made, damaged, CJK, right-to-left, broken matrices; pdf/testdata/encrypted: files the
// empty user password opens) with the fast strategy, pdftotext and pdfminer.six (pdf2txt) in
// the same run, and prints per class of fixture: files each reader reads empty (q Quarry, ptt
// pdftotext, pm pdfminer), words, "(cid:N)" glyphs, and word agreement with pdftotext (F1 of
// the word multisets, averaged over the files pdftotext reads something from; pdftotext is a
// peer, not the truth: the tests in pdf/ assert the expected text of each fixture). Run:
// go test -run '^$' -bench RobustFixtures -benchtime 1x -v ./bench/
func BenchmarkRobustFixtures(b *testing.B) {
	files := globFiles("../pdf/testdata/robust/*.pdf", "../pdf/testdata/encrypted/owner-*.pdf",
		"../pdf/testdata/encrypted/direct-owner-*.pdf", "../pdf/testdata/encrypted/plain.pdf")
	if len(files) == 0 {
		b.Skip("fixtures absent")
	}
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		b.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	pdf2txt, _ := exec.LookPath("pdf2txt")
	type stats struct {
		files, qEmpty, pEmpty, mEmpty int
		qWords, qCID, pWords, mWords  int
		mCID                          int
		f1                            float64 // summed over the files pdftotext reads something from
	}
	classes := map[string]*stats{}
	for n := 0; n < b.N; n++ {
		for _, f := range files {
			class := strings.SplitN(strings.TrimPrefix(filepath.Base(f), "Test"), "_", 2)[0]
			if strings.Contains(f, "encrypted") {
				class = "Encrypted(owner-only)"
			}
			st := classes[class]
			if st == nil {
				st = &stats{}
				classes[class] = st
			}
			st.files++
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			opts := engine.DefaultOptions()
			opts.Strategy = "fast"
			els, err := engine.Partition(context.Background(), engine.NewDocument(filepath.Base(f), data), opts)
			var q []string
			if err == nil {
				for _, e := range els {
					if e.Type != element.PageBreak {
						q = append(q, e.Text)
					}
				}
			}
			ours := strings.Join(q, " ")
			out, _ := exec.Command(pdftotext, "-q", f, "-").Output()
			peer := strings.ReplaceAll(string(out), "\f", " ")
			// pdftotext marks embedding direction with U+202A–U+202E; they are not text.
			peer = strings.Map(func(r rune) rune {
				if r >= 0x202A && r <= 0x202E {
					return -1
				}
				return r
			}, peer)
			var miner string
			if pdf2txt != "" {
				mo, _ := exec.Command(pdf2txt, f).Output()
				miner = string(mo)
			}
			qw, pw, mw := strings.Fields(ours), strings.Fields(peer), strings.Fields(miner)
			st.qWords += len(qw)
			st.pWords += len(pw)
			st.mWords += len(mw)
			st.qCID += strings.Count(ours, "(cid:")
			st.mCID += strings.Count(miner, "(cid:")
			if len(qw) == 0 {
				st.qEmpty++
			}
			if len(pw) == 0 {
				st.pEmpty++
			}
			if len(mw) == 0 {
				st.mEmpty++
			}
			if len(pw) > 0 {
				st.f1 += wordF1(qw, pw)
			}
		}
	}
	names := make([]string, 0, len(classes))
	for c := range classes {
		names = append(names, c)
	}
	sort.Strings(names)
	b.Logf("%-26s %5s %14s %14s %14s %10s", "class", "files", "empty q/ptt/pm", "words q/ptt", "(cid:N) q/pm", "F1 vs ptt")
	for _, c := range names {
		st := classes[c]
		b.Logf("%-26s %5d %14s %14s %14s %12.3f", c, st.files/b.N,
			fmt.Sprintf("%d/%d/%d", st.qEmpty/b.N, st.pEmpty/b.N, st.mEmpty/b.N),
			fmt.Sprintf("%d/%d", st.qWords/b.N, st.pWords/b.N),
			fmt.Sprintf("%d/%d", st.qCID/b.N, st.mCID/b.N), st.f1/float64(max(st.files-st.pEmpty, 1)))
	}
}

// wordF1 is the F1 of two multisets of words.
func wordF1(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	count := func(ws []string) map[string]int {
		m := map[string]int{}
		for _, w := range ws {
			m[w]++
		}
		return m
	}
	ca, cb := count(a), count(b)
	common := 0
	for w, n := range ca {
		common += min(n, cb[w])
	}
	if common == 0 {
		return 0
	}
	p, r := float64(common)/float64(len(a)), float64(common)/float64(len(b))
	return 2 * p * r / (p + r)
}
