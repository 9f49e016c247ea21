// Package goldentest compares partition output with the reference system's goldens for the
// office-format tests: exact comparison on the fields a golden carries (partition-api.md §13),
// and the reference's CCT accuracy and element-type frequency metrics (§12) for goldens that
// predate current behaviour.
//
// It imports package testing, so it is for _test.go files only: a production import would link
// the test machinery into the binary (TestOnlyImports guards this).
package goldentest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/metrics"
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

// CCT is the clean concatenated text of elements (metrics.CCT).
func CCT(elems []element.Element) string { return metrics.CCT(elems) }

// Accuracy is the reference's batch-evaluator CCT accuracy (metrics.BatchAccuracy).
func Accuracy(output, source string) float64 { return metrics.BatchAccuracy(output, source) }

// TypeFrequency is the reference's element-type frequency score, depth-free for goldens
// without depths (metrics.GoldenTypeAccuracy), rounded to 3 decimals.
func TypeFrequency(output, source []element.Element) float64 {
	return metrics.Round3(metrics.GoldenTypeAccuracy(output, source))
}

// Snapshot compares out with Quarry's own snapshot at path (a regression golden), or rewrites
// it when update is set (the -update flag of the calling test). Languages are left out: they
// belong to the lang package, whose changes must not churn format snapshots.
func Snapshot(t testing.TB, path string, out []element.Element, update bool) {
	t.Helper()
	out = append([]element.Element(nil), out...)
	for i := range out {
		out[i].Metadata.Languages = nil
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, element.MarshalList(out), "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	var a, b any
	_ = json.Unmarshal(pretty.Bytes(), &a)
	_ = json.Unmarshal(want, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("output differs from %s (run with -update and review the diff)", path)
	}
}

// Scored partitions docPath with the API's default options, loads the golden at goldenPath (a
// golden from an older library version), logs the CCT accuracy and element-type frequency and
// fails the test when the CCT accuracy is under minCCT. It returns both element lists for the
// caller's own checks.
func Scored(t testing.TB, partition contract.Func, docPath, goldenPath string, minCCT float64) (got, want []element.Element) {
	t.Helper()
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	if want, err = Load(goldenPath); err != nil {
		t.Fatal(err)
	}
	opts := engine.DefaultOptions()
	err = partition(t.Context(), contract.NewDocument(filepath.Base(docPath), data), opts.Keys(), func(e element.Element) error {
		got = append(got, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cct := Accuracy(CCT(got), CCT(want))
	t.Logf("%s: n=%d gold=%d cct=%.3f types=%.3f", filepath.Base(docPath), len(got), len(want), cct, TypeFrequency(got, want))
	if cct < minCCT {
		t.Errorf("CCT accuracy %.3f < %.2f", cct, minCCT)
	}
	return got, want
}

// CheckTypes fails the test unless got has exactly the element types want, in order.
func CheckTypes(t testing.TB, got []element.Element, want ...element.Type) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d elements, want %d", len(got), len(want))
	}
	for i, e := range got {
		if e.Type != want[i] {
			t.Errorf("#%d %q: %s, want %s", i, e.Text, e.Type, want[i])
		}
	}
}
