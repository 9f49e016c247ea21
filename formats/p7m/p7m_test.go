package p7m_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/email"
	_ "github.com/quarrydocs/quarry/formats/html"
	"github.com/quarrydocs/quarry/formats/p7m"
	_ "github.com/quarrydocs/quarry/formats/text"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func texts(els []element.Element) string {
	var out []string
	for _, e := range els {
		out = append(out, string(e.Type)+":"+e.Text)
	}
	return strings.Join(out, " | ")
}

const minutes = "NarrativeText:Signed minutes of the harbour committee. | NarrativeText:The committee approved the new breakwater budget."

// Each form signing tools write is opened and its document partitioned as what it is, named
// after the envelope.
func TestSignedDocuments(t *testing.T) {
	ber := fixture(t, "minutes.txt.p7m")
	cases := []struct {
		name     string
		data     []byte
		want     string
		filetype string
	}{
		{"minutes.txt.p7m", ber, minutes, "text/plain"},                                                                               // BER, indefinite lengths, chunked content
		{"minutes.txt.p7m.p7m", fixture(t, "minutes.txt.p7m.p7m"), minutes, "text/plain"},                                             // counter-signed
		{"invoice.html.p7m", fixture(t, "invoice.html.p7m"), "Title:Invoice 42 | UncategorizedText:Total due: 120 EUR.", "text/html"}, // PEM
		{"base64.txt.p7m", []byte(base64.StdEncoding.EncodeToString(ber)), minutes, "text/plain"},                                     // bare base64
		{"smime.p7m", fixture(t, "smime.p7m"), "NarrativeText:The body of an opaquely signed message.", "message/rfc822"},             // a MIME entity
		{"upload", ber, minutes, "text/plain"},                                                                                        // no name: the bytes say it is PKCS #7
	}
	for _, c := range cases {
		els, err := engine.Partition(context.Background(), engine.NewDocument(c.name, c.data), engine.DefaultOptions())
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := texts(els); got != c.want {
			t.Errorf("%s: got %s\nwant %s", c.name, got, c.want)
		}
		for _, e := range els {
			if e.Metadata.Filename != c.name || e.Metadata.Filetype != c.filetype || e.ID == "" {
				t.Errorf("%s: element %q named %q, type %q, id %q", c.name, e.Text, e.Metadata.Filename, e.Metadata.Filetype, e.ID)
			}
		}
	}
}

// What holds no readable document is a 422 that says why, never an empty success.
func TestRefused(t *testing.T) {
	cases := map[string]string{
		"detached.p7s":  "detached signature",
		"encrypted.p7m": "encrypted",
	}
	for name, want := range cases {
		_, err := engine.Partition(context.Background(), engine.NewDocument(name, fixture(t, name)), engine.DefaultOptions())
		var ce *contract.Error
		if !errors.As(err, &ce) || ce.Kind != contract.KindUnprocessable || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want a 422 saying %q", name, err, want)
		}
	}
	ber := fixture(t, "minutes.txt.p7m")
	bad := map[string][]byte{
		"empty":          nil,
		"junk":           []byte("this is not a signature at all"),
		"truncated":      ber[:len(ber)/2],
		"huge length":    {0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x06, 0x01, 0x00},
		"deep":           append(bytes.Repeat([]byte{0x30, 0x80}, 10000), 0, 0),
		"primitive inf":  {0x04, 0x80, 0x00, 0x00},
		"data, unsigned": {0x30, 0x0b, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01},
	}
	for name, data := range bad {
		if _, err := p7m.Unwrap(data); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestUnwrapChunkedContent(t *testing.T) {
	got, err := p7m.Unwrap(fixture(t, "minutes.txt.p7m"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Signed minutes of the harbour committee.\n\nThe committee approved the new breakwater budget.\n"; string(got) != want {
		t.Errorf("got %q", got)
	}
}

func FuzzUnwrap(f *testing.F) {
	for _, n := range []string{"minutes.txt.p7m", "invoice.html.p7m", "detached.p7s", "encrypted.p7m"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		content, err := p7m.Unwrap(data)
		if err == nil && len(content) == 0 {
			t.Fatal("empty content without an error")
		}
	})
}
