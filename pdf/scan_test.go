package pdf

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

func scanFixture() []byte {
	return onePage("<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td (Recovered by scanning) Tj ET", helv)
}

// Damaged cross-reference data of the kinds readers meet, each rebuilt by scanning the file
// for "N G obj" (pdftotext reads all of them).
func TestBrokenXrefIsRebuilt(t *testing.T) {
	good := scanFixture()
	xref := bytes.Index(good, []byte("xref\n"))
	tests := map[string][]byte{
		"no table, no trailer": good[:xref],
		"garbage offsets": regexp.MustCompile(`\d{10} 00000 n`).ReplaceAllFunc(bytes.Clone(good), func(b []byte) []byte {
			return []byte("0000000003 00000 n")
		}),
		"startxref past the end": bytes.Replace(bytes.Clone(good), []byte("startxref\n"), []byte("startxref\n9"), 1),
		"trailer without Root":   bytes.Replace(bytes.Clone(good), []byte("/Root 1 0 R"), []byte("          "), 1),
		"no catalog at all": bytes.Replace(good[:xref], []byte("<< /Type /Catalog /Pages 2 0 R >>"),
			[]byte("<< /Type /Outlines /Count 0 >>"), 1),
		"no catalog and no page tree root": bytes.Replace(bytes.Replace(good[:xref], []byte("<< /Type /Catalog /Pages 2 0 R >>"),
			[]byte("<< /Type /Outlines /Count 0 >>"), 1), []byte("/Type /Pages"), []byte("/Type /Junk "), 1),
		"truncated after the content": good[:bytes.Index(good, []byte("5 0 obj"))+len("5 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica")],
		"objects redefined by an appended update": append(good[:xref:xref],
			[]byte("4 0 obj\n"+stream("", "BT /F1 12 Tf 72 700 Td (Recovered by scanning) Tj ET")+"\nendobj\n")...),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			dumpFixture(t, data)
			d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if got := documentText(t, d); !strings.Contains(got, "Recovered by scanning") {
				t.Errorf("text %q", got)
			}
		})
	}
}

// A file of nothing but object headers, or of digits and "obj" in every arrangement, costs
// linear time and ends in an error rather than a document.
func TestScanHostileInput(t *testing.T) {
	for name, data := range map[string][]byte{
		"headers only":  append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("1 0 obj "), 1<<18)...),
		"digits runs":   append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("1234567890 "), 1<<18)...),
		"obj obj obj":   append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("obj"), 1<<19)...),
		"trailers only": append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("trailer "), 1<<18)...),
		"nested arrays": append([]byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages "), bytes.Repeat([]byte("["), 1<<16)...),
	} {
		start := time.Now()
		_, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err == nil {
			t.Errorf("%s: opened", name)
		}
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("%s: %v", name, el)
		}
	}
}
