package engine_test

import (
	"os"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

// TestSkipInferTableTypes: a type named in skip_infer_table_types keeps its Table elements and
// their text but loses text_as_html (partition-api.md §2.2), for formats as for PDFs; other
// types in the same request keep theirs.
func TestSkipInferTableTypes(t *testing.T) {
	for _, tc := range []struct{ file, name string }{
		{"../testdata/reference/docs/docx-tables.docx", "docx"},
		{"../testdata/reference/docs/example-10k-1p.html", "html"},
	} {
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		tables := func(form map[string][]string) (n, withHTML int, text string) {
			elems, err := partition(t, tc.file, data, form)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range elems {
				if e.Type == element.Table {
					n++
					text += e.Text
					if e.Metadata.TextAsHTML != "" {
						withHTML++
					}
				}
			}
			return n, withHTML, text
		}
		n, html, text := tables(nil)
		if n == 0 || html != n {
			t.Fatalf("%s: %d tables, %d with HTML by default", tc.name, n, html)
		}
		sn, shtml, stext := tables(map[string][]string{"skip_infer_table_types": {"pdf", tc.name}})
		if sn != n || shtml != 0 || stext != text {
			t.Errorf("%s skipped: %d tables (want %d), %d with HTML, same text %v", tc.name, sn, n, shtml, stext == text)
		}
		if _, other, _ := tables(map[string][]string{"skip_infer_table_types": {"xlsx"}}); other != n {
			t.Errorf("%s with another type skipped: %d of %d tables with HTML", tc.name, other, n)
		}
	}
}
