package email

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeBase64(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SGVsbG8gd29ybGQ=", "Hello world"},
		{"SGVsbG8g\r\nd29y\nbGQ", "Hello world"},     // folded, padding missing
		{" SGVs bG8g\td29ybGQ= \r\n", "Hello world"}, // blanks anywhere
		{"SGVsbG8=IHdvcmxk", "Hello world"},          // two encodings concatenated
		{"SGVs!bG8*gd29y~bGQ=", "Hello world"},       // stray bytes skipped
		{"SGVsbG8gd29ybGQx=", "Hello world1"},        // short quantum at the end
		{"SGVsbG8gd29ybGQxM", "Hello world1"},        // one dangling character
		{"", ""},
	}
	for _, c := range cases {
		if got := string(decodeBase64([]byte(c.in))); got != c.want {
			t.Errorf("decodeBase64(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Longer than the internal quantum buffer.
	long := strings.Repeat("QUJD", 1000)
	if got := string(decodeBase64([]byte(long))); got != strings.Repeat("ABC", 1000) {
		t.Errorf("long input decoded to %d bytes", len(got))
	}
}

func TestDecodeQP(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Caf=E9 au lait.\r\n", "Caf\xe9 au lait.\r\n"},
		{"soft=\r\nbreak\n", "softbreak\n"},
		{"soft=  \nbreak", "softbreak"}, // blanks after the soft break's "="
		{"trailing   \nblanks\t\r\n", "trailing\nblanks\r\n"},
		{"a=3db =3D c", "a=b = c"},             // lower-case hex accepted
		{"price=5 and =XY", "price=5 and =XY"}, // invalid escapes kept
		{"raw caf\xe9\n", "raw caf\xe9\n"},     // 8-bit bytes kept
		{"end=", "end"},
		{"=", ""},
	}
	for _, c := range cases {
		if got := string(decodeQP([]byte(c.in))); got != c.want {
			t.Errorf("decodeQP(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSplitMultipart(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		{"preamble and epilogue dropped", "preamble\r\n--B\r\none\r\n--B\r\ntwo\r\n--B--\r\nepilogue", []string{"one", "two"}},
		{"delimiter at the start", "--B\nx\n--B--\n", []string{"x"}},
		{"padding after delimiters", "--B \t\nx\n--B--  \n", []string{"x"}},
		{"line break before the delimiter belongs to it", "--B\n\nbody\n\n--B--", []string{"\nbody\n"}},
		{"unterminated", "--B\nfirst\n--B\nlast part runs to the end\n", []string{"first", "last part runs to the end\n"}},
		{"longer boundary is not ours", "--B\nouter\n--B2\ninner\n--B--", []string{"outer\n--B2\ninner"}},
		{"delimiter inside a line is not one", "--B\nsee --B here\n--B--", []string{"see --B here"}},
		{"junk after the close", "--B\nx\n--B-->\nmalicious", []string{"x"}},
		{"no delimiter", "just text", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts, err := newMIMEReader(len(c.body)).split([]byte(c.body), "B")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range parts {
				got = append(got, string(p))
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestParseHeader(t *testing.T) {
	cases := []struct {
		name, in string
		want     header
		body     string
	}{
		{"folded", "Subject: one\r\n two\r\n\tthree\r\nTo: a@x\r\n\r\nbody", header{"subject": {"one two three"}, "to": {"a@x"}}, "body"},
		{"repeated fields in order", "Received: 1\nreceived: 2\n\n", header{"received": {"1", "2"}}, ""},
		{"blank before colon", "Subject : hi\n\nb", header{"subject": {"hi"}}, "b"},
		{"mbox separator skipped", "From someone@x Mon Jan  1 10:00:00 2024\nFrom: a@x\n\nb", header{"from": {"a@x"}}, "b"},
		{"unindented fold between fields", "Content-Type: application/zip;\nname=\"a.zip\"\nContent-Disposition: attachment\n\nb",
			header{"content-type": {`application/zip; name="a.zip"`}, "content-disposition": {"attachment"}}, "b"},
		{"no blank line before the body", "Content-Type: text/plain\nHello there.\nSecond line.", header{"content-type": {"text/plain"}}, "Hello there.\nSecond line."},
		{"no header at all", "\nonly body", header{}, "only body"},
		{"unprintable name dropped", "\x00\x01: x\nSubject: s\n\nb", header{"subject": {"s"}}, "b"},
		{"header only", "Subject: s", header{"subject": {"s"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, body := parseHeader([]byte(c.in))
			if !reflect.DeepEqual(h, c.want) || string(body) != c.body {
				t.Errorf("got %q, body %q; want %q, body %q", h, body, c.want, c.body)
			}
		})
	}
}

func TestParseMediaType(t *testing.T) {
	cases := []struct {
		in     string
		mt     string
		params map[string]string
	}{
		{`text/HTML; charset="UTF-8"`, "text/html", map[string]string{"charset": "UTF-8"}},
		{`application/pdf name="a b.pdf"`, "application/pdf", map[string]string{}},
		{`attachment; filename=my file.pdf`, "attachment", map[string]string{"filename": "my file.pdf"}},
		{`attachment; filename="a.txt"; filename="b.txt"`, "attachment", map[string]string{"filename": "a.txt"}},
		{`attachment; filename*=utf-8''na%C3%AFve.txt; x=[1]`, "attachment", map[string]string{"filename": "naïve.txt", "x": "[1]"}},
		{`text/plain>`, "text/plain", map[string]string{}},
		{`text/plain; name="semi;colon \"q\""; [bad]`, "text/plain", map[string]string{"name": `semi;colon "q"`}},
		{"", "", nil},
	}
	for _, c := range cases {
		mt, params := parseMediaType(c.in)
		if mt != c.mt || !reflect.DeepEqual(params, c.params) {
			t.Errorf("parseMediaType(%q) = %q %q, want %q %q", c.in, mt, params, c.mt, c.params)
		}
	}
}

func TestDecodeCharset(t *testing.T) {
	cases := []struct{ data, charset, want string }{
		{"caf\xe9", "iso-8859-1", "café"},
		{"caf\xe9", `"ISO_8859-1"`, "café"},
		{"caf\xc3\xa9", "", "café"},
		{"caf\xc3\xa9", "us-ascii", "café"},          // mislabelled UTF-8 kept
		{"caf\xe9", "us-ascii", "café"},              // 8-bit bytes in "ASCII" sniffed
		{"caf\xc3\xa9 \xff", "utf-8", "café \uFFFD"}, // bad bytes replaced
		{"caf\xe9", "x-unknown-42", "café"},          // unknown charset sniffed
		{"caf\xe9", "charset=windows-1252", "café"},
	}
	for _, c := range cases {
		if got := decodeCharset([]byte(c.data), c.charset); got != c.want {
			t.Errorf("decodeCharset(%q, %q) = %q, want %q", c.data, c.charset, got, c.want)
		}
	}
}

func TestDecodeHeader(t *testing.T) {
	cases := []struct{ in, want string }{
		{"=?UTF-8?B?SsO8cmdlbg==?= =?UTF-8?Q?_M=C3=BCller?=", "Jürgen Müller"},
		{"Re: =?iso-8859-1?q?caf=E9?=", "Re: café"},
		{"=?windows-1251?B?z/Do4uXy?=", "Привет"},
		{"=?x-unknown?Q?abc?=", "=?x-unknown?Q?abc?="},
		{"plain", "plain"},
	}
	for _, c := range cases {
		if got := decodeHeader(c.in); got != c.want {
			t.Errorf("decodeHeader(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseAddressList(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`a@x.io, "Doe, Jane" <jd@x.io>`, []string{"a@x.io", `"Doe, Jane" <jd@x.io>`}},
		{`a@x.io; b@y.io`, []string{"a@x.io", "b@y.io"}},
		{`a@x.io b@y.io`, []string{"a@x.io", "b@y.io"}},
		{`Ann <a@x.io> Bob <b@y.io>`, []string{"Ann <a@x.io>", "Bob <b@y.io>"}},
		{`"=?UTF-8?Q?Z=C3=B6e?=" <z@x.io>`, []string{"Zöe <z@x.io>"}},
		{`=?UTF-8?B?SsO8cmdlbg==?= <j@x.io>`, []string{"Jürgen <j@x.io>"}},
		{`a@x.io (Ann) b@y.io`, []string{"Ann <a@x.io>", "b@y.io"}},
	}
	for _, c := range cases {
		list, err := parseAddressList(c.in)
		if err != nil {
			t.Errorf("parseAddressList(%q): %v", c.in, err)
			continue
		}
		var got []string
		for _, a := range list {
			got = append(got, formatAddress(a.Name, a.Address))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseAddressList(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"<<<@@@>>>", ",,,", `"unterminated`} {
		if _, err := parseAddressList(bad); err == nil {
			t.Errorf("parseAddressList(%q): no error", bad)
		}
	}
}

// TestParseEMLStructure covers what the reader decides about parts: text bodies found
// through nesting, a charset declared on a text attachment applied, bytes of other
// attachments left alone, and a Content-Type that does not parse read as text/plain.
func TestParseEMLStructure(t *testing.T) {
	raw := "From: a@x.io\nContent-Type: multipart/mixed; boundary=\"outer\"\n\npreamble\n--outer\n" +
		"Content-Type: multipart/alternative; boundary=inner\n\n--inner\nContent-Type: text/plain; charset=iso-8859-1\n" +
		"Content-Transfer-Encoding: quoted-printable\n\nCaf=E9\n--inner--\n" +
		"--outer\nContent-Type: text/csv; charset=windows-1252\nContent-Disposition: attachment; filename=\"=?utf-8?q?r=C3=A9sum=C3=A9?=.csv\"\n\n" +
		"na\xefve,1\n--outer\nContent-Type: application/octet-stream\nContent-Disposition: attachment; filename=b.bin\n" +
		"Content-Transfer-Encoding: base64\n\n/+7dzA==\n--outer--\n"
	m, err := ParseEML([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if !m.HasText || m.Text != "Café" {
		t.Errorf("text body %q", m.Text)
	}
	want := []Attachment{
		{Name: "résumé.csv", ContentType: "text/csv", Data: []byte("naïve,1")},
		{Name: "b.bin", ContentType: "application/octet-stream", Data: []byte{0xff, 0xee, 0xdd, 0xcc}},
	}
	if !reflect.DeepEqual(m.Attachments, want) {
		t.Errorf("attachments %+v, want %+v", m.Attachments, want)
	}

	m, err = ParseEML([]byte("Content-Type: <html>\n\nSome words.\n"))
	if err != nil || m.Text != "Some words.\n" {
		t.Errorf("invalid Content-Type: %+v, %v", m, err)
	}
	m, err = ParseEML([]byte("Content-Type: multipart/mixed\n\nNo boundary, still text.\n"))
	if err != nil || m.Text != "No boundary, still text.\n" {
		t.Errorf("multipart without boundary: %+v, %v", m, err)
	}
}

func TestMIMELimits(t *testing.T) {
	// Many tiny parts: refused past the part limit.
	var b strings.Builder
	b.WriteString("Content-Type: multipart/mixed; boundary=B\n\n")
	for range maxParts + 1 {
		b.WriteString("--B\n\nx\n")
	}
	if _, err := ParseEML([]byte(b.String())); err == nil {
		t.Error("no error past the part limit")
	}
	// Nesting that rescans a large body: refused when the scan budget runs out.
	r := &mimeReader{budget: 1000}
	body := "--B\n" + strings.Repeat("y", 2000) + "\n--B--\n"
	if _, err := r.split([]byte(body), "B"); err == nil {
		t.Error("no error past the scan budget")
	}
}

// FuzzParseEML: any input parses or fails cleanly, and decoded bodies are UTF-8.
func FuzzParseEML(f *testing.F) {
	for _, s := range []string{
		"From: a@x.io\nSubject: =?utf-8?q?hi?=\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\nCaf=E9\n",
		"Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/html\nContent-Transfer-Encoding: base64\n\nPHA+aGk8L3A+\n--B\nContent-Disposition: attachment; filename=a.txt\n\nx\n--B--\n",
		"Content-Type: multipart/related; boundary=R; start=\"<b>\"\n\n--R\nContent-ID: <a>\n\none\n--R\nContent-ID: <b>\nContent-Type: text/html\n\ntwo\n--R--",
		"To: a@x.io; b@y.io\nCc: \"Doe, J\" <j@x.io>\n\n",
		"\x00\x01\x02: \xff\xfe\n\n\xff\xfe\xfd",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseEML(data)
		if err != nil {
			return
		}
		if !utf8.ValidString(m.HTML) || !utf8.ValidString(m.Text) {
			t.Errorf("body is not UTF-8: %q %q", m.HTML, m.Text)
		}
	})
}
