// Package conformance checks Quarry's output against the reference system's own outputs for
// its test documents (testdata/reference, copied byte-identical from shared/corpus/reference).
// Current, deterministic goldens must match element for element; older or model-dependent ones
// are scored with the reference's metrics (CCT accuracy, element-type frequency).
package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all"
	"github.com/quarrydocs/quarry/metrics"
)

const refDir = "../testdata/reference"

// A Case is one document, its golden and the parameters the golden was made with.
type Case struct {
	Doc    string              // file under docs/
	Golden string              // file under expected/
	Form   map[string][]string // partition parameters, as form fields
	// Exact cases must match every element on type, text, element_id and every metadata
	// field the golden carries (data_source aside). Others must reach the metric floors.
	Exact   bool
	MinCCT  float64
	MinType float64
	// Mask lists metadata keys not compared (documented per case).
	Mask []string
}

// Result is one row of the conformance table.
type Result struct {
	Case                 Case
	Elements, GoldCount  int
	ExactMatches         int
	CCT, Missing, TypeAc float64
	Err                  error
}

func loadGolden(path string) ([]map[string]any, []element.Element, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var raw []map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, nil, err
	}
	var elems []element.Element
	if err := json.Unmarshal(b, &elems); err != nil {
		return nil, nil, err
	}
	return raw, elems, nil
}

// Run partitions the case's document and scores it.
func Run(c Case) Result {
	r := Result{Case: c}
	data, err := os.ReadFile(filepath.Join(refDir, "docs", c.Doc))
	if err != nil {
		r.Err = err
		return r
	}
	opts, err := engine.OptionsFromForm(c.Form)
	if err != nil {
		r.Err = err
		return r
	}
	out, err := engine.Partition(context.Background(), engine.NewDocument(c.Doc, data), opts)
	if err != nil {
		r.Err = err
		return r
	}
	goldRaw, gold, err := loadGolden(filepath.Join(refDir, "expected", c.Golden))
	if err != nil {
		r.Err = err
		return r
	}
	r.Elements, r.GoldCount = len(out), len(gold)
	outCCT, goldCCT := metrics.CCT(out), metrics.CCT(gold)
	r.CCT = metrics.BatchAccuracy(outCCT, goldCCT)
	r.Missing = metrics.PercentMissing(outCCT, goldCCT)
	r.TypeAc = metrics.Round3(metrics.TypeAccuracy(out, gold))
	for i := 0; i < len(out) && i < len(goldRaw); i++ {
		if diff := compareElement(out[i], goldRaw[i], c.Mask); diff == "" {
			r.ExactMatches++
		}
	}
	return r
}

// compareElement returns "" when ours carries the golden's type, text, element_id and every
// metadata field of the golden (data_source and masked keys aside) with equal values.
func compareElement(ours element.Element, gold map[string]any, mask []string) string {
	b, _ := ours.MarshalJSON()
	var o map[string]any
	_ = json.Unmarshal(b, &o)
	for _, k := range []string{"type", "text", "element_id"} {
		if !reflect.DeepEqual(o[k], gold[k]) {
			return fmt.Sprintf("%s: got %s, want %s", k, clip(o[k]), clip(gold[k]))
		}
	}
	om, _ := o["metadata"].(map[string]any)
	gm, _ := gold["metadata"].(map[string]any)
	keys := make([]string, 0, len(gm))
	for k := range gm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "data_source" || contains(mask, k) {
			continue
		}
		if !reflect.DeepEqual(om[k], gm[k]) {
			return fmt.Sprintf("metadata.%s: got %s, want %s", k, clip(om[k]), clip(gm[k]))
		}
	}
	return ""
}

// clip renders a value for a failure message, cut to a readable length.
func clip(v any) string {
	s := fmt.Sprintf("%q", fmt.Sprint(v))
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func check(t *testing.T, cases []Case) {
	t.Helper()
	var rows []string
	rows = append(rows, fmt.Sprintf("%-34s %-6s %6s %6s %7s %6s %6s %6s", "document", "mode", "ours", "gold", "exact", "cct", "miss", "type"))
	for _, c := range cases {
		r := Run(c)
		mode := "metric"
		if c.Exact {
			mode = "exact"
		}
		if r.Err != nil {
			t.Errorf("%s: %v", c.Doc, r.Err)
			rows = append(rows, fmt.Sprintf("%-34s %-6s error: %v", c.Doc, mode, r.Err))
			continue
		}
		rows = append(rows, fmt.Sprintf("%-34s %-6s %6d %6d %7s %6.3f %6.3f %6.3f", c.Doc, mode, r.Elements, r.GoldCount,
			fmt.Sprintf("%d/%d", r.ExactMatches, r.GoldCount), r.CCT, r.Missing, r.TypeAc))
		if c.Exact {
			if r.Elements != r.GoldCount || r.ExactMatches != r.GoldCount {
				t.Errorf("%s: %d of %d golden elements match exactly (we produce %d)\n%s", c.Doc, r.ExactMatches, r.GoldCount, r.Elements, firstDiffs(c, 5))
			}
			continue
		}
		if r.CCT < c.MinCCT {
			t.Errorf("%s: CCT accuracy %.3f < %.3f", c.Doc, r.CCT, c.MinCCT)
		}
		if r.TypeAc < c.MinType {
			t.Errorf("%s: element-type accuracy %.3f < %.3f", c.Doc, r.TypeAc, c.MinType)
		}
	}
	t.Log("conformance:\n" + strings.Join(rows, "\n"))
}

// firstDiffs describes the first mismatching elements of a case, for failure messages.
func firstDiffs(c Case, n int) string {
	data, _ := os.ReadFile(filepath.Join(refDir, "docs", c.Doc))
	opts, _ := engine.OptionsFromForm(c.Form)
	out, err := engine.Partition(context.Background(), engine.NewDocument(c.Doc, data), opts)
	if err != nil {
		return err.Error()
	}
	goldRaw, _, _ := loadGolden(filepath.Join(refDir, "expected", c.Golden))
	var lines []string
	for i := 0; i < len(out) || i < len(goldRaw); i++ {
		if len(lines) >= n {
			break
		}
		switch {
		case i >= len(out):
			lines = append(lines, fmt.Sprintf("  [%d] missing: %v %q", i, goldRaw[i]["type"], goldRaw[i]["text"]))
		case i >= len(goldRaw):
			lines = append(lines, fmt.Sprintf("  [%d] extra: %s %q", i, out[i].Type, out[i].Text))
		default:
			if d := compareElement(out[i], goldRaw[i], c.Mask); d != "" {
				lines = append(lines, fmt.Sprintf("  [%d] %s", i, d))
			}
		}
	}
	return strings.Join(lines, "\n")
}

func form(kv ...string) map[string][]string {
	m := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = append(m[kv[i]], kv[i+1])
	}
	return m
}

// TestTextAndMarkup covers issue 3: plain text, HTML, XML, CSV/TSV, Markdown and JSON.
func TestTextAndMarkup(t *testing.T) {
	check(t, []Case{
		{Doc: "fake-text.txt", Golden: "head/gcs/fake-text.txt.json", Exact: true},
		{Doc: "UDHR_first_article_all.txt", Golden: "head/local-single-file/UDHR_first_article_all.txt.json", Form: form("languages", "ind", "languages", "est"), Exact: true},
		{Doc: "fake-html-cp1252.html", Golden: "head/local-single-file-with-encoding/fake-html-cp1252.html.json", Form: form("encoding", "cp1252"), Exact: true},
		{Doc: "fake-xml.xml", Golden: "ingest-assets-2024/fake-xml.xml.json", Exact: true},
		{Doc: "wiki_movie_plots_small.csv", Golden: "head/s3-minio/wiki_movie_plots_small.csv.json", Exact: true},
		{Doc: "ideas-page.html", Golden: "head/box/ideas-page.html.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "example-10k-1p.html", Golden: "api-2024/example-10k-1p.html.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "README.md", Golden: "api-2024/README.md.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "factbook.xml", Golden: "api-2024/factbook.xml.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "book-war-and-peace-1p.txt", Golden: "api-2024/book-war-and-peace-1p.txt.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "stanley-cups.csv", Golden: "api-2024/stanley-cups.csv.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "stanley-cups.tsv", Golden: "api-2024/stanley-cups.tsv.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "spring-weather.html.json", Golden: "api-2024/spring-weather.html.json.json", MinCCT: 0.99, MinType: 0.95},
	})
}
