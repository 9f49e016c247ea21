package pdf

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// rawPDF writes objects as given (bodies numbered from 1) with the trailer's entries as written.
func rawPDF(trailer string, objs ...string) []byte { return pdftest.FileTrailer(trailer, objs...) }

const (
	catalog = "<< /Type /Catalog /Pages 2 0 R >>"
	pages1  = "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
)

// Small hand-made PDFs of the kinds PDF parsers' test suites hold; pdftotext and pypdf read the
// text of each, and so must we.
func TestHandMadePDFs(t *testing.T) {
	show := "BT /F1 12 Tf 72 700 Td (Hand made text) Tj ET"
	type3 := "<< /Type /Font /Subtype /Type3 /FontBBox [0 0 750 750] /FontMatrix [0.001 0 0 0.001 0 0] " +
		"/CharProcs << /H 9 0 R /a 9 0 R /n 9 0 R /d 9 0 R /space 9 0 R /m 9 0 R /e 9 0 R /t 9 0 R /x 9 0 R >> " +
		"/Encoding << /Type /Encoding /Differences [32 /space 72 /H 97 /a 100 /d 101 /e 109 /m 110 /n 116 /t 120 /x] >> " +
		"/FirstChar 32 /LastChar 120 /Widths [" + strings.Repeat("600 ", 120-32+1) + "] /Resources << >> >>"
	cases := []struct {
		name string
		data []byte
	}{
		{"resources inherited from the page tree", rawPDF("/Root 1 0 R", catalog,
			"<< /Type /Pages /Kids [3 0 R] /Count 1 /Resources << /Font << /F1 5 0 R >> >> /MediaBox [0 0 612 792] >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>", stream("", show), helv)},
		{"no resources at all", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>", stream("", show))},
		{"font resource is not a font", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream("", show), "42")},
		{"standard 14 font without widths", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream("", show), "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>")},
		{"Type3 font", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream("", show), type3, "null", "null", "null", stream("", "600 0 0 0 750 750 d1 0 0 750 750 re f"))},
		{"text in a form XObject", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /X1 6 0 R >> >> /Contents 4 0 R >>",
			stream("", "q 1 0 0 1 0 0 cm /X1 Do Q"), helv,
			stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >>", show))},
		{"content array", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents [4 0 R 6 0 R 7 0 R] >>",
			stream("", "BT /F1 12 Tf"), helv, stream("", "72 700 Td (Hand made text)"), stream("", "Tj ET"))},
		{"missing /Length", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			"<< >>\nstream\n"+show+"\nendstream", helv)},
		{"/Length an indirect object", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			fmt.Sprintf("<< /Length 6 0 R >>\nstream\n%s\nendstream", show), helv, fmt.Sprint(len(show)))},
		{"/Length too short", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			"<< /Length 10 >>\nstream\n"+show+"\nendstream", helv)},
		{"operators without white space, comments, odd line ends", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream("", "BT%comment\r/F1 12 Tf\f72 700 Td\x00(Hand made text)Tj\rET"), helv)},
		{"dictionary without spaces", rawPDF("/Root 1 0 R", "<</Type/Catalog/Pages 2 0 R>>", "<</Type/Pages/Kids[3 0 R]/Count 1>>",
			"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>>>/Contents 4 0 R>>",
			stream("", show), "<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>")},
		{"page without /Type in the tree", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream("", show), helv)},
		{"zero-size MediaBox", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 0 0] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream("", show), helv)},
		{"MediaBox far from the origin", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [10000 10000 10612 10792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream("", "1 0 0 1 10000 10000 cm "+show), helv)},
		{"contents an indirect array", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R >>",
			stream("", show), helv, "[4 0 R]")},
		{"text operators outside BT/ET", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream("", "/F1 12 Tf 72 700 Td (Hand made text) Tj"), helv)},
		{"direct page dictionaries in Kids", rawPDF("/Root 1 0 R", catalog,
			"<< /Type /Pages /Count 1 /Kids [<< /Type /Page /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 3 0 R >>] >>",
			stream("", show), helv)},
		{"string with line continuation and escapes", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream("", "BT /F1 12 Tf 72 700 Td (Hand \\\nmade\040text) Tj ET"), helv)},
		{"TrueType font without encoding", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream("", show), "<< /Type /Font /Subtype /TrueType /BaseFont /Arial >>")},
		{"Type0 font without descendant", rawPDF("/Root 1 0 R", catalog, pages1,
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream("", "BT /F1 12 Tf 72 700 Td <00480061006E00640020006D00610064006500200074006500780074> Tj ET"), "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /UniGB-UCS2-H >>")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dumpFixture(t, tc.data)
			d, err := Open(context.Background(), bytes.NewReader(tc.data), int64(len(tc.data)))
			if err != nil {
				t.Fatal(err)
			}
			got := documentText(t, d)
			// Text of form XObjects is in the page's figures (pdfminer's LTFigure).
			p, err := d.Page(context.Background(), 1, DefaultLAParams())
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range p.Figures {
				for _, it := range f.Items {
					if it.Glyph != nil {
						got += it.Glyph.Text
					}
				}
			}
			if !strings.Contains(got, "Hand made text") {
				t.Errorf("text %q", got)
			}
		})
	}
	variants := map[string]func([]byte) []byte{
		"startxref wrong": func(b []byte) []byte {
			i := bytes.LastIndex(b, []byte("startxref\n"))
			return append(b[:i:i], []byte("startxref\n12\n%%EOF\n")...)
		},
		"CR line ends": func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r")) },
		"CRLF line ends and a table that does not match them": func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
		},
		"garbage before the header": func(b []byte) []byte { return append([]byte("garbage line\n"), b...) },
		"no %%EOF, trailing junk": func(b []byte) []byte {
			return append(bytes.TrimSuffix(b, []byte("%%EOF\n")), []byte("\x00\x00junk")...)
		},
	}
	base := rawPDF("/Root 1 0 R", catalog, pages1,
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream("", show), helv)
	for name, f := range variants {
		t.Run(name, func(t *testing.T) {
			data := f(bytes.Clone(base))
			dumpFixture(t, data)
			d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if got := documentText(t, d); !strings.Contains(got, "Hand made text") {
				t.Errorf("text %q", got)
			}
		})
	}
}

// dumpFixture writes a test's PDF to $PDF_FIXTURE_DIR, when set, for comparison with other
// readers (pdftotext, pypdf, the CLI).
func dumpFixture(t *testing.T, data []byte, suffix ...string) {
	if dir := os.Getenv("PDF_FIXTURE_DIR"); dir != "" {
		name := strings.NewReplacer("/", "_", " ", "_", ",", "", "%", "", "(", "", ")", "").Replace(t.Name()+strings.Join(suffix, "")) + ".pdf"
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
