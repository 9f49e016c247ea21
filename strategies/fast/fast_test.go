package fast

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

const refDocs = "../../testdata/reference/docs"

func partitionFile(t testing.TB, path string, mutate func(*engine.Options)) ([]element.Element, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := engine.NewDocument(filepath.Base(path), data)
	doc.MIMEType = "application/pdf"
	opts := engine.DefaultOptions()
	opts.Strategy = "fast"
	if mutate != nil {
		mutate(&opts)
	}
	var out []element.Element
	err = Partition(ctx0(opts), doc, opts.Keys(), func(e element.Element) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// cct is the clean concatenated text of elements (partition-api.md §12.1).
func cct(els []element.Element) string {
	var parts []string
	for _, e := range els {
		if e.Text != "" {
			parts = append(parts, e.Text)
		}
	}
	return strings.Join(parts, "\n")
}

var quoteRepl = strings.NewReplacer("\u201c", "\"", "\u201d", "\"", "\u201e", "\"", "\u201f", "\"", "«", "\"", "»", "\"",
	"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'")

// accuracy is the reference's CCT accuracy with weights (1,1,1) (§12.2).
func accuracy(output, source string) float64 {
	norm := func(s string) []rune {
		return []rune(quoteRepl.Replace(strings.Join(strings.Fields(s), " ")))
	}
	o, s := norm(output), norm(source)
	if len(s) == 0 {
		return 0
	}
	prev := make([]int, len(s)+1)
	cur := make([]int, len(s)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(o); i++ {
		cur[0] = i
		for j := 1; j <= len(s); j++ {
			c := prev[j-1]
			if o[i-1] != s[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	d := float64(prev[len(s)]) / float64(len(s))
	return 1 - min(max(d, 0), 1)
}

func TestMultiColumnCCT(t *testing.T) {
	els, err := partitionFile(t, filepath.Join(refDocs, "multi-column-2p.pdf"), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../testdata/reference/expected/head/local-single-file-chunk-no-orig-elements/multi-column-2p.pdf.json")
	if err != nil {
		t.Fatal(err)
	}
	var gold []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &gold); err != nil {
		t.Fatal(err)
	}
	var gparts []string
	for _, g := range gold {
		gparts = append(gparts, g.Text)
	}
	acc := accuracy(cct(els), strings.Join(gparts, "\n"))
	t.Logf("multi-column-2p.pdf: %d elements, CCT accuracy %.3f", len(els), acc)
	if acc < 0.97 {
		t.Errorf("CCT accuracy %.3f < 0.97", acc)
	}
}

func TestPageBreaks(t *testing.T) {
	els, err := partitionFile(t, filepath.Join(refDocs, "layout-parser-paper-fast.pdf"), func(o *engine.Options) {
		o.IncludePageBreaks = true
	})
	if err != nil {
		t.Fatal(err)
	}
	breaks, pages := 0, map[int]bool{}
	for _, e := range els {
		if e.Type == element.PageBreak {
			breaks++
		} else if e.Metadata.PageNumber != nil {
			pages[*e.Metadata.PageNumber] = true
		}
	}
	if len(els) == 0 || els[len(els)-1].Type != element.PageBreak {
		t.Fatalf("last element is not a PageBreak")
	}
	if breaks != 2 || !pages[1] || !pages[2] {
		t.Errorf("breaks=%d pages=%v, want 2 breaks and pages 1 and 2", breaks, pages)
	}
}

func TestReadable(t *testing.T) {
	for _, tc := range []struct {
		file     string
		minChars int
	}{
		{"copy-protected.pdf", 1000},
		{"list-item-example.pdf", 100},
		{"loremipsum-flat.pdf", 0},
	} {
		els, err := partitionFile(t, filepath.Join(refDocs, tc.file), nil)
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		n := len(cct(els))
		if tc.minChars == 0 && n != 0 {
			t.Errorf("%s: %d characters, want none (no text layer)", tc.file, n)
		}
		if n < tc.minChars {
			t.Errorf("%s: %d characters, want ≥ %d", tc.file, n, tc.minChars)
		}
	}
}

func TestErrors(t *testing.T) {
	for file, want := range map[string]string{
		"failing-encrypted.pdf":     "File is encrypted. Please decrypt it with password.",
		"failing-invalid.pdf":       "File does not appear to be a valid PDF. Error: ",
		"failing-missing-root.pdf":  "File does not appear to be a valid PDF. Error: ",
		"failing-missing-pages.pdf": "File does not appear to be a valid PDF. Error: ",
	} {
		_, err := partitionFile(t, filepath.Join(refDocs, "errors", file), nil)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable || !strings.HasPrefix(ee.Msg, want) {
			t.Errorf("%s: got %v, want 422 %q", file, err, want)
		}
	}
}

func TestErrorReasons(t *testing.T) {
	for _, f := range []string{"failing-invalid.pdf", "failing-missing-root.pdf", "failing-missing-pages.pdf"} {
		_, err := partitionFile(t, filepath.Join(refDocs, "errors", f), nil)
		t.Logf("%s: %v", f, err)
	}
}

// A list drawn with ZapfDingbats bullets (pdf/testdata/dingbats-list.pdf: ■ ■ ➢ then ✔ ✘ before
// Helvetica text) reads as characters, never "(cid:N)", and a line opening with a square or
// arrow bullet is a list item; check marks stay in the text.
func TestDingbatsBullets(t *testing.T) {
	els, err := partitionFile(t, "../../pdf/testdata/dingbats-list.pdf", nil)
	if err != nil {
		t.Fatal(err)
	}
	text := cct(els)
	if strings.Contains(text, "(cid:") {
		t.Errorf("dingbats unread: %q", text)
	}
	for _, want := range []string{"➢ Send the final report", "✔ Budget approved", "✘ Hiring freeze lifted"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	var items []string
	for _, e := range els {
		if e.Type == element.ListItem {
			items = append(items, e.Text)
		}
	}
	if len(items) == 0 || !strings.HasPrefix(items[0], "Collect the signed contracts") {
		t.Errorf("list items %q, want one starting with the first bullet's text", items)
	}
}
