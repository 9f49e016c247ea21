package pdf

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every standard-handler variant qpdf writes (testdata/encrypted/gen.sh): a user password is
// ErrEncrypted, never an empty document; the empty user password opens the file and its text
// reads, whether /Encrypt is a reference or a direct dictionary.
func TestEncryptionVariants(t *testing.T) {
	files, _ := filepath.Glob("testdata/encrypted/*.pdf")
	if len(files) < 15 {
		t.Fatalf("%d fixtures", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
			if strings.Contains(name, "user-") {
				if !errors.Is(err, ErrEncrypted) {
					t.Errorf("Open: %v, want ErrEncrypted", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := documentText(t, d); !strings.Contains(got, "Secret words inside") {
				t.Errorf("text %q", got)
			}
		})
	}
}

// Revision 6's hash (ISO 32000-2 Algorithm 2.B) runs at least 64 rounds and stops on the last
// byte of E; a wrong count still validates some files, so the fixture's file key is checked by
// decrypting a string.
func TestAES256InfoString(t *testing.T) {
	for _, f := range []string{"owner-aes-256-r5.pdf", "owner-aes-256-r6.pdf", "direct-owner-aes-256-r6.pdf"} {
		data, err := os.ReadFile("testdata/encrypted/" + f)
		if err != nil {
			t.Fatal(err)
		}
		var l *lazyObjects
		if strings.HasPrefix(f, "direct-") { // through the scanning reader
			l, err = openScan(context.Background(), data)
		} else {
			l, err = openLazy(context.Background(), data)
		}
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		d := &Document{objs: l}
		if got := d.textString(d.dict(l.trailer["Info"])["Title"]); got != "Secret title" {
			t.Errorf("%s: title %q", f, got)
		}
	}
}

// A file that is not encrypted but mentions /Encrypt in its content, and that only pdfcpu reads
// (stale offsets), keeps pdfcpu's reading.
func TestEncryptAsTextIsNotEncryption(t *testing.T) {
	data := onePage("<< /Font << /F1 5 0 R >> >>", "BT /F1 12 Tf 72 700 Td (About /Encrypt entries) Tj ET", helv)
	data = bytes.Replace(data, []byte("%PDF-1.7\n"), []byte("%PDF-1.7\n% shifted\n"), 1)
	d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.objs.(pdfcpuObjects); !ok {
		t.Errorf("read by %T, want pdfcpu's reader", d.objs)
	}
	if got := documentText(t, d); !strings.Contains(got, "About /Encrypt entries") {
		t.Errorf("text %q", got)
	}
}
