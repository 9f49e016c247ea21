package epub

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/metrics"
)

const refDir = "../../testdata/reference"

func run(data []byte) ([]element.Element, error) {
	var out []element.Element
	opts := engine.DefaultOptions()
	err := Partition(context.Background(), engine.NewDocument("book.epub", data), opts.Keys(), func(e element.Element) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("scoring a 500 KB book takes seconds")
	}
	data, err := os.ReadFile(filepath.Join(refDir, "docs/winter-sports.epub"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := run(data)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(refDir, "expected/oss-2024/winter-sports.epub.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gold []element.Element
	if err := json.Unmarshal(raw, &gold); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i].Metadata.CategoryDepth = nil // removed from the golden by its producer
	}
	cct := metrics.Round3(metrics.BatchAccuracy(metrics.CCT(got), metrics.CCT(gold)))
	types := metrics.Round3(metrics.TypeAccuracy(got, gold))
	t.Logf("%-20s n=%d gold=%d cct=%.3f types=%.3f", "winter-sports.epub", len(got), len(gold), cct, types)
	if cct < 0.98 {
		t.Errorf("CCT accuracy %.3f < 0.98", cct)
	}
	if os.Getenv("DUMP") != "" {
		for _, e := range got {
			t.Logf("%s %q", e.Type, e.Text)
		}
	}
}

func makeZip(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	zw.Close()
	return buf.Bytes()
}

func TestSpineOrderAndBadInput(t *testing.T) {
	book := makeZip(t, map[string]string{
		"META-INF/container.xml": `<container><rootfiles><rootfile full-path="OPS/pkg.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
		"OPS/pkg.opf": `<package><manifest><item id="a" href="text/a%20b.xhtml" media-type="application/xhtml+xml"/>
<item id="b" href="b.xhtml" media-type="application/xhtml+xml"/><item id="c" href="c.css" media-type="text/css"/></manifest>
<spine><itemref idref="b"/><itemref idref="c"/><itemref idref="a"/></spine></package>`,
		"OPS/text/a b.xhtml": `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><body><h2>Second</h2><p><a id="x"/>after anchor</p></body></html>`,
		"OPS/b.xhtml":        `<html><body><h1>First</h1></body></html>`,
	})
	got, err := run(book)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range got {
		texts = append(texts, string(e.Type)+":"+e.Text)
	}
	if want := "Title:First|Title:Second|UncategorizedText:after anchor"; strings.Join(texts, "|") != want {
		t.Errorf("got %v, want %s", texts, want)
	}
	if got[2].Metadata.LinkTexts != nil {
		t.Errorf("self-closed anchor became a link: %+v", got[2].Metadata)
	}
	for _, bad := range [][]byte{nil, []byte("not a zip"), book[:len(book)/2]} {
		if _, err := run(bad); err == nil {
			t.Errorf("%d bytes: no error", len(bad))
		}
	}
	// A zip bomb: one highly compressible entry larger than the per-entry cap.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"META-INF/container.xml": `<container><rootfiles><rootfile full-path="p.opf"/></rootfiles></container>`,
		"p.opf":                  `<package><manifest><item id="a" href="a.html" media-type="text/html"/></manifest><spine><itemref idref="a"/></spine></package>`,
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	w, _ := zw.Create("a.html")
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for i := 0; i < maxEntryBytes>>20+1; i++ {
		w.Write(chunk)
	}
	zw.Close()
	if _, err := run(buf.Bytes()); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("zip bomb: err = %v", err)
	}
}
