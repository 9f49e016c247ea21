package email

import (
	"os"
	"strings"
	"testing"
)

// winmailDat returns the TNEF stream inside testdata/winmail.eml.
func winmailDat(t testing.TB) []byte {
	data, err := os.ReadFile("testdata/winmail.eml")
	if err != nil {
		t.Fatal(err)
	}
	root, err := newMIMEReader(len(data)).parse(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range root.children {
		if c.fileName == "winmail.dat" {
			return c.content()
		}
	}
	t.Fatal("no winmail.dat part")
	return nil
}

func TestParseTNEF(t *testing.T) {
	raw := winmailDat(t)
	tn, err := parseTNEF(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !tn.hasHTML || !strings.Contains(tn.html, "<h1>Quarterly review</h1>") {
		t.Errorf("html %q", tn.html)
	}
	var names []string
	for _, a := range tn.attachments {
		names = append(names, a.Name)
	}
	if strings.Join(names, "|") != "Quarterly report 2026.txt|notes.csv" {
		t.Errorf("attachments %q", names)
	}
	// Cut short anywhere: no panic, what came before is kept.
	for n := 0; n < len(raw); n += 7 {
		tn, err := parseTNEF(raw[:n])
		if n >= 6 && err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		if tn != nil && len(tn.attachments) > 2 {
			t.Fatalf("cut at %d: %d attachments", n, len(tn.attachments))
		}
	}
	if _, err := parseTNEF([]byte("not tnef at all")); err == nil {
		t.Error("no error for bytes without the signature")
	}
}

func FuzzTNEF(f *testing.F) {
	f.Add(winmailDat(f))
	f.Add([]byte{0x78, 0x9f, 0x3e, 0x22, 1, 1, 2, 3, 0x90, 6, 0, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, b []byte) {
		tn, err := parseTNEF(b)
		if err == nil && len(tn.attachments) > maxTNEFAttachments {
			t.Fatalf("%d attachments", len(tn.attachments))
		}
		mapiProps(b, 1252)
	})
}
