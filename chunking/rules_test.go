package chunking

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/quarrydocs/quarry/element"
)

func el(typ element.Type, text string) element.Element {
	return element.Element{Type: typ, Text: text}
}

func onPage(e element.Element, page int) element.Element {
	e.Metadata.PageNumber = element.Int(page)
	return e
}

func nt(text string) element.Element { return el(element.NarrativeText, text) }
func ti(text string) element.Element { return el(element.Title, text) }

func opts(strategy string, max int) Options {
	return Options{Strategy: strategy, MaxCharacters: element.Int(max), MultipageSections: true, IncludeOrigElements: true}
}

func texts(els []element.Element) []string {
	out := make([]string, len(els))
	for i, e := range els {
		out[i] = e.Text
	}
	return out
}

func mustChunk(t *testing.T, in []element.Element, o Options) []element.Element {
	t.Helper()
	got, err := Chunk(context.Background(), in, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		switch e.Type {
		case element.CompositeElement, element.Table, element.TableChunk:
		default:
			t.Errorf("output type %s (only CompositeElement, Table, TableChunk allowed, §10.9)", e.Type)
		}
		if e.ID != "" {
			t.Errorf("chunk ID %q set; the engine hashes chunk IDs", e.ID)
		}
	}
	return got
}

func ip(n int) *int { return &n }

// §10.1: validation in the reference's order with its messages.
func TestValidate(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"no strategy", Options{}, ""},
		{"defaults", Options{Strategy: "by_title"}, ""},
		{"upper case", Options{Strategy: "BY_TITLE"}, ""},
		{"unknown", Options{Strategy: "by_magic"}, "Invalid chunking strategy: by_magic. Must be one of ['basic', 'by_title', 'by_page', 'by_similarity']"},
		{"max zero", Options{Strategy: "basic", MaxCharacters: ip(0)}, "'max_characters' argument must be > 0, got 0"},
		{"max negative", Options{Strategy: "basic", MaxCharacters: ip(-3)}, "'max_characters' argument must be > 0, got -3"},
		{"combine negative", Options{Strategy: "basic", CombineTextUnderNChars: ip(-1)}, "'combine_text_under_n_chars' argument must be >= 0, got -1"},
		{"soft negative", Options{Strategy: "basic", NewAfterNChars: ip(-1)}, "'new_after_n_chars' argument must be >= 0, got -1"},
		{"soft above hard is fine", Options{Strategy: "basic", NewAfterNChars: ip(9999)}, ""},
		{"overlap = max", Options{Strategy: "basic", Overlap: 500}, "'overlap' argument must be less than `max_characters`, got 500 >= 500"},
		{"overlap > max", Options{Strategy: "by_title", Overlap: 600}, "'overlap' argument must be less than `max_characters`, got 600 >= 500"},
		{"overlap negative", Options{Strategy: "basic", Overlap: -1}, "'overlap' argument must be >= 0, got -1"},
		{"combine > max by_title", Options{Strategy: "by_title", MaxCharacters: ip(100), CombineTextUnderNChars: ip(101)}, "'combine_text_under_n_chars' argument must not exceed `max_characters` value, got 101 > 100"},
		{"combine > max basic ignored", Options{Strategy: "basic", MaxCharacters: ip(100), CombineTextUnderNChars: ip(101)}, ""},
		{"max checked first", Options{Strategy: "by_title", MaxCharacters: ip(0), Overlap: 5}, "'max_characters' argument must be > 0, got 0"},
		{"similarity low", Options{Strategy: "by_similarity", SimilarityThreshold: f(0)}, "'similarity_threshold' argument must be between 0.01 and 0.99, got 0"},
		{"similarity high", Options{Strategy: "by_similarity", SimilarityThreshold: f(1)}, "'similarity_threshold' argument must be between 0.01 and 0.99, got 1"},
		{"similarity bounds", Options{Strategy: "by_similarity", SimilarityThreshold: f(0.01)}, ""},
		{"similarity other strategy", Options{Strategy: "basic", SimilarityThreshold: f(2)}, ""},
	}
	for _, c := range cases {
		err := Validate(c.o)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
		if err != nil {
			var oe *OptionError
			var se *UnknownStrategyError
			if !errors.As(err, &oe) && !errors.As(err, &se) {
				t.Errorf("%s: error type %T", c.name, err)
			}
		}
		if _, cerr := Chunk(context.Background(), []element.Element{nt("x")}, c.o); (cerr == nil) != (err == nil) {
			t.Errorf("%s: Chunk error %v, Validate error %v", c.name, cerr, err)
		}
	}
}

// §10.2: basic packs elements while they fit the hard max, counting "\n\n" separators.
func TestBasicPacking(t *testing.T) {
	in := []element.Element{nt("aaaa"), nt("bbbb"), nt("cccc"), ti("dddd")}
	// 4+2+4 = 10 fits 10; adding 2+4 would not.
	got := mustChunk(t, in, opts("basic", 10))
	want := []string{"aaaa\n\nbbbb", "cccc\n\ndddd"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("got %q, want %q", texts(got), want)
	}
}

// §10.2: the builder is full only when its length is strictly greater than the soft max.
func TestSoftMax(t *testing.T) {
	in := []element.Element{nt("aaaa"), nt("bbbb"), nt("cc")}
	o := opts("basic", 100)
	o.NewAfterNChars = ip(4) // "aaaa" is exactly 4: not full yet; "aaaa\n\nbbbb" is full.
	got := mustChunk(t, in, o)
	want := []string{"aaaa\n\nbbbb", "cc"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("got %q, want %q", texts(got), want)
	}
	o.NewAfterNChars = ip(0) // one element per chunk
	if got := mustChunk(t, in, o); len(got) != 3 {
		t.Errorf("new_after_n_chars=0: got %q", texts(got))
	}
}

// §10.2: "fits" uses raw text lengths, while chunk text is normalised afterwards.
func TestFitsUsesRawLength(t *testing.T) {
	in := []element.Element{nt("aaaa"), nt("  b   b  ")} // raw 9, normalised 3
	got := mustChunk(t, in, opts("basic", 12))           // 4+2+9 = 15 > 12 although "aaaa\n\nb b" is 9
	if len(got) != 2 || got[1].Text != "b b" {
		t.Errorf("got %q", texts(got))
	}
}

// §10.2: an empty builder accepts an oversized element; §10.4/§10.5 then split it.
func TestOversizedElementSplit(t *testing.T) {
	in := []element.Element{nt("short"), nt("one two three four five six seven eight"), nt("tail")}
	got := mustChunk(t, in, opts("basic", 15))
	want := []string{"short", "one two three", "four five six", "seven eight", "tail"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Fatalf("got %q, want %q", texts(got), want)
	}
	for i, w := range []bool{false, false, true, true, false} {
		if got[i].Metadata.IsContinuation != w {
			t.Errorf("chunk %d is_continuation = %v", i, got[i].Metadata.IsContinuation)
		}
	}
}

// §10.2: by_title starts a section at every Title.
func TestByTitleBoundary(t *testing.T) {
	in := []element.Element{ti("A"), nt("a1"), ti("B"), nt("b1")}
	o := opts("by_title", 100)
	o.CombineTextUnderNChars = ip(0)
	got := mustChunk(t, in, o)
	want := []string{"A\n\na1", "B\n\nb1"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("got %q, want %q", texts(got), want)
	}
}

// §10.2: with multipage_sections=false a page change is a boundary; no number continues the
// page, any different number (even a smaller one) starts a new one; the first element sets it.
func TestByTitlePageBoundary(t *testing.T) {
	in := []element.Element{
		onPage(nt("p3"), 3), nt("none"), onPage(nt("p3b"), 3), onPage(nt("p2"), 2), onPage(nt("p2b"), 2),
	}
	o := opts("by_title", 100)
	o.CombineTextUnderNChars = ip(0)
	o.MultipageSections = false
	got := mustChunk(t, in, o)
	want := []string{"p3\n\nnone\n\np3b", "p2\n\np2b"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("got %q, want %q", texts(got), want)
	}
	o.MultipageSections = true
	if got := mustChunk(t, in, o); len(got) != 1 {
		t.Errorf("multipage_sections=true: got %q", texts(got))
	}
	// A first element without a page number means page 1.
	in2 := []element.Element{nt("x"), onPage(nt("y"), 1), onPage(nt("z"), 2)}
	o.MultipageSections = false
	want = []string{"x\n\ny", "z"}
	if got := mustChunk(t, in2, o); !reflect.DeepEqual(texts(got), want) {
		t.Errorf("got %q, want %q", texts(got), want)
	}
}

// §10.3: by_title combines small sections while the accumulated text is below the threshold
// and the combined text fits the hard max; combine=0 turns it off.
func TestByTitleCombine(t *testing.T) {
	in := []element.Element{ti("A"), nt("aaaa"), ti("B"), nt("bbbb"), ti("C"), nt("cccccccccc")}
	// Sections: "A\n\naaaa" (7), "B\n\nbbbb" (7), "C\n\ncccccccccc" (13).
	o := opts("by_title", 20)
	got := mustChunk(t, in, o) // default combine = 20: 7+2+7 = 16 ≤ 20, +2+13 > 20
	want := []string{"A\n\naaaa\n\nB\n\nbbbb", "C\n\ncccccccccc"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("default combine: got %q, want %q", texts(got), want)
	}
	o.CombineTextUnderNChars = ip(7) // 7 is not < 7: no combining
	if got := mustChunk(t, in, o); len(got) != 3 {
		t.Errorf("combine=7: got %q", texts(got))
	}
	o.CombineTextUnderNChars = ip(8)
	if got := mustChunk(t, in, o); len(got) != 2 {
		t.Errorf("combine=8: got %q", texts(got))
	}
	o.CombineTextUnderNChars = ip(0)
	if got := mustChunk(t, in, o); len(got) != 3 {
		t.Errorf("combine=0: got %q", texts(got))
	}
}

// §10.3: basic never combines.
func TestBasicNoCombine(t *testing.T) {
	in := []element.Element{nt("a"), ti("b")}
	o := opts("basic", 100)
	o.NewAfterNChars = ip(0)
	if got := mustChunk(t, in, o); len(got) != 2 {
		t.Errorf("got %q", texts(got))
	}
}

// §10.4: texts are whitespace-collapsed and joined by a blank line, empty texts skipped,
// CodeSnippet kept verbatim, text-less pre-chunks dropped.
func TestChunkText(t *testing.T) {
	in := []element.Element{
		nt("  a \t b\n c  "), el(element.PageBreak, ""), el(element.CodeSnippet, "x :=  1\n\ty"),
	}
	got := mustChunk(t, in, opts("basic", 100))
	if len(got) != 1 || got[0].Text != "a b c\n\nx :=  1\n\ty" {
		t.Errorf("got %q", texts(got))
	}
	o := opts("basic", 100)
	o.NewAfterNChars = ip(0)
	in = []element.Element{el(element.PageBreak, ""), el(element.Image, "")}
	if got := mustChunk(t, in, o); len(got) != 0 {
		t.Errorf("text-less elements gave %q", texts(got))
	}
}

// §10.5: newline is preferred to space; pieces are trimmed; the overlap is the piece's last
// overlap-1 characters plus a space; without separators the cut is positional.
func TestSplitter(t *testing.T) {
	cases := []struct {
		s        string
		max, ovl int
		want     []string
	}{
		{"abc def\nghi jkl", 12, 0, []string{"abc def", "ghi jkl"}},
		{"abc def ghi jkl", 12, 0, []string{"abc def ghi", "jkl"}},
		{"abcdefghij", 4, 0, []string{"abcd", "efgh", "ij"}},
		{"abcdefghij", 4, 1, []string{"abcd", "defg", "ghij"}},
		// Golden example (M=150, O=20): 19 tail characters plus a space.
		{strings.Repeat("x", 100) + " of title 11 of the United States Code.", 130, 20,
			[]string{strings.Repeat("x", 100) + " of title 11 of the United", "le 11 of the United States Code."}},
		// A separator inside the overlap window is not used.
		{"ab cdefghijkl", 6, 3, []string{"ab cde", "cdefgh", "fghijk", "ijkl"}},
		// Multi-byte characters are counted as characters.
		{"ééé ééé ééé", 7, 0, []string{"ééé ééé", "ééé"}},
	}
	for _, c := range cases {
		got := splitter{max: c.max, overlap: c.ovl}.splitAll(c.s)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("split(%q, %d, %d) = %q, want %q", c.s, c.max, c.ovl, got, c.want)
		}
	}
}

// §10.2: with overlap_all, the next pre-chunk starts with the tail of the previous one.
func TestOverlapAll(t *testing.T) {
	in := []element.Element{nt("alpha beta"), nt("gamma delta")}
	o := opts("basic", 20)
	o.Overlap = 4
	got := mustChunk(t, in, o)
	want := []string{"alpha beta", "gamma delta"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("without overlap_all: got %q", texts(got))
	}
	o.OverlapAll = true
	got = mustChunk(t, in, o)
	want = []string{"alpha beta", "beta\n\ngamma delta"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("overlap_all: got %q, want %q", texts(got), want)
	}
	// The prefix counts against the window like any text: an element that does not fit after
	// it still starts the pre-chunk, which is then text-split (the reference does the same).
	o.MaxCharacters = ip(15)
	got = mustChunk(t, in, o)
	want = []string{"alpha beta", "beta", "eta gamma delta"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("overlap_all, small window: got %q, want %q", texts(got), want)
	}
}

// §10.2: no overlap is carried into or out of a table.
func TestOverlapSkipsTables(t *testing.T) {
	tbl := el(element.Table, "t1 t2")
	in := []element.Element{nt("alpha beta"), tbl, nt("gamma")}
	o := opts("basic", 100)
	o.Overlap, o.OverlapAll = 4, true
	got := mustChunk(t, in, o)
	want := []string{"alpha beta", "t1 t2", "gamma"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("got %q, want %q", texts(got), want)
	}
}

// §10.2, §10.7: tables are isolated from neighbouring text in every strategy.
func TestTableIsolation(t *testing.T) {
	in := []element.Element{ti("T"), nt("a"), el(element.Table, "c1 c2"), nt("b")}
	for _, s := range []string{"basic", "by_title", "by_page", "by_similarity"} {
		o := opts(s, 500)
		o.Embedder = constEmbedder{}
		got := mustChunk(t, in, o)
		var types []element.Type
		for _, e := range got {
			types = append(types, e.Type)
		}
		if len(got) != 3 || got[1].Type != element.Table || got[1].Text != "c1 c2" {
			t.Errorf("%s: got %v %q", s, types, texts(got))
		}
	}
}

// §10.6: metadata consolidation strategies.
func TestConsolidation(t *testing.T) {
	a := nt("a")
	a.ID = "id-a"
	a.Metadata = element.Metadata{
		Languages: []string{"eng"}, EmphasizedTextContents: []string{"a"}, EmphasizedTextTags: []string{"b"},
		LinkTexts: []string{"l1"}, LinkURLs: []string{"u1"}, CategoryDepth: ip(1),
		Coordinates: &element.Coordinates{System: "PixelSpace"}, Links: []element.Link{{Text: "x"}},
		HeaderFooterType: "primary", Extra: map[string][]byte{"data_source": []byte(`{"url":"x"}`), "custom": []byte(`1`)},
	}
	b := onPage(nt("b"), 4)
	b.ID = "id-b"
	b.Metadata.ParentID = "id-a"
	b.Metadata.Filename = "f.txt"
	b.Metadata.Languages = []string{"fra", "eng"}
	b.Metadata.EmphasizedTextContents = []string{"b"}
	b.Metadata.EmphasizedTextTags = []string{"i"}
	b.Metadata.SentFrom = []string{"x@y"}
	got := mustChunk(t, []element.Element{a, b}, opts("basic", 100))
	if len(got) != 1 {
		t.Fatalf("got %q", texts(got))
	}
	m := got[0].Metadata
	want := element.Metadata{
		Filename: "f.txt", PageNumber: ip(4), Languages: []string{"eng", "fra"},
		EmphasizedTextContents: []string{"a", "b"}, EmphasizedTextTags: []string{"b", "i"},
		LinkTexts: []string{"l1"}, LinkURLs: []string{"u1"}, SentFrom: []string{"x@y"},
		Extra: map[string][]byte{"data_source": []byte(`{"url":"x"}`)},
	}
	orig := m.OrigElements
	m.OrigElements = nil
	if !reflect.DeepEqual(m, want) {
		t.Errorf("metadata\n got %+v\nwant %+v", m, want)
	}
	// §6.6 / §6.3: orig_elements are the source elements with random UUIDs, parent remapped.
	if len(orig) != 2 || orig[0].Text != "a" || orig[1].Text != "b" {
		t.Fatalf("orig_elements %v", orig)
	}
	for _, e := range orig {
		if _, err := uuid.Parse(e.ID); err != nil || len(e.ID) != 36 {
			t.Errorf("orig element ID %q is not a UUID", e.ID)
		}
	}
	if orig[1].Metadata.ParentID != orig[0].ID {
		t.Errorf("parent_id %q not remapped to %q", orig[1].Metadata.ParentID, orig[0].ID)
	}
	if orig[0].Metadata.CategoryDepth == nil || orig[0].Metadata.Coordinates == nil {
		t.Error("orig elements must keep their own metadata")
	}
	// include_orig_elements=false
	o := opts("basic", 100)
	o.IncludeOrigElements = false
	if got := mustChunk(t, []element.Element{a, b}, o); got[0].Metadata.OrigElements != nil {
		t.Error("orig_elements present with include_orig_elements=false")
	}
}

// §6.6: nested chunks lose their own orig_elements (no recursion) and the same source
// element keeps one ID across the chunks it is split into.
func TestOrigElementsNoRecursionAndStableIDs(t *testing.T) {
	inner := nt("inner")
	chunk := el(element.CompositeElement, "one two three four five six")
	chunk.Metadata.OrigElements = []element.Element{inner}
	got := mustChunk(t, []element.Element{chunk}, opts("basic", 10))
	if len(got) < 2 {
		t.Fatalf("got %q", texts(got))
	}
	id := got[0].Metadata.OrigElements[0].ID
	for _, c := range got {
		o := c.Metadata.OrigElements
		if len(o) != 1 || o[0].Metadata.OrigElements != nil || o[0].ID != id {
			t.Errorf("orig_elements %+v", o)
		}
	}
	if chunk.Metadata.OrigElements == nil {
		t.Error("input was modified")
	}
}

// by_page (§10.9): a chunk never holds text from two pages; overlap and soft max still apply.
func TestByPage(t *testing.T) {
	in := []element.Element{onPage(ti("A"), 1), onPage(nt("a"), 1), nt("cont"), onPage(nt("b"), 2), onPage(ti("B"), 2)}
	got := mustChunk(t, in, opts("by_page", 100))
	want := []string{"A\n\na\n\ncont", "b\n\nB"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("got %q, want %q", texts(got), want)
	}
	if *got[1].Metadata.PageNumber != 2 {
		t.Errorf("page %d", *got[1].Metadata.PageNumber)
	}
}

// §10.5 at scale: splitting a very long element must stay linear (the remainder is never
// copied), or a 1 MB paragraph with a small window would take minutes.
func TestLongElementSplitsInLinearTime(t *testing.T) {
	long := strings.Repeat("lorem ipsum dolor sit amet ", 40000) // ~1.1 MB
	o := opts("basic", 100)
	o.Overlap = 10
	o.IncludeOrigElements = false
	got := mustChunk(t, []element.Element{nt(long), nt(strings.Repeat("x", 300000))}, o)
	if len(got) < 10000 {
		t.Errorf("only %d chunks", len(got))
	}
	for _, c := range got {
		if runeLen(c.Text) > 100 {
			t.Fatalf("chunk of %d characters", runeLen(c.Text))
		}
	}
}

// Chunk honours cancellation instead of finishing a long run.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := make([]element.Element, 5000)
	for i := range in {
		in[i] = nt("text")
	}
	for _, s := range []string{"basic", "by_similarity"} {
		if _, err := Chunk(ctx, in, opts(s, 100)); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v", s, err)
		}
	}
}
