package pdf

import (
	"bytes"
	"context"
	"os"
	"testing"
)

func FuzzContentStream(f *testing.F) {
	f.Add([]byte("BT /F1 12 Tf 72 700 Td [(Hello) -400 (world)] TJ ET"))
	f.Add([]byte("q 1 0 0 1 5 5 cm BI /W 1 /H 1 ID \x00 EI Q (unterminated"))
	f.Add([]byte("<< /A [1 2 <41> (x)] >> BDC [[[[ ]]]] /X Do 1 2 3 4 5 6 Tm T* ' \""))
	f.Fuzz(func(t *testing.T, content []byte) {
		data := onePage("<< /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >>", string(content), helv,
			stream("/Type /XObject /Subtype /Form /BBox [0 0 10 10]", string(content)))
		d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		_, _ = d.Page(context.Background(), 1, DefaultLAParams())
	})
}

func FuzzCMap(f *testing.F) {
	f.Add([]byte("1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfrange <00> <FF> <0041> endbfrange"))
	f.Add([]byte("2 beginbfrange <0000> <FFFF> [<00410042>] <01> <00> <D800> endbfrange 1 begincidrange <00> <7F> 1 endcidrange"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cm := parseCMap(data)
		for _, s := range [][]byte{{0}, {0x41}, {0x81, 0x40}, {0xFF, 0xFF, 0xFF, 0xFF}} {
			code, n := cm.nextCode(s, 2)
			if n <= 0 || n > len(s) {
				t.Fatalf("nextCode consumed %d of %d", n, len(s))
			}
			cm.lookupUnicode(code, n)
			cm.lookupCID(code, n)
		}
	})
}

func FuzzOpen(f *testing.F) {
	f.Add(onePage("<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td (Hi) Tj ET", helv))
	for _, name := range []string{"failing-missing-pages.pdf", "failing-invalid.pdf"} {
		if b, err := os.ReadFile("../testdata/reference/docs/errors/" + name); err == nil {
			f.Add(b)
		}
	}
	// The lazy reader's paths: object streams, xref streams, decryption.
	for _, name := range []string{"objstm.pdf", "aes-128-objstm.pdf", "rc4-40.pdf"} {
		if b, err := os.ReadFile("testdata/xref/" + name); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for n := 1; n <= d.NumPages() && n <= 3; n++ {
			_, _ = d.Page(context.Background(), n, DefaultLAParams())
		}
	})
}
