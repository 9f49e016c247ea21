package classify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

// goldenFloors lists the reference goldens whose elements come from the §8 text rules, with
// the lowest type agreement (percent) this package must keep. Floors are set just under the
// measured figures so a regression fails the test.
var goldenFloors = []struct {
	path  string
	floor float64
}{
	{"head/local-single-file/UDHR_first_article_all.txt.json", 94},
	{"head/gcs/fake-text.txt.json", 100},
	{"api-2024/book-war-and-peace-1p.txt.json", 100},
	{"api-2024/factbook.xml.json", 100},
	{"ingest-assets-2024/fake-xml.xml.json", 100},
	// PDF and e-mail goldens of the 2024 hosted API (hi_res layout model, NLTK era): their
	// types mostly come from the layout model, so these floors only guard against regressions.
	{"ingest-assets-2024/layout-parser-paper-fast.pdf.json", 42},
	{"ingest-assets-2024/list-item-example.pdf.json", 19},
	{"ingest-assets-2024/fake-email.eml.json", 100},
	{"ingest-assets-2024/family-day.eml.json", 100},
	{"api-2024/multi-column-2p.pdf.json", 80},
}

type goldenElement struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// TestGoldenAgreement re-classifies the text of every golden element and counts how often the
// type matches. List items whose bullet the reference removed cannot be re-classified from
// their text and are skipped.
func TestGoldenAgreement(t *testing.T) {
	verbose := testing.Verbose() || os.Getenv("CLASSIFY_SHOW_MISMATCH") != ""
	var report strings.Builder
	fmt.Fprintf(&report, "%-58s %6s %6s %7s\n", "golden", "total", "agree", "percent")
	for _, g := range goldenFloors {
		raw, err := os.ReadFile(filepath.Join("..", "testdata", "reference", "expected", g.path))
		if err != nil {
			t.Fatalf("read golden: %v", err)
		}
		var elems []goldenElement
		if err := json.Unmarshal(raw, &elems); err != nil {
			t.Fatalf("%s: decode: %v", g.path, err)
		}
		total, agree := 0, 0
		for _, e := range elems {
			switch element.Type(e.Type) {
			case element.Title, element.NarrativeText, element.UncategorizedText, element.Address, element.EmailAddress:
			case element.ListItem:
				if !IsNumberedListItem(e.Text) {
					continue
				}
			default:
				continue
			}
			total++
			got, _ := Text(e.Text)
			if string(got) == e.Type {
				agree++
			} else if os.Getenv("CLASSIFY_SHOW_MISMATCH") != "" {
				t.Logf("%s: want %s got %s: %q", filepath.Base(g.path), e.Type, got, e.Text)
			}
		}
		pct := 100 * float64(agree) / float64(max(total, 1))
		fmt.Fprintf(&report, "%-58s %6d %6d %6.1f%%\n", g.path, total, agree, pct)
		if pct < g.floor {
			t.Errorf("%s: agreement %.1f%% below floor %.1f%%", g.path, pct, g.floor)
		}
	}
	if verbose {
		t.Log("\n" + report.String())
	}
}
