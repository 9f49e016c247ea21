package lang

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

func TestCodes(t *testing.T) {
	cases := []struct {
		in   []string
		want []string
	}{
		{[]string{"english"}, []string{"eng"}},
		{[]string{"en"}, []string{"eng"}},
		{[]string{"eng"}, []string{"eng"}},
		{[]string{"chinese"}, []string{"zho"}},
		{[]string{"chi_sim"}, []string{"zho"}},
		{[]string{"chi_tra", "zh"}, []string{"zho"}},
		{[]string{"german", "ger", "de", "deu"}, []string{"deu"}},
		{[]string{"fre"}, []string{"fra"}},
		{[]string{"spanish", "korean"}, []string{"spa", "kor"}},
		{[]string{`["eng"`, `"fra"]`}, []string{"eng", "fra"}},
		{[]string{"eng+deu"}, []string{"eng", "deu"}},
		{[]string{"ind", "est"}, []string{"ind", "est"}},
		{[]string{"xx", "auto"}, nil},
		{[]string{"ENG"}, []string{"eng"}},
	}
	for _, c := range cases {
		if got := Codes(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Codes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDetect(t *testing.T) {
	cases := map[string][]string{
		"Hello world": {"eng"},
		"":            nil,
		" \t\n\u00a0": nil,
		"One two three four five six seven, this is an English sentence about the weather today.":                             {"eng"},
		"Alle Menschen sind frei und gleich an Würde und Rechten geboren. Sie sind mit Vernunft und Gewissen begabt.":         {"deu"},
		"Tous les êtres humains naissent libres et égaux en dignité et en droits. Ils sont doués de raison et de conscience.": {"fra"},
		// langdetect (and so the reference) ranks Korean first on this short Chinese line.
		"人人生而自由,在尊严和权利上一律平等。": {"kor", "zho"},
		"Hola señor": nil,
		// A table of short English words that whatlanggo took for French.
		"Team Location Stanley Cups Blues STL 1 Flyers PHI 2 Maple Leafs TOR 13": {"eng"},
	}
	for in, want := range cases {
		got := Detect(in)
		if in == "Hola señor" {
			if len(got) != 1 { // non-ASCII: detection runs, whatever it finds
				t.Errorf("Detect(%q) = %q", in, got)
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Detect(%q) = %q, want %q", in, got, want)
		}
	}
}

func readGolden(t *testing.T, rel string) []element.Element {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "reference", "expected", rel))
	if err != nil {
		t.Fatal(err)
	}
	var elems []element.Element
	if err := json.Unmarshal(raw, &elems); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return elems
}

// checkGolden clears the golden's languages, re-applies them and compares.
func checkGolden(t *testing.T, rel string, requested []string) {
	t.Helper()
	elems := readGolden(t, rel)
	want := make([][]string, len(elems))
	for i := range elems {
		want[i] = elems[i].Metadata.Languages
		elems[i].Metadata.Languages = nil
	}
	Apply(elems, requested)
	bad := 0
	for i := range elems {
		if !reflect.DeepEqual(elems[i].Metadata.Languages, want[i]) {
			bad++
			if bad <= 5 {
				t.Errorf("%s[%d] %q: languages %q, want %q", rel, i, elems[i].Text, elems[i].Metadata.Languages, want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements differ", rel, bad, len(elems))
	}
}

func TestApplyGoldens(t *testing.T) {
	checkGolden(t, "head/local-single-file/UDHR_first_article_all.txt.json", []string{"ind", "est"})
	checkGolden(t, "head/gcs/fake-text.txt.json", nil)
	checkGolden(t, "api-2024/book-war-and-peace-1p.txt.json", nil)
	checkGolden(t, "ingest-assets-2024/fake-xml.xml.json", nil)
	// Elements 0-2 ["eng"], the <pre> block (German, French, Dutch) ["fra","nld"].
	checkGolden(t, "head/local-single-file-with-encoding/fake-html-cp1252.html.json", nil)
	checkGolden(t, "head/gcs/stanley-cups.xlsx.json", nil)
}

func TestApplyDisabledAndShortDocument(t *testing.T) {
	elems := []element.Element{{Text: "Hello"}, {Text: ""}}
	Apply(elems, []string{""})
	if elems[0].Metadata.Languages != nil {
		t.Errorf(`[""] must leave languages unset, got %q`, elems[0].Metadata.Languages)
	}
	Apply(elems, []string{"deu"})
	for _, e := range elems {
		if !reflect.DeepEqual(e.Metadata.Languages, []string{"eng"}) {
			t.Errorf("short ASCII document: got %q, want [eng]", e.Metadata.Languages)
		}
	}
}

func BenchmarkApply100k(b *testing.B) {
	line := "The quick brown fox jumps over the lazy dog near the river bank."
	elems := make([]element.Element, 100000)
	for i := range elems {
		elems[i].Text = line
	}
	b.ReportAllocs()
	for b.Loop() {
		Apply(elems, nil)
	}
}

// BenchmarkDetectSentence measures one full langdetect run (seven trials) on a sentence,
// the per-element cost when a document is multilingual.
func BenchmarkDetectSentence(b *testing.B) {
	s := "Tous les êtres humains naissent libres et égaux en dignité et en droits."
	Detect(s)
	b.ReportAllocs()
	for b.Loop() {
		Detect(s)
	}
}

// BenchmarkApplyMultilingual has every element detected on its own (the document-level pass
// finds two languages).
func BenchmarkApplyMultilingual(b *testing.B) {
	lines := []string{
		"The quick brown fox jumps over the lazy dog near the river bank.",
		"Tous les êtres humains naissent libres et égaux en dignité et en droits.",
	}
	elems := make([]element.Element, 1000)
	for i := range elems {
		elems[i].Text = lines[i%2]
	}
	b.ReportAllocs()
	for b.Loop() {
		Apply(elems, nil)
	}
}

// The document-level rules look at the whole document even though detection reads only its
// first megabyte.
func TestApplyDocumentRules(t *testing.T) {
	blank := []element.Element{{Text: " "}, {Text: ""}, {Text: "\n\t"}}
	Apply(blank, nil)
	for i, e := range blank {
		if e.Metadata.Languages != nil {
			t.Errorf("blank element %d: languages %q, want none", i, e.Metadata.Languages)
		}
	}
	// One ASCII word longer than the detection prefix, then a non-ASCII element: not short
	// ASCII as a whole, so langdetect runs (on "aaa…", which it takes for Somali).
	long := []element.Element{{Text: strings.Repeat("a", maxDocBytes+10)}, {Text: "été"}}
	Apply(long, nil)
	if got := long[0].Metadata.Languages; reflect.DeepEqual(got, []string{"eng"}) {
		t.Errorf("long document: languages %q; the short-ASCII rule must see the whole text", got)
	}
	// Four words spread over elements are still short.
	four := []element.Element{{Text: "Hello there"}, {Text: ""}, {Text: "dear world"}}
	Apply(four, nil)
	for _, e := range four {
		if !reflect.DeepEqual(e.Metadata.Languages, []string{"eng"}) {
			t.Errorf("four ASCII words: languages %q, want [eng]", e.Metadata.Languages)
		}
	}
}

// The stream decides as soon as 10,000 characters of detector text are fixed, and its answer is
// the one Apply gives on the whole document.
func TestStreamDecidesOnItsPrefix(t *testing.T) {
	para := "The committee reviewed the annual budget and approved the new spending plan for schools. "
	var texts []string
	for i := 0; i < 400; i++ {
		texts = append(texts, para)
	}
	texts = append(texts, "Der Ausschuss hat den Haushalt geprüft und den neuen Plan genehmigt.")
	s := NewStream([]string{"auto"})
	decidedAt := -1
	for i, tx := range texts {
		if s.Add(tx) && decidedAt < 0 {
			decidedAt = i
		}
	}
	if decidedAt < 0 || decidedAt > 10000/len(para)+2 {
		t.Fatalf("decided after element %d, want right after 10,000 characters (element %d)", decidedAt, 10000/len(para))
	}
	els := make([]element.Element, len(texts))
	for i := range els {
		els[i].Text = texts[i]
	}
	Apply(els, []string{"auto"})
	var e element.Element
	e.Text = texts[len(texts)-1]
	s.Assign(&e)
	if !reflect.DeepEqual(e.Metadata.Languages, els[len(els)-1].Metadata.Languages) || !reflect.DeepEqual(e.Metadata.Languages, []string{"eng"}) {
		t.Errorf("stream %v, Apply %v, want [eng]", e.Metadata.Languages, els[len(els)-1].Metadata.Languages)
	}
}

// Text whose 10,000th character lies in a run that a pattern is still reading (a word that an
// "@host" after it would make an e-mail address, removed from the text) is not final until
// more text shows where the run ends.
func TestStreamWaitsWhileAPatternIsOpen(t *testing.T) {
	words := strings.Repeat("Ein kurzer deutscher Satz über das Wetter. ", 300)
	head := string([]rune(words)[:9990])
	s := NewStream(nil)
	if s.Add(head + "abcdefghijklmnopqrstuvwxyz") {
		t.Fatal("decided while the text ended inside a possible e-mail address")
	}
	if !s.Add(words) {
		t.Fatal("not decided once the run was closed")
	}
	var e element.Element
	e.Text = "anything"
	s.Assign(&e)
	if !reflect.DeepEqual(e.Metadata.Languages, []string{"deu"}) {
		t.Errorf("languages %v, want [deu]", e.Metadata.Languages)
	}
}
