package chunking

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/quarrydocs/quarry/element"
)

// checkProperties asserts what must hold for any input and options (issue 8 §6):
//   - output types are CompositeElement, Table, TableChunk only;
//   - no chunk text is longer than max_characters (except a table passed through by
//     skip_table_chunking);
//   - no text is lost or duplicated: the chunks' characters (whitespace ignored) are the
//     input's, in order, each chunk allowed to repeat at most `overlap` characters of what
//     precedes it;
//   - orig_elements hold the input elements in order (each text element at least once);
//   - by_page never mixes pages (by_title without multipage sections may: its combining is
//     size-based, as the reference's is);
//   - TableChunk HTML is a well-formed <table>.
func checkProperties(t *testing.T, name string, in []element.Element, o Options) {
	t.Helper()
	got, err := Chunk(context.Background(), in, o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	max := DefaultMaxCharacters
	if o.MaxCharacters != nil {
		max = *o.MaxCharacters
	}
	var src strings.Builder
	for _, e := range in {
		src.WriteString(noSpace(e.Text))
	}
	s := []rune(src.String())
	for i, c := range got {
		switch c.Type {
		case element.CompositeElement, element.TableChunk:
		case element.Table:
		default:
			t.Fatalf("%s: chunk %d has type %s", name, i, c.Type)
		}
		if runeLen(c.Text) > max && !(c.Type == element.Table && o.SkipTableChunking) {
			t.Errorf("%s: chunk %d is %d characters > %d", name, i, runeLen(c.Text), max)
		}
		if c.Type == element.TableChunk && c.Metadata.TextAsHTML != "" {
			if msg := wellFormedTable(c.Metadata.TextAsHTML); msg != "" {
				t.Errorf("%s: chunk %d html: %s", name, i, msg)
			}
		}
	}
	// Match the chunks against the source, each allowed to start up to `overlap` characters
	// before the end of the previous one. Overlaps can be ambiguous ("nu eta nu" after
	// "… nu eta nu"), so this is a search.
	cts := make([][]rune, len(got))
	for i, c := range got {
		cts[i] = []rune(noSpace(c.Text))
	}
	type state struct{ i, pos int }
	failed := map[state]bool{}
	best := state{}
	var match func(i, pos int) bool
	match = func(i, pos int) bool {
		if i == len(cts) {
			return pos == len(s)
		}
		st := state{i, pos}
		if failed[st] {
			return false
		}
		if i > best.i {
			best = st
		}
		for k := 0; k <= o.Overlap && k <= pos; k++ {
			if hasRunePrefix(s[pos-k:], cts[i]) && match(i+1, pos-k+len(cts[i])) {
				return true
			}
		}
		failed[st] = true
		return false
	}
	if !match(0, 0) {
		if best.i < len(got) {
			t.Fatalf("%s: chunk %d %q does not continue the source at %q", name, best.i, got[best.i].Text, clip(string(s[best.pos:]), 60))
		}
		t.Fatalf("%s: text lost", name)
	}

	// orig_elements: input order, every text element present.
	if o.IncludeOrigElements {
		next := 0
		for _, c := range got {
			for _, oe := range c.Metadata.OrigElements {
				// Split chunks repeat their element; otherwise it must be the next input.
				k := next
				for k < len(in) && in[k].ID != oe.ID {
					k++
				}
				if k == len(in) {
					if next > 0 && in[next-1].ID == oe.ID {
						continue
					}
					t.Fatalf("%s: orig element %q out of order", name, oe.ID)
				}
				for _, skipped := range in[next:k] {
					if collapse(skipped.Text) != "" {
						t.Fatalf("%s: element %q missing from orig_elements", name, skipped.Text)
					}
				}
				next = k + 1
				if oe.Text != in[k].Text || oe.Type != in[k].Type {
					t.Fatalf("%s: orig element differs from input", name)
				}
			}
		}
		// And they survive the wire encoding (checked on a sample: compression is costly).
		if len(got) > 8 {
			got = got[:8]
		}
		data := element.MarshalList(got)
		var back []element.Element
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
		for i := range back {
			if len(back[i].Metadata.OrigElements) != len(got[i].Metadata.OrigElements) {
				t.Fatalf("%s: chunk %d orig_elements lost in encoding", name, i)
			}
		}
	}

	if o.Strategy == ByPage && o.IncludeOrigElements {
		for i, c := range got {
			pages := map[int]bool{}
			for _, oe := range c.Metadata.OrigElements {
				if p := oe.Metadata.PageNumber; p != nil {
					pages[*p] = true
				}
			}
			if len(pages) > 1 {
				t.Errorf("%s: chunk %d mixes pages %v", name, i, pages)
			}
		}
	}
}

func hasRunePrefix(s, p []rune) bool {
	if len(p) > len(s) {
		return false
	}
	for i := range p {
		if s[i] != p[i] {
			return false
		}
	}
	return true
}

func noSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if isPySpace(r) {
			return -1
		}
		return r
	}, s)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// The reference's own chunker test inputs (ingest-assets-2024) under many option sets.
func TestPropertiesIngestAssets(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(refDir, "ingest-assets-2024", "*.json"))
	if len(files) == 0 {
		t.Fatal("no ingest assets")
	}
	for _, f := range files {
		in := loadElements(t, f)
		for _, strat := range []string{Basic, ByTitle, ByPage, BySimilarity} {
			for _, max := range []int{30, 150, 500, 2000} {
				for _, ovl := range []int{0, 10} {
					for _, all := range []bool{false, true} {
						o := Options{Strategy: strat, MaxCharacters: element.Int(max), Overlap: ovl, OverlapAll: all,
							MultipageSections: max != 500, IncludeOrigElements: true, KeepOrigElementIDs: true}
						name := fmt.Sprintf("%s/%s/max=%d/overlap=%d/all=%v", filepath.Base(f), strat, max, ovl, all)
						checkProperties(t, name, in, o)
					}
				}
			}
		}
	}
}

var words = strings.Fields(`alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi
	omicron pi rho sigma tau upsilon phi chi psi omega naïve café § – ’ 数据 文档 a I supercalifragilisticexpialidocious`)

// randomDoc makes a document of mixed element types, page numbers, whitespace, tables and
// oversized elements.
func randomDoc(r *rand.Rand) []element.Element {
	n := r.Intn(60)
	var out []element.Element
	page := 1
	for i := 0; i < n; i++ {
		if r.Intn(8) == 0 {
			page += r.Intn(2) + 1
		}
		var e element.Element
		switch k := r.Intn(12); {
		case k == 0:
			e = el(element.PageBreak, "")
		case k == 1:
			var rows [][]string
			for j := 0; j < 1+r.Intn(12); j++ {
				var row []string
				for c := 0; c < 1+r.Intn(4); c++ {
					row = append(row, randomText(r, 1+r.Intn(r.Intn(30)+1)))
				}
				rows = append(rows, row)
			}
			e = rowsTable(rows, r.Intn(2) == 0)
			if r.Intn(4) == 0 {
				e.Metadata.TextAsHTML = ""
			}
		case k == 2:
			e = ti(randomText(r, 1+r.Intn(6)))
		case k == 3:
			e = el(element.CodeSnippet, "x :=\n\t"+randomText(r, 1+r.Intn(5)))
		case k == 4:
			e = el(element.Header, randomText(r, 2))
		default:
			e = nt(randomText(r, 1+r.Intn(r.Intn(200)+1)))
		}
		if r.Intn(5) != 0 {
			e.Metadata.PageNumber = element.Int(page)
		}
		e.ID = fmt.Sprintf("e%d", i)
		out = append(out, e)
	}
	return out
}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString([]string{" ", " ", " ", "  ", "\n", "\t", " \n "}[r.Intn(7)])
		}
		b.WriteString(words[r.Intn(len(words))])
	}
	return b.String()
}

func randomOptions(r *rand.Rand) Options {
	max := []int{10, 20, 49, 50, 80, 150, 500, 1500}[r.Intn(8)]
	o := Options{
		Strategy:            []string{Basic, ByTitle, ByPage, BySimilarity}[r.Intn(4)],
		MaxCharacters:       element.Int(max),
		Overlap:             r.Intn(max/3 + 1),
		OverlapAll:          r.Intn(2) == 0,
		MultipageSections:   r.Intn(2) == 0,
		IncludeOrigElements: true,
		KeepOrigElementIDs:  true,
		SkipTableChunking:   r.Intn(8) == 0,
	}
	no := false
	o.RepeatTableHeaders = &no // repeated headers duplicate text on purpose; tested on their own
	if r.Intn(2) == 0 {
		o.NewAfterNChars = element.Int(r.Intn(max + 10))
	}
	if o.Strategy == ByTitle && r.Intn(2) == 0 {
		o.CombineTextUnderNChars = element.Int(r.Intn(max + 1))
	}
	if o.Strategy == BySimilarity {
		th := 0.01 + r.Float64()*0.98
		o.SimilarityThreshold = &th
	}
	return o
}

func TestPropertiesRandom(t *testing.T) {
	for seed := int64(0); seed < 400; seed++ {
		r := rand.New(rand.NewSource(seed))
		in, o := randomDoc(r), randomOptions(r)
		checkProperties(t, fmt.Sprintf("seed %d %+v", seed, o), in, o)
	}
}

// FuzzChunk runs the same properties on fuzzer-chosen seeds and a free-form text element.
func FuzzChunk(f *testing.F) {
	f.Add(int64(1), "hello  world\n\nagain")
	f.Add(int64(7), strings.Repeat("x", 700))
	f.Fuzz(func(t *testing.T, seed int64, text string) {
		r := rand.New(rand.NewSource(seed))
		in, o := randomDoc(r), randomOptions(r)
		if !strings.ContainsFunc(text, func(r rune) bool { return r == unicode.ReplacementChar }) {
			e := nt(text)
			e.ID = "fuzz"
			in = append(in, e)
		}
		checkProperties(t, "fuzz", in, o)
	})
}
