// Package goldentest compares partition output with the reference system's goldens for the
// office-format tests: exact comparison on the fields a golden carries (partition-api.md §13),
// and the reference's CCT accuracy and element-type frequency metrics (§12) for goldens that
// predate current behaviour.
package goldentest

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/quarrydocs/quarry/element"
)

// Load reads a golden element list.
func Load(path string) ([]element.Element, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []element.Element
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

func asMap(e element.Element) map[string]any {
	data, err := json.Marshal(e)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	return m
}

// Diff compares got with want element by element on type, element_id, text and every
// metadata key want carries except those in ignore (data_source is always ignored). It returns
// one line per difference and the number of elements that matched exactly.
func Diff(want, got []element.Element, ignore ...string) (diffs []string, exact int) {
	skip := map[string]bool{"data_source": true}
	for _, k := range ignore {
		skip[k] = true
	}
	n := max(len(want), len(got))
	for i := range n {
		if i >= len(want) {
			diffs = append(diffs, fmt.Sprintf("#%d extra %s %q", i, got[i].Type, trunc(got[i].Text)))
			continue
		}
		if i >= len(got) {
			diffs = append(diffs, fmt.Sprintf("#%d missing %s %q", i, want[i].Type, trunc(want[i].Text)))
			continue
		}
		w, g := asMap(want[i]), asMap(got[i])
		var d []string
		for _, k := range []string{"type", "element_id", "text"} {
			if skip[k] {
				continue
			}
			if !reflect.DeepEqual(w[k], g[k]) {
				d = append(d, fmt.Sprintf("%s: want %v got %v", k, trunc(fmt.Sprint(w[k])), trunc(fmt.Sprint(g[k]))))
			}
		}
		wm, _ := w["metadata"].(map[string]any)
		gm, _ := g["metadata"].(map[string]any)
		keys := make([]string, 0, len(wm))
		for k := range wm {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if skip[k] {
				continue
			}
			if !reflect.DeepEqual(wm[k], gm[k]) {
				d = append(d, fmt.Sprintf("metadata.%s: want %v got %v", k, trunc(fmt.Sprint(wm[k])), trunc(fmt.Sprint(gm[k]))))
			}
		}
		if len(d) == 0 {
			exact++
			continue
		}
		diffs = append(diffs, fmt.Sprintf("#%d %s %q: %s", i, want[i].Type, trunc(want[i].Text), strings.Join(d, "; ")))
	}
	return diffs, exact
}

func trunc(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// CCT is the clean concatenated text of elements: non-empty texts joined by newlines.
func CCT(elems []element.Element) string {
	var parts []string
	for _, e := range elems {
		if e.Text != "" {
			parts = append(parts, e.Text)
		}
	}
	return strings.Join(parts, "\n")
}

var quoteMap = func() map[rune]rune {
	m := map[rune]rune{}
	for _, r := range "\"\u201c\u201d\u201e\u201f«»❝❞⹂🙶🙷🙸⠦⠴〝〞〟＂" {
		m[r] = '"'
	}
	for _, r := range "'\u2018\u2019\u201a\u201b‹›❛❜「」『』﹁﹂﹃﹄＇｢｣" {
		m[r] = '\''
	}
	return m
}()

func normalize(s string) []rune {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	out := []rune(s)
	for i, r := range out {
		if q, ok := quoteMap[r]; ok {
			out[i] = q
		}
	}
	return out
}

// Accuracy is the reference's batch-evaluator CCT accuracy of output against source (§12.2,
// weights 1,1,1, byte-size ratio guard), rounded to 3 decimals.
func Accuracy(output, source string) float64 {
	if len(source) > 0 {
		ratio := float64(len(output)) / float64(len(source))
		if ratio <= 0.5 || ratio >= 2.0 {
			return 0.01
		}
	}
	a, b := normalize(output), normalize(source)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	d := float64(prev[len(b)]) / float64(max(len(b), 1))
	return round3(1 - min(max(d, 0), 1))
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

// TypeFrequency is the reference's element-type frequency score of output against source
// (§12.4). Depths are compared only when the source carries them: goldens whose producer
// removed category_depth are matched on type alone.
func TypeFrequency(output, source []element.Element) float64 {
	if len(output) == 0 || len(source) == 0 {
		return 0
	}
	srcDepth := false
	for _, e := range source {
		if e.Metadata.CategoryDepth != nil {
			srcDepth = true
		}
	}
	type key struct {
		t string
		d int
	}
	count := func(es []element.Element) map[key]int {
		m := map[key]int{}
		for _, e := range es {
			k := key{string(e.Type), -1}
			if srcDepth && e.Metadata.CategoryDepth != nil {
				k.d = *e.Metadata.CategoryDepth
			}
			m[k]++
		}
		return m
	}
	o, s := count(output), count(source)
	matched, total := 0.0, 0.0
	for k, sv := range s {
		m := min(sv, o[k])
		matched += float64(m)
		total += float64(m)
		s[k] -= m
		o[k] -= m
	}
	lo, ls := map[string]int{}, map[string]int{}
	for k, v := range o {
		lo[k.t] += v
	}
	for k, v := range s {
		ls[k.t] += v
	}
	for t, v := range ls {
		total += float64(v)
		matched += 0.5 * float64(min(lo[t], v))
	}
	if total == 0 {
		return 0
	}
	return round3(min(max(matched/total, 0), 1))
}
