package opc

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestNotZip(t *testing.T) {
	data := []byte("this is not a zip file at all")
	if _, err := Open(bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrNotZip) {
		t.Fatalf("got %v, want ErrNotZip", err)
	}
}

func TestPartCap(t *testing.T) {
	data := zipOf(t, map[string]string{"big.xml": strings.Repeat("a", 1<<16), "small.xml": "ok"})
	p, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	p.MaxPartSize = 1 << 10
	if _, err := p.ReadPart("small.xml"); err != nil {
		t.Fatalf("small part: %v", err)
	}
	if _, err := p.ReadPart("big.xml"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("big part: got %v, want ErrTooLarge", err)
	}
}

func TestTotalCap(t *testing.T) {
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d"} {
		files[n+".xml"] = strings.Repeat("x", 1<<12)
	}
	data := zipOf(t, files)
	p, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	p.MaxTotalSize = 3 << 12
	var last error
	for _, n := range []string{"a", "b", "c", "d"} {
		if _, err := p.ReadPart(n + ".xml"); err != nil {
			last = err
		}
	}
	if !errors.Is(last, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", last)
	}
}

func TestRelsAndTargets(t *testing.T) {
	data := zipOf(t, map[string]string{
		"word/document.xml": "<d/>",
		"word/_rels/document.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://x/relationships/styles" Target="styles.xml"/>
<Relationship Id="rId2" Type="http://x/relationships/hyperlink" Target="https://example.com/a?b=1" TargetMode="External"/>
<Relationship Id="rId3" Type="http://x/relationships/image" Target="../media/i.png"/>
<Relationship Id="rId4" Type="http://x/relationships/x" Target="/word/abs.xml"/>
</Relationships>`,
	})
	p, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	rels, err := p.Rels("word/document.xml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"rId1": "word/styles.xml", "rId2": "https://example.com/a?b=1", "rId3": "media/i.png", "rId4": "word/abs.xml"}
	for id, target := range want {
		if rels[id].Target != target {
			t.Errorf("%s: got %q want %q", id, rels[id].Target, target)
		}
	}
	if !rels["rId2"].External || rels["rId1"].External {
		t.Error("external flags wrong")
	}
	if r, ok := RelByType(rels, "/styles"); !ok || r.ID != "rId1" {
		t.Errorf("RelByType: %v %v", r, ok)
	}
	if !p.Has("WORD/DOCUMENT.XML") {
		t.Error("part names should be case-insensitive")
	}
}
