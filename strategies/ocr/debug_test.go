package ocr

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/engine"
)

func TestDebugRows(t *testing.T) {
	name := os.Getenv("QUARRY_OCR_ROWS")
	if name == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(filepath.Join(refDir, "docs", name))
	doc := engine.NewDocument(name, data)
	ft := engine.Detect(doc, "")
	doc.MIMEType = ft.MIME
	src, _, err := openSource(context.Background(), doc, 300)
	if err != nil {
		t.Fatal(err)
	}
	o := New(Config{Workers: 1})
	r := o.page(context.Background(), src, 1, "eng")
	if r.err != nil {
		t.Fatal(r.err)
	}
	for _, w := range r.words {
		t.Logf("b%d p%d l%d conf%3.0f %v %q", w.Block, w.Par, w.Line, w.Conf, w.Box, w.Text)
	}
}

func TestDebugTable(t *testing.T) {
	name := os.Getenv("QUARRY_OCR_ROWS")
	if name == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(filepath.Join(refDir, "docs", name))
	doc := engine.NewDocument(name, data)
	doc.MIMEType = engine.Detect(doc, "").MIME
	src, _, _ := openSource(context.Background(), doc, 300)
	r := New(Config{Workers: 1}).page(context.Background(), src, 1, "eng")
	used := make([]bool, len(r.words))
	debugRows = func(rs []*row) {
		for _, x := range rs {
			var segs []string
			for _, s := range x.segs {
				segs = append(segs, joinWords(pick(r.words, s)))
			}
			t.Logf("row %v h%d segs %q", x.box, x.h, segs)
		}
	}
	tabs := detectTables(r.words, used)
	t.Logf("%d tables", len(tabs))
}

func pick(ws []Word, idx []int) []Word {
	var out []Word
	for _, i := range idx {
		out = append(out, ws[i])
	}
	return out
}

func TestDebugLines(t *testing.T) {
	name := os.Getenv("QUARRY_OCR_ROWS")
	if name == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(filepath.Join(refDir, "docs", name))
	doc := engine.NewDocument(name, data)
	doc.MIMEType = engine.Detect(doc, "").MIME
	src, _, _ := openSource(context.Background(), doc, 300)
	r := New(Config{Workers: 1}).page(context.Background(), src, 1, "eng")
	lines := toLines(r.words, nil)
	t.Logf("gutter %d", gutter(lines))
	for _, l := range lines {
		if l.box.Min.X < 1280 && l.box.Max.X > 1230 {
			t.Logf("crossing %v %q", l.box, l.text)
		}
	}
}

func TestDebugSavePGM(t *testing.T) {
	name := os.Getenv("QUARRY_OCR_ROWS")
	if name == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(filepath.Join(refDir, "docs", name))
	pgm, err := decodeGrey(data, -1)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/dbg.pgm", pgm, 0o644)
	img, _ := parsePGM(pgm)
	os.WriteFile("/tmp/dbg-clean.pgm", encodePGM(removeRules(img)), 0o644)
}

func TestDebugGosseract(t *testing.T) {
	name := os.Getenv("QUARRY_OCR_ROWS")
	if name == "" {
		t.Skip()
	}
	for _, f := range []string{"/tmp/dbg.pgm", "/tmp/dbg-clean.pgm", filepath.Join(refDir, "docs", name)} {
		b, _ := os.ReadFile(f)
		tt := newTesseract()
		ws, err := tt.recognize(b, "eng")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d words: %s", f, len(ws), joinWords(ws))
	}
}
