package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

// The reference's own test vectors for the standalone accuracy (weights 2, 1, 1).
func TestAccuracyReferenceVectors(t *testing.T) {
	source := "I like pizza. I like bagels."
	cases := []struct {
		output string
		want   float64
	}{
		{"I like pizza. I like bagels.", 1.00},
		{"I like p i z z a . I like bagles.", 0.75},
		{"I l i k e p i z z a . I l i k e b a g e l s .", 0.39},
		{"Ilikepizza.Ilikebagels.", 0.64},
		{"I like pizza.", 0.00},
		{"I like pizza. I like .", 0.57},
		{"I like pizza. I like beagles.", 0.89},
		{"I like pizza pizza. I like bagels.", 0.79},
		{"I   like pizza.\n\nI like bagels.", 1.00},
	}
	for _, c := range cases {
		got := math.Round(Accuracy(c.output, source, DefaultWeights)*100) / 100
		if got != c.want {
			t.Errorf("Accuracy(%q) = %.2f, want %.2f", c.output, got, c.want)
		}
	}
}

func TestBitParallelMatchesDP(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abcdeé ")
	gen := func(n int) []rune {
		s := make([]rune, n)
		for i := range s {
			s[i] = alphabet[r.IntN(len(alphabet))]
		}
		return s
	}
	for i := 0; i < 300; i++ {
		a, b := gen(r.IntN(200)), gen(r.IntN(200))
		if got, want := levenshteinBits(a, b), levenshteinDP(a, b, UnitWeights); got != want {
			t.Fatalf("case %d: bits=%d dp=%d for %q / %q", i, got, want, string(a), string(b))
		}
	}
}

func TestPercentMissing(t *testing.T) {
	cases := []struct {
		output, source string
		want           float64
	}{
		{"the quick brown fox", "the quick brown fox", 0},
		{"the quick fox", "the quick brown fox", 0.25},
		{"", "h e l l o world", 0}, // a spaced-out word is not counted; "world" is missing
		{"extra words the quick brown fox fox", "the quick brown fox", 0},
		{"anything", "", 0},
	}
	cases[2].want = 1
	for _, c := range cases {
		if got := PercentMissing(c.output, c.source); got != c.want {
			t.Errorf("PercentMissing(%q, %q) = %v, want %v", c.output, c.source, got, c.want)
		}
	}
}

func TestTypeAccuracy(t *testing.T) {
	el := func(typ element.Type, depth int) element.Element {
		e := element.Element{Type: typ}
		if depth >= 0 {
			e.Metadata.CategoryDepth = element.Int(depth)
		}
		return e
	}
	source := []element.Element{el("Title", 0), el("Title", 1), el("NarrativeText", -1), el("NarrativeText", -1)}
	output := []element.Element{el("Title", 0), el("Title", 2), el("NarrativeText", -1), el("ListItem", -1)}
	// Exact: Title/0 and one NarrativeText = 2; leftover Title at half weight = 0.5; total 4.
	if got := TypeAccuracy(output, source); got != 2.5/4 {
		t.Errorf("TypeAccuracy = %v, want %v", got, 2.5/4)
	}
	if got := TypeAccuracy(source, source); got != 1 {
		t.Errorf("identical lists score %v", got)
	}
	if got := TypeAccuracy(nil, source); got != 0 {
		t.Errorf("empty output scores %v", got)
	}
}
