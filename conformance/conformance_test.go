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

	"github.com/quarrydocs/quarry/api/partitionapi"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all"
	"github.com/quarrydocs/quarry/metrics"
	_ "github.com/quarrydocs/quarry/strategies/fast"
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
	// FromOrigElements compares with the partition output recovered from a chunked golden's
	// orig_elements (each source element once, in order) instead of the chunks themselves.
	FromOrigElements bool
	// Gap documents why the target (all elements exact, or MinCCT/MinType) cannot be
	// met for this golden; the test then enforces the Floor* values measured when the gap was
	// recorded, so regressions still fail, and the table marks the row "gap".
	Gap                 string
	FloorExact          int
	FloorCCT, FloorType float64
	// SkipID skips element_id: goldens whose IDs were hashed with the literal file name "None"
	// (the ingest-chunked sets, MANIFEST.md).
	SkipID bool
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

// loadCaseGolden loads the case's golden, or the source elements of a chunked golden.
func loadCaseGolden(c Case) ([]map[string]any, []element.Element, error) {
	path := filepath.Join(refDir, "expected", c.Golden)
	if !c.FromOrigElements {
		return loadGolden(path)
	}
	_, chunks, err := loadGolden(path)
	if err != nil {
		return nil, nil, err
	}
	var elems []element.Element
	seen := map[string]bool{}
	for _, ch := range chunks {
		for _, e := range ch.Metadata.OrigElements {
			if !seen[e.ID] { // a split element appears in every chunk it spans
				seen[e.ID] = true
				elems = append(elems, e)
			}
		}
	}
	b, _ := json.Marshal(elems)
	var raw []map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
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
	opts, err := partitionapi.OptionsFromForm(c.Form)
	if err != nil {
		r.Err = err
		return r
	}
	out, err := engine.Partition(context.Background(), engine.NewDocument(c.Doc, data), opts)
	if err != nil {
		r.Err = err
		return r
	}
	goldRaw, gold, err := loadCaseGolden(c)
	if err != nil {
		r.Err = err
		return r
	}
	r.Elements, r.GoldCount = len(out), len(gold)
	outCCT, goldCCT := metrics.CCT(out), metrics.CCT(gold)
	r.CCT = metrics.BatchAccuracy(outCCT, goldCCT)
	r.Missing = metrics.PercentMissing(outCCT, goldCCT)
	r.TypeAc = metrics.Round3(metrics.GoldenTypeAccuracy(out, gold))
	for i := 0; i < len(out) && i < len(goldRaw); i++ {
		if diff := compareElement(out[i], goldRaw[i], c); diff == "" {
			r.ExactMatches++
		}
	}
	return r
}

// compareElement returns "" when ours carries the golden's type, text, element_id and every
// metadata field of the golden (data_source and masked keys aside) with equal values.
func compareElement(ours element.Element, gold map[string]any, c Case) string {
	b, _ := ours.MarshalJSON()
	var o map[string]any
	_ = json.Unmarshal(b, &o)
	for _, k := range []string{"type", "text", "element_id"} {
		if k == "element_id" && c.SkipID {
			continue
		}
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
		if k == "data_source" || contains(c.Mask, k) {
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
	var rows, gaps []string
	rows = append(rows, fmt.Sprintf("%-34s %-6s %6s %6s %9s %6s %6s %6s  %s", "document", "mode", "ours", "gold", "exact", "cct", "miss", "type", "target"))
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
		met := r.CCT >= c.MinCCT && r.TypeAc >= c.MinType
		if c.Exact {
			met = r.Elements == r.GoldCount && r.ExactMatches == r.GoldCount
		}
		status := "met"
		if !met {
			status = "NOT MET"
			if c.Gap != "" {
				status = "gap"
				gaps = append(gaps, fmt.Sprintf("%s (%s): %s", c.Doc, c.Golden, c.Gap))
			}
		}
		rows = append(rows, fmt.Sprintf("%-34s %-6s %6d %6d %9s %6.3f %6.3f %6.3f  %s", c.Doc, mode, r.Elements, r.GoldCount,
			fmt.Sprintf("%d/%d", r.ExactMatches, r.GoldCount), r.CCT, r.Missing, r.TypeAc, status))
		if met {
			continue
		}
		if c.Gap == "" {
			if c.Exact {
				t.Errorf("%s: %d of %d golden elements match exactly (we produce %d)\n%s", c.Doc, r.ExactMatches, r.GoldCount, r.Elements, firstDiffs(c, 5))
			} else {
				t.Errorf("%s: CCT %.3f (target %.2f), element types %.3f (target %.2f)", c.Doc, r.CCT, c.MinCCT, r.TypeAc, c.MinType)
			}
			continue
		}
		// A documented gap: hold the measured floors.
		if r.ExactMatches < c.FloorExact || r.CCT < c.FloorCCT || r.TypeAc < c.FloorType {
			t.Errorf("%s: below the recorded floor (exact %d < %d, cct %.3f < %.3f or types %.3f < %.3f)\n%s",
				c.Doc, r.ExactMatches, c.FloorExact, r.CCT, c.FloorCCT, r.TypeAc, c.FloorType, firstDiffs(c, 5))
		}
	}
	t.Log("conformance:\n" + strings.Join(rows, "\n"))
	if len(gaps) > 0 {
		t.Log("documented gaps:\n  " + strings.Join(gaps, "\n  "))
	}
}

// firstDiffs describes the first mismatching elements of a case, for failure messages.
func firstDiffs(c Case, n int) string {
	data, _ := os.ReadFile(filepath.Join(refDir, "docs", c.Doc))
	opts, _ := partitionapi.OptionsFromForm(c.Form)
	out, err := engine.Partition(context.Background(), engine.NewDocument(c.Doc, data), opts)
	if err != nil {
		return err.Error()
	}
	goldRaw, _, _ := loadCaseGolden(c)
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
			if d := compareElement(out[i], goldRaw[i], c); d != "" {
				lines = append(lines, fmt.Sprintf("  [%d] %s", i, d))
			}
		}
	}
	return strings.Join(lines, "\n")
}

// gap records a documented gap with the floors measured when it was recorded.
func gap(c Case, why string, cct, typ float64) Case {
	c.Gap, c.FloorCCT, c.FloorType = why, cct, typ
	return c
}

// oldTitleRule explains the 2024 goldens' Title counts: the reference's HTML and DOCX
// partitioners then inferred Title from short paragraphs; the current reference does not (its
// 2025–2026 exact goldens, which Quarry matches, show those paragraphs as UncategorizedText),
// so matching both is impossible.
const oldTitleRule = "2024 golden made when short HTML/DOCX paragraphs were classified as Title; the current reference (and Quarry) no longer does"

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
		{Doc: "UDHR_first_article_all.txt", Golden: "head/local-single-file/UDHR_first_article_all.txt.json", Form: form("languages", "ind", "languages", "est"), Exact: true,
			Gap: "31 foreign-language lines where only spaCy en_core_web_sm's statistical tagger decides 'has a verb' (NarrativeText vs UncategorizedText); that model cannot be obtained here, classify uses a lexicon tagger", FloorExact: 495},
		{Doc: "fake-html-cp1252.html", Golden: "head/local-single-file-with-encoding/fake-html-cp1252.html.json", Form: form("encoding", "cp1252"), Exact: true,
			Gap: "the golden's <pre> text is the windows-1250 decoding of the file ('trčs', 'nińo'): the reference run ignored encoding=cp1252; Quarry honours it", FloorExact: 3},
		{Doc: "fake-xml.xml", Golden: "ingest-assets-2024/fake-xml.xml.json", Exact: true},
		{Doc: "wiki_movie_plots_small.csv", Golden: "head/s3-minio/wiki_movie_plots_small.csv.json", Exact: true},
		{Doc: "ideas-page.html", Golden: "head/box/ideas-page.html.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "example-10k-1p.html", Golden: "api-2024/example-10k-1p.html.json", MinCCT: 0.99, MinType: 0.95,
			Gap: oldTitleRule, FloorCCT: 0.99, FloorType: 0.78},
		{Doc: "README.md", Golden: "api-2024/README.md.json", MinCCT: 0.99, MinType: 0.95,
			Gap: oldTitleRule + "; its fenced code block predates CodeSnippet", FloorCCT: 0.99, FloorType: 0.90},
		{Doc: "factbook.xml", Golden: "api-2024/factbook.xml.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "book-war-and-peace-1p.txt", Golden: "api-2024/book-war-and-peace-1p.txt.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "stanley-cups.csv", Golden: "api-2024/stanley-cups.csv.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "stanley-cups.tsv", Golden: "api-2024/stanley-cups.tsv.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "spring-weather.html.json", Golden: "api-2024/spring-weather.html.json.json", MinCCT: 0.99, MinType: 0.95},
	})
}

// TestOffice covers issue 4: OOXML, OpenDocument, legacy Office through LibreOffice, the pandoc
// formats and EPUB.
func TestOffice(t *testing.T) {
	metric := func(doc, golden string) Case {
		return Case{Doc: doc, Golden: golden, MinCCT: 0.98, MinType: 0.95}
	}
	check(t, []Case{
		// The current reference's own partition of handbook-1p.docx, recovered from the
		// orig_elements of its 2025 chunked golden: exact, IDs included. (The 2024 head/box
		// golden predates page numbers from rendered page breaks, so its IDs differ.)
		{Doc: "handbook-1p.docx", Golden: "head/local-single-file-basic-chunking/handbook-1p.docx.json", FromOrigElements: true, Exact: true,
			Form: form("include_page_breaks", "true")},
		{Doc: "handbook-1p.docx", Golden: "head/box/handbook-1p.docx.json", MinCCT: 0.99, MinType: 0.95},
		{Doc: "science-exploration-1p.pptx", Golden: "head/box/science-exploration-1p.pptx.json", Exact: true},
		{Doc: "stanley-cups.xlsx", Golden: "head/gcs/stanley-cups.xlsx.json", Exact: true},
		{Doc: "tests-example.xls", Golden: "head/onedrive/tests-example.xls.json", Exact: true},
		gap(metric("docx-tables.docx", "oss-2024/docx-tables.docx.json"), oldTitleRule, 0.98, 0.50),
		metric("fake-power-point.pptx", "oss-2024/fake-power-point.pptx.json"),
		metric("fake-power-point.ppt", "api-2024/fake-power-point.ppt.json"),
		gap(metric("simple.odt", "oss-2024/simple.odt.json"), oldTitleRule, 0.98, 0.87),
		gap(metric("fake-doc.rtf", "oss-2024/fake-doc.rtf.json"), oldTitleRule, 0.98, 0.50),
		gap(metric("winter-sports.epub", "oss-2024/winter-sports.epub.json"), oldTitleRule, 0.98, 0.66),
		gap(metric("README.org", "oss-2024/README.org.json"), oldTitleRule, 0.98, 0.75),
		gap(metric("duplicate-paragraphs.doc", "api-2024/duplicate-paragraphs.doc.json"), oldTitleRule, 0.98, 0.14),
	})
}

// TestEmail covers issue 4's e-mail formats.
func TestEmail(t *testing.T) {
	metric := func(doc, golden string) Case {
		return Case{Doc: doc, Golden: golden, MinCCT: 0.98, MinType: 0.95}
	}
	check(t, []Case{
		gap(metric("fake-email.eml", "ingest-assets-2024/fake-email.eml.json"), oldTitleRule, 0.98, 0.75),
		gap(metric("family-day.eml", "ingest-assets-2024/family-day.eml.json"), oldTitleRule, 0.98, 0.55),
		gap(metric("fake-email-attachment.eml", "ingest-assets-2024/fake-email-attachment.eml.json"),
			oldTitleRule+"; the 2024 golden has no attachment elements, the current reference (and Quarry) partitions the attachment", 0.73, 0.75),
		gap(metric("fake-email.msg", "api-2024/fake-email.msg.json"), oldTitleRule, 0.98, 0.75),
	})
}

// TestChunkingGoldens covers issue 8: the two current chunked goldens. Their chunk IDs were hashed
// with the literal file name "None" and their orig_elements carry ingest metadata, so those two
// fields are not compared.
func TestChunkingGoldens(t *testing.T) {
	check(t, []Case{
		{Doc: "handbook-1p.docx", Golden: "head/local-single-file-basic-chunking/handbook-1p.docx.json",
			Form:  form("chunking_strategy", "basic", "max_characters", "150", "overlap", "20"),
			Exact: true, SkipID: true, Mask: []string{"orig_elements"}},
	})
}

// TestPDFFast covers issues 5 and 8 end to end: the fast strategy's elements chunked by_title as
// the current fast golden was made must give the very same chunks (IDs were hashed with "None"
// in that golden, so they are not compared).
func TestPDFFast(t *testing.T) {
	check(t, []Case{
		{Doc: "multi-column-2p.pdf", Golden: "head/local-single-file-chunk-no-orig-elements/multi-column-2p.pdf.json",
			Form: form("strategy", "fast", "chunking_strategy", "by_title", "max_characters", "2000",
				"multipage_sections", "false", "include_orig_elements", "false"),
			Exact: true, SkipID: true},
	})
}
