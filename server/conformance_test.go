package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const refExpected = "../testdata/reference/expected"

// TestWireErrorDocuments sends the reference's failing PDFs through HTTP with every strategy:
// 422 with the reference's detail (only its prefix where the text is pypdf's own message).
func TestWireErrorDocuments(t *testing.T) {
	srv := New(Config{})
	cases := []struct{ file, detail string }{
		{"failing-encrypted.pdf", "File is encrypted. Please decrypt it with password."},
		{"failing-invalid.pdf", "File does not appear to be a valid PDF. Error: "},
		{"failing-missing-root.pdf", "File does not appear to be a valid PDF. Error: "},
		{"failing-missing-pages.pdf", "File does not appear to be a valid PDF. Error: "},
	}
	for _, c := range cases {
		data := readDoc(t, filepath.Join("errors", c.file))
		for _, strategy := range []string{"auto", "fast", "hi_res", "ocr_only"} {
			rec := post(t, srv, nil, file(c.file, data, "application/pdf"), field("strategy", strategy))
			var d struct{ Detail string }
			json.Unmarshal(rec.Body.Bytes(), &d)
			if rec.Code != 422 || !strings.HasPrefix(d.Detail, c.detail) {
				t.Errorf("%s strategy=%s: %d %s", c.file, strategy, rec.Code, rec.Body)
			}
		}
	}
}

// TestWireGoldens posts the exact-match candidates of the reference corpus (MANIFEST.md) with
// the parameters their goldens were made with and compares type, element_id, text and every
// metadata field the golden has (data_source ignored). Documents listed in exact must match
// element for element; the others are reported.
func TestWireGoldens(t *testing.T) {
	srv := New(Config{})
	cases := []struct {
		doc, golden string
		params      []part
		exact       bool
	}{
		{"fake-text.txt", "head/gcs/fake-text.txt.json", nil, true},
		{"UDHR_first_article_all.txt", "head/local-single-file/UDHR_first_article_all.txt.json", []part{field("languages", "ind"), field("languages", "est")}, false},
		{"fake-html-cp1252.html", "head/local-single-file-with-encoding/fake-html-cp1252.html.json", []part{field("encoding", "cp1252")}, false},
		{"wiki_movie_plots_small.csv", "head/s3-minio/wiki_movie_plots_small.csv.json", nil, true},
		{"science-exploration-1p.pptx", "head/box/science-exploration-1p.pptx.json", nil, true},
		{"stanley-cups.xlsx", "head/gcs/stanley-cups.xlsx.json", nil, false},
		{"fake-xml.xml", "ingest-assets-2024/fake-xml.xml.json", nil, true},
	}
	for _, c := range cases {
		t.Run(c.doc, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(refExpected, c.golden))
			if err != nil {
				t.Fatal(err)
			}
			var want []map[string]any
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			rec := post(t, srv, nil, append([]part{file(c.doc, readDoc(t, c.doc), "")}, c.params...)...)
			if rec.Code != 200 {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			var got []map[string]any
			json.Unmarshal(rec.Body.Bytes(), &got)
			same := 0
			var firstDiff string
			for i := range min(len(got), len(want)) {
				if d := elementDiff(got[i], want[i]); d == "" {
					same++
				} else if firstDiff == "" {
					firstDiff = fmt.Sprintf("element %d: %s", i, d)
				}
			}
			t.Logf("%s: %d/%d elements equal (got %d) %s", c.doc, same, len(want), len(got), firstDiff)
			if c.exact && (same != len(want) || len(got) != len(want)) {
				t.Errorf("exact-match golden differs: %s", firstDiff)
			}
		})
	}
}

func elementDiff(got, want map[string]any) string {
	for _, k := range []string{"type", "element_id", "text"} {
		if !reflect.DeepEqual(got[k], want[k]) {
			return fmt.Sprintf("%s %v != %v", k, got[k], want[k])
		}
	}
	gm, _ := got["metadata"].(map[string]any)
	wm, _ := want["metadata"].(map[string]any)
	for k, v := range wm {
		if k == "data_source" {
			continue
		}
		if !reflect.DeepEqual(gm[k], v) {
			return fmt.Sprintf("metadata.%s %v != %v", k, gm[k], v)
		}
	}
	return ""
}
