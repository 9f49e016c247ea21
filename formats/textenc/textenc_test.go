package textenc

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/quarrydocs/quarry/contract"
)

func TestDecode(t *testing.T) {
	cases := []struct {
		in, enc, want string
	}{
		{"caf\xe9", "cp1252", "café"},
		{"caf\xe9", "CP1252", "café"},
		{"caf\xe9", "windows_1252", "café"},
		{"caf\xe9", "latin-1", "café"},
		{"\x80", "windows-1252", "€"},
		{"\xef\xbb\xbfhi", "", "hi"},
		{"h\xc3\xa9", "", "hé"},
		{"h\xe9", "", "hé"}, // not UTF-8: detected as cp1252
	}
	for _, c := range cases {
		got, err := Decode([]byte(c.in), c.enc)
		if err != nil || got != c.want {
			t.Errorf("Decode(%q, %q) = %q, %v; want %q", c.in, c.enc, got, err, c.want)
		}
	}
	if _, err := Decode([]byte("x"), "klingon"); err == nil || err.Error() != "unknown encoding: klingon" {
		t.Errorf("unknown encoding: %v", err)
	}
	if _, err := Decode([]byte("ok\xff"), "utf-8"); err == nil || !strings.Contains(err.Error(), "position 2") {
		t.Errorf("invalid utf-8: %v", err)
	}
	if _, err := Decode([]byte("\x81"), "cp1252"); err == nil {
		t.Error("undefined cp1252 byte accepted")
	}
}

func TestStreamingReaderChecksUTF8AcrossReads(t *testing.T) {
	text := strings.Repeat("é", 5000) // two-byte runes cut at every read boundary
	r, _ := NewReader(iotest.OneByteReader(strings.NewReader(text)), "")
	buf := make([]byte, 0, len(text))
	chunk := make([]byte, 8)
	for {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if string(buf) != text {
		t.Error("streamed text changed")
	}
	r, _ = NewReader(strings.NewReader("abc\xffdef"), "utf-8")
	if _, err := io.ReadAll(r); err == nil || !strings.Contains(err.Error(), "position 3") {
		t.Errorf("invalid byte not reported: %v", err)
	}
}

// TestErrorKinds: a wrong encoding is the client's mistake, answered 4xx, not 500 as the
// reference does: an unknown name is a bad parameter, undecodable bytes a document that
// cannot be read as named. The reference's messages stay.
func TestErrorKinds(t *testing.T) {
	kindOf := func(err error) contract.Kind {
		var ce *contract.Error
		if !errors.As(err, &ce) {
			return contract.KindInternal
		}
		return ce.Kind
	}
	_, err := Decode([]byte("x"), "klingon")
	if kindOf(err) != contract.KindBadRequest || !errors.Is(err, ErrUnknown) || err.Error() != "unknown encoding: klingon" {
		t.Errorf("unknown encoding: kind %d, %v", kindOf(err), err)
	}
	if _, err := NewReader(strings.NewReader("x"), "klingon"); kindOf(err) != contract.KindBadRequest {
		t.Errorf("unknown encoding (reader): kind %d, %v", kindOf(err), err)
	}
	for _, c := range []struct{ in, enc string }{{"ok\xff", "utf-8"}, {"caf\xe9", "ascii"}, {"\x81", "cp1252"}} {
		if _, err := Decode([]byte(c.in), c.enc); kindOf(err) != contract.KindUnprocessable {
			t.Errorf("Decode(%q, %s): kind %d, %v", c.in, c.enc, kindOf(err), err)
		}
		r, err := NewReader(strings.NewReader(c.in), c.enc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(r); c.enc != "cp1252" && kindOf(err) != contract.KindUnprocessable {
			t.Errorf("reading %q as %s: kind %d, %v", c.in, c.enc, kindOf(err), err)
		}
	}
}

// The 7-bit escape encodings (pure ASCII bytes, so they would pass for UTF-8) are detected
// and decoded; cp949 is Korean's usual name.
func TestDetectEastAsian(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"iso-2022-jp", "Python \x1b$B$N3+H/\x1b(B OK", "Python の開発 OK"},
		{"iso-2022-kr", "\x1b$)C\n\x0e!]\x0f FD\n\x0eFD@L=c\x0f(Python)", "\n◎ FD\n파이썬(Python)"},
		{"hz", "This is ASCII. ~{<:Ky2;S{#,NpJ)l6HK!#~}Bye.", "This is ASCII. 己所不欲，勿施於人。Bye."},
	}
	for _, c := range cases {
		got, err := Decode([]byte(c.in), "")
		if err != nil || got != c.want {
			t.Errorf("%s: detected %q, got %q, %v; want %q", c.name, Detect([]byte(c.in)), got, err, c.want)
		}
	}
	if got, err := Decode([]byte("\xb0\xa1\x81\x41"), "cp949"); err != nil || got != "가갂" {
		t.Errorf("cp949: %q, %v", got, err)
	}
	// A tilde in ASCII prose is not HZ.
	if got := Detect([]byte("home is ~{user} and ~ more")); got != "utf-8" {
		t.Errorf("tilde text detected as %q", got)
	}
}
