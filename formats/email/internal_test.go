package email

import (
	"strings"
	"testing"
)

func TestFormatAddress(t *testing.T) {
	cases := []struct{ name, addr, want string }{
		{"Matthew Robinson", "m@x.io", "Matthew Robinson <m@x.io>"},
		{"", "m@x.io", "m@x.io"},
		{"Doe, Jane", "j@x.io", `"Doe, Jane" <j@x.io>`},
		{"John Q. Public", "j@x.io", `"John Q. Public" <j@x.io>`},
		{`Say "hi"`, "s@x.io", `"Say \"hi\"" <s@x.io>`},
	}
	for _, c := range cases {
		if got := formatAddress(c.name, c.addr); got != c.want {
			t.Errorf("formatAddress(%q, %q) = %q, want %q", c.name, c.addr, got, c.want)
		}
	}
}

func TestDecompressRTF(t *testing.T) {
	if len(rtfPrebuf) != 207 {
		t.Fatalf("prebuf is %d bytes, want 207", len(rtfPrebuf))
	}
	// [MS-OXRTFCP] section 3.1.1, example 1.
	comp := []byte{0x2d, 0x00, 0x00, 0x00, 0x2b, 0x00, 0x00, 0x00, 0x4c, 0x5a, 0x46, 0x75, 0xf1, 0xc5, 0xc7, 0xa7,
		0x03, 0x00, 0x0a, 0x00, 0x72, 0x63, 0x70, 0x67, 0x31, 0x32, 0x35, 0x42, 0x32, 0x0a, 0xf3, 0x20,
		0x68, 0x65, 0x6c, 0x09, 0x00, 0x20, 0x62, 0x77, 0x05, 0xb0, 0x6c, 0x64, 0x7d, 0x0a, 0x80, 0x0f, 0xa0}
	got, err := decompressRTF(comp)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\\rtf1\\ansi\\ansicpg1252\\pard hello world}\r\n"; string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Hostile input: truncated and garbage streams end cleanly.
	for n := 0; n < len(comp); n++ {
		_, _ = decompressRTF(comp[:n])
	}
}

func TestHTMLFromRTF(t *testing.T) {
	rtf := "{\\rtf1\\ansi\\ansicpg1252\\fromhtml1 \\deff0{\\fonttbl{\\f0 Arial;}}" +
		"{\\*\\htmltag19 <html>}{\\*\\htmltag2 \\par }{\\*\\htmltag64 <p>}\\htmlrtf {\\htmlrtf0 Caf\\'e9 \\{ok\\}" +
		"\\htmlrtf }\\htmlrtf0 {\\*\\htmltag72 </p>}{\\*\\htmltag27 </html>}}"
	got, ok := htmlFromRTF([]byte(rtf))
	if !ok {
		t.Fatal("not recognised as encapsulated HTML")
	}
	if want := "<html>\r\n<p>Café {ok}</p></html>"; strings.ReplaceAll(got, " \r\n", "\r\n") != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, ok := htmlFromRTF([]byte("{\\rtf1 plain}")); ok {
		t.Fatal("plain RTF taken for HTML")
	}
}
