package rtf

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/internal/goldentest"
)

const refDir = "../../testdata/reference"

// TestConformance scores the reference's golden (an older library version, so by its metrics
// rather than element for element).
func TestConformance(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("pandoc not installed (Debian package pandoc)")
	}
	name := "fake-doc.rtf"
	got, want := goldentest.Scored(t, Partition, filepath.Join(refDir, "docs", name),
		filepath.Join(refDir, "expected/oss-2024", name+".json"), 0.99)
	// The 2024 golden typed the short paragraphs Title (older text rules); the heading, the
	// paragraphs and the one table are what must hold.
	wantTypes := []element.Type{element.Title, element.UncategorizedText, element.UncategorizedText, element.Table}
	goldentest.CheckTypes(t, got, wantTypes...)
	// pandoc's RTF reader (2.17, Debian's) puts the three rows in one; the reference's output
	// has the same single row, which is what is compared.
	if g, w := got[3].Metadata.TextAsHTML, want[3].Metadata.TextAsHTML; g != w {
		t.Errorf("table html\n got %s\nwant %s", g, w)
	}
}

// Fields and footnotes as word processors write them, which pandoc's reader loses: a link
// whose instruction is not a group (LibreOffice), DATE and PAGE fields (their shown result),
// and a footnote marked as an ignorable destination. Escaped braces and \bin picture data are
// not mistaken for groups; pandoc's footnote back-link is not text.
func TestFieldsAndFootnotes(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("pandoc not installed (Debian package pandoc)")
	}
	data, err := os.ReadFile("testdata/fields.rtf")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = Partition(context.Background(), contract.NewDocument("fields.rtf", data), contract.Options{}, func(e element.Element) error {
		got = append(got, e.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(got, "|")
	for _, want := range []string{"See the annual report for the figures.", "Printed on 2 May 2024, page 7.", "Braces {kept} and a picture", "Audited figures only."} {
		if !strings.Contains(all, want) {
			t.Errorf("lacks %q: %s", want, all)
		}
	}
	if strings.Contains(all, "↩") {
		t.Errorf("footnote back-link kept: %s", all)
	}
}

// normalizeFields leaves a document without fields or footnotes untouched and never loses
// the bytes of a group cut short.
func TestNormalizeFieldsEdges(t *testing.T) {
	plain := []byte(`{\rtf1 plain {\b bold} text\par}`)
	if got := normalizeFields(plain); !bytes.Equal(got, plain) {
		t.Errorf("plain document changed: %s", got)
	}
	cut := []byte(`{\rtf1 x {\field{\*\fldinst DATE}{\fldrslt 2 May`)
	if got := string(normalizeFields(cut)); !strings.Contains(got, "2 May") {
		t.Errorf("cut field lost its result: %s", got)
	}
}

// FuzzNormalizeFields: any input is rewritten without a panic, and input without fields or
// footnotes comes back unchanged.
func FuzzNormalizeFields(f *testing.F) {
	f.Add([]byte(`{\rtf1 {\field{\*\fldinst HYPERLINK "x"}{\fldrslt a}}}`))
	f.Add([]byte(`{\field{\*\fldinst DATE}{\fldrslt {\field`))
	f.Add([]byte(`{\*\footnote \bin9 {}\`))
	f.Add([]byte(`\'`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := normalizeFields(data)
		if !bytes.Contains(data, []byte(`\field`)) && !bytes.Contains(data, []byte(`\*\footnote`)) && !bytes.Equal(out, data) {
			t.Errorf("changed without fields: %q -> %q", data, out)
		}
	})
}
