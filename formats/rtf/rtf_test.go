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

// Text escapes in the document's code page or the font's character set, which pandoc reads
// as Windows-1252 (Russian, Japanese, Polish, Greek came out as mojibake), and \uN fallbacks
// written as literal characters, after which pandoc dropped one more character.
func TestCodePages(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("pandoc not installed (Debian package pandoc)")
	}
	cases := map[string][]string{
		"codepages.rtf": {"Café in the West.", "Привет мир.", "こんにちは", "Zażółć gęślą jaźń.", "Γειά σου.",
			"Fallbacks: Привет. Д and Д. Word: Ф end."},
		"ansicpg1251.rtf": {"Привет, мир! Здесь русский текст."},
	}
	for name, want := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		err = Partition(context.Background(), contract.NewDocument(name, data), contract.Options{}, func(e element.Element) error {
			got = append(got, e.Text)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s:\ngot  %q\nwant %q", name, got, want)
		}
	}
}

func TestNormalizeTextEdges(t *testing.T) {
	western := []byte(`{\rtf1\ansi\ansicpg1252 Caf\'e9 {\b bold}\par}`)
	if got := normalizeText(western); !bytes.Equal(got, western) {
		t.Errorf("Windows-1252 document changed: %s", got)
	}
	for in, want := range map[string]string{
		`{\rtf1\ansi\ansicpg1251 \'cf}`:                    `{\rtf1\ansi\ansicpg1251 \u1055 \'3f}`,
		`{\rtf1\ansicpg1251{\uc0 \'cf}}`:                   `{\rtf1\ansicpg1251{\uc0 \u1055 }}`,
		`{\rtf1 \u1055?.}`:                                 `{\rtf1 \u1055 ?.}`,
		`{\rtf1\ansicpg1251 \u1055\'cf\'cf}`:               `{\rtf1\ansicpg1251 \u1055 \'cf\u1055 \'3f}`, // the fallback stays, the next is text
		`{\rtf1\ansicpg1251 \bin2 \'c}`:                    `{\rtf1\ansicpg1251 \bin2 \'c}`,
		`{\rtf1\ansicpg932 \'82}`:                          `{\rtf1\ansicpg932 \'82}`, // a lead byte alone
		`{\rtf1\ansicpg1251 \'zz \u}`:                      `{\rtf1\ansicpg1251 \'zz \u}`,
		`{\rtf1\ansicpg1251 \u-3913 ?}`:                    `{\rtf1\ansicpg1251 \u-3913 ?}`,
		`{\rtf1\ansicpg99999 \'cf}`:                        `{\rtf1\ansicpg99999 \'cf}`, // unknown code page
		`{\rtf1{\fonttbl{\f1\fcharset2 Symbol;}}\f1 \'b0}`: `{\rtf1{\fonttbl{\f1\fcharset2 Symbol;}}\f1 \'b0}`,
	} {
		if got := string(normalizeText([]byte(in))); got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", in, got, want)
		}
	}
}

// FuzzNormalizeText: no panic, and input without text escapes comes back unchanged.
func FuzzNormalizeText(f *testing.F) {
	f.Add([]byte(`{\rtf1\ansicpg1251{\fonttbl{\f1\fcharset128 x;}}\f1 \'82\'a0 \u1055?}`))
	f.Add([]byte(`\'`))
	f.Add([]byte(`{\uc9\u-1 \bin9 }`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := normalizeText(data)
		if !bytes.Contains(data, []byte(`\'`)) && !bytes.Contains(data, []byte(`\u`)) && !bytes.Equal(out, data) {
			t.Errorf("changed without escapes: %q -> %q", data, out)
		}
	})
}
