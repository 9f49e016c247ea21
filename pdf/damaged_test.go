package pdf

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func manyLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "BT /F1 10 Tf 72 %d Td (line number %d) Tj ET\n", 760-i*12, i)
	}
	return b.String()
}

func zlibBytes(s string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// Damaged Flate streams read as far as they inflate, as pdftotext does, and say so in the page's
// warnings.
func TestDamagedFlateKeepsPrefix(t *testing.T) {
	content := manyLines(50)
	good := zlibBytes(content)
	badSum := bytes.Clone(good)
	badSum[len(badSum)-1] ^= 0xFF
	var raw bytes.Buffer
	fw, _ := flate.NewWriter(&raw, flate.BestCompression)
	fw.Write([]byte(content))
	fw.Close()
	for _, tc := range []struct {
		name, filter string
		data         []byte
		atLeast      int // lines that must be read
		warn         bool
	}{
		{"bad checksum", "/FlateDecode", badSum, 50, true},
		{"truncated deflate", "/FlateDecode", good[:len(good)/2], 5, true},
		{"raw deflate without zlib header", "/FlateDecode", raw.Bytes(), 50, false},
		{"bad checksum behind ASCIIHex", "[/ASCIIHexDecode /FlateDecode]", []byte(fmt.Sprintf("%X>", badSum)), 50, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := buildPDF(
				"<< /Type /Catalog /Pages 2 0 R >>",
				"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
				"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
				stream("/Filter "+tc.filter, string(tc.data)),
				helv)
			dumpFixture(t, data)
			p := readPage(t, data)
			text := strings.Join(boxTexts(p), "\n")
			read := strings.Count(text, "line number")
			if read < tc.atLeast || !strings.Contains(text, "line number 0") {
				t.Errorf("read %d lines, want ≥ %d:\n%s", read, tc.atLeast, text)
			}
			var de *DamagedStreamError
			if got := len(p.Warnings) > 0 && errors.As(p.Warnings[0], &de); got != tc.warn {
				t.Errorf("warnings %v, want a DamagedStreamError: %v", p.Warnings, tc.warn)
			}
		})
	}
}

// A stream that inflates to nothing is an error for its page, not an empty page.
func TestUnreadableStreamIsAnError(t *testing.T) {
	data := buildPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Contents 4 0 R >>",
		stream("/Filter /FlateDecode", "\xff\xfe not deflate at all"))
	d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Page(context.Background(), 1, DefaultLAParams()); err == nil {
		t.Error("no error for a page whose only content stream cannot be decoded")
	}
}
