package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/quarrydocs/quarry/api/schema"
)

var quotedChoice = regexp.MustCompile(`'([^']+)'`)

// valueSuggestion is "; did you mean --strategy hi_res?" for a mistyped choice (strategy=hires),
// from the choices the API's own error lists; "" when none is close.
func valueSuggestion(err error) string {
	var ve *schema.ValidationError
	if !errors.As(err, &ve) {
		return ""
	}
	for _, fe := range ve.Errors {
		in, ok := fe.Input.(string)
		expected, _ := fe.Ctx["expected"].(string)
		if fe.Type != "literal_error" || !ok || expected == "" || len(fe.Loc) == 0 {
			continue
		}
		var choices []string
		for _, m := range quotedChoice.FindAllStringSubmatch(expected, -1) {
			choices = append(choices, m[1])
		}
		if s := suggest(strings.ToLower(in), choices); s != "" {
			return fmt.Sprintf("; did you mean --%s %s?", fe.Loc[len(fe.Loc)-1], s)
		}
	}
	return ""
}

// suggest returns the candidate closest to name by edit distance, when it is close enough to
// be what was meant (at most a third of the name's length, and at least one edit allowed).
func suggest(name string, candidates []string) string {
	limit := max(1, len(name)/3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if len(c) <= 1 {
			continue // one-letter shorthands are never what a long name meant
		}
		// Dashes and underscores are the same to a typist.
		if d := editDistance(strings.ReplaceAll(name, "-", "_"), strings.ReplaceAll(c, "-", "_")); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance counting an adjacent swap as one edit, as typos go.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
