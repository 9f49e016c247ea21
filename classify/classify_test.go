package classify

import (
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

func TestText(t *testing.T) {
	cases := []struct {
		in, text string
		want     element.Type
	}{
		{"Doylestown, PA 18901", "Doylestown, PA 18901", element.Address},
		{"New York, NY 10001-1234", "New York, NY 10001-1234", element.Address},
		{"Important points:", "Important points:", element.Title},
		{"This is a test document to use for unit tests.", "This is a test document to use for unit tests.", element.NarrativeText},
		// "this" before a verb is a pronoun, not an article turning "is" into a noun.
		{"This is a short paragraph about the platform.", "This is a short paragraph about the platform.", element.NarrativeText},
		{"• Send in your taxes", "Send in your taxes", element.ListItem},
		{"- dash item", "dash item", element.ListItem},
		{"➢ Review the quarterly figures", "Review the quarterly figures", element.ListItem},
		{"✔ Approved by the board of directors.", "✔ Approved by the board of directors.", element.NarrativeText},
		{"1. Introduction to the topic", "1. Introduction to the topic", element.ListItem},
		{"john.doe@example.com", "john.doe@example.com", element.EmailAddress},
		{"2024", "2024", element.UncategorizedText},
		{"To My Dearest Friends,", "To My Dearest Friends,", element.UncategorizedText},
		{"ITEM 1A. RISK FACTORS", "ITEM 1A. RISK FACTORS", element.Title},
	}
	for _, c := range cases {
		typ, text := Text(c.in)
		if typ != c.want || text != c.text {
			t.Errorf("Text(%q) = %s %q, want %s %q", c.in, typ, text, c.want, c.text)
		}
	}
}

func TestPredicates(t *testing.T) {
	bullets := map[string]bool{"• x": true, "●x": true, "-- x": false, "x": false, "  * item": true, "·": true,
		// Dingbat bullets start a list item when a space follows; marks that say something do not.
		"■ Revenue grew": true, "➢ Next step": true, "❖\tOption": true, "■■■": false, "▶Play": false, "✓ Done": false, "✗ No": false}
	for in, want := range bullets {
		if got := IsBulleted(in); got != want {
			t.Errorf("IsBulleted(%q) = %v", in, got)
		}
	}
	emails := map[string]bool{"a@b.com": true, "A@B.COM": false, "a@b": false, "x a@b.com": false, "a@b.com is mine": true, "@b.com": false}
	for in, want := range emails {
		if got := IsEmailAddress(in); got != want {
			t.Errorf("IsEmailAddress(%q) = %v", in, got)
		}
	}
	addrs := map[string]bool{
		"Doylestown, PA 18901":           true,
		"doylestown, pa 18901":           true,
		"Washington, DC 20001":           true,
		"Springfield, Illinois 62701":    true,
		"Montgomery, Alabama 36104":      false, // reference quirk: "{Alabama"
		"Doylestown,PA 18901":            true,
		"Doylestown, PA18901":            false,
		"Doylestown, PA 189011":          false,
		"A, PA 18901":                    false,
		"Salt Lake City, UT 84101 extra": true,
		"Nowhere":                        false,
	}
	for in, want := range addrs {
		if got := IsUSAddress(in); got != want {
			t.Errorf("IsUSAddress(%q) = %v", in, got)
		}
	}
	numbered := map[string]bool{"1. x": true, "12) y": true, "1.x": false, "a. x": false, "1.": false}
	for in, want := range numbered {
		if got := IsNumberedListItem(in); got != want {
			t.Errorf("IsNumberedListItem(%q) = %v", in, got)
		}
	}
}

func TestSentences(t *testing.T) {
	cases := map[string]int{
		"One sentence here.":                          1,
		"Dr. Smith went home. He slept.":              2,
		"The value is 3.5 today. Yes it is.":          2,
		"J. R. R. Tolkien wrote books.":               1,
		"Really? Yes! Ok.":                            3,
		"No terminal punctuation":                     1,
		"The U.S. economy grew. Prices rose sharply.": 2,
	}
	for in, want := range cases {
		if got := len(Sentences(in)); got != want {
			t.Errorf("Sentences(%q) = %q", in, Sentences(in))
		}
	}
}

func TestVariants(t *testing.T) {
	cases := []struct {
		in        string
		paragraph element.Type
		slide     element.Type
	}{
		{"Important points:", element.UncategorizedText, element.Title},
		{"This is a test document to use for unit tests.", element.NarrativeText, element.NarrativeText},
		{"• bullet point", element.ListItem, element.ListItem},
		{"Doylestown, PA 18901", element.Address, element.Title},
		{"jane@example.org", element.EmailAddress, element.EmailAddress},
		{"1. Numbers are not list items here", element.NarrativeText, element.NarrativeText},
	}
	for _, c := range cases {
		if got, _ := Paragraph(c.in); got != c.paragraph {
			t.Errorf("Paragraph(%q) = %s, want %s", c.in, got, c.paragraph)
		}
		if got, _ := Slide(c.in); got != c.slide {
			t.Errorf("Slide(%q) = %s, want %s", c.in, got, c.slide)
		}
	}
}

func TestContainsVerb(t *testing.T) {
	cases := map[string]bool{
		"Important points":              false,
		"Table of Contents":             false,
		"The company reported earnings": true,
		"WE ARE HIRING":                 true,
		"They run every day":            true,
		"the long run":                  false,
		"I want to run":                 true,
		"It's raining":                  true,
	}
	for in, want := range cases {
		if got := ContainsVerb(in); got != want {
			t.Errorf("ContainsVerb(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzText checks that no input makes the classifier panic and that the returned text is a
// substring of the input.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "•", "a@b.c", "Doylestown, PA 18901", "1) x", "\xff\xfe", "- - -", strings.Repeat("Ab ", 200) + ", NY 12345"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, text := Text(s)
		if !strings.Contains(s, text) {
			t.Errorf("Text(%q) returned %q, not part of the input", s, text)
		}
		Paragraph(s)
		Slide(s)
	})
}
