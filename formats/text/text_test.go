package text

import (
	"context"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

// run returns the element texts; grouping is under test here, classification is classify's.
func run(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	err := PartitionText(context.Background(), s, func(e element.Element) error {
		out = append(out, e.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGrouping(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"fewer than 10% blank lines: one paragraph per line",
			strings.Repeat("A line of the text is here.\n", 10) + "\nLast line.",
			append(strings.Split(strings.Repeat("A line of the text is here.\n", 10), "\n")[:10], "Last line.")},
		{"a short text ending in a newline counts the empty last line as blank",
			"One line of text is here.\nAnother line of text is here.\n",
			[]string{"One line of text is here. Another line of text is here."}},
		{"blank-line paragraphs are rejoined",
			"The quick brown fox jumps\nover the lazy dog today.\n\nAnother paragraph starts\nhere and it continues on.\n",
			[]string{"The quick brown fox jumps over the lazy dog today.", "Another paragraph starts here and it continues on."}},
		{"short lines stay separate",
			"Apache License\nVersion 2.0\n\nhttp://example.org\n",
			[]string{"Apache License", "Version 2.0", "http://example.org"}},
		{"bullet paragraph split per bullet",
			"• Hamburgers are\ndelicious\n• Dogs are the best\n\n",
			[]string{"Hamburgers are delicious", "Dogs are the best"}},
		{"hyphen splits a short paragraph, lone bullets dropped",
			"Awa-Cuaiquer\n\nText that is long enough to be joined here.\n\n",
			[]string{"Awa", "Cuaiquer", "Text that is long enough to be joined here."}},
		{"several dashes are text", "x y z w v\n\n------\n\n", []string{"x y z w v", "------"}},
	}
	for _, c := range cases {
		if got := run(t, c.in); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := PartitionReader(ctx, strings.NewReader(strings.Repeat("a b\n\n", 10)), func(element.Element) error { return nil })
	if err == nil {
		t.Error("cancelled context not honoured")
	}
}
