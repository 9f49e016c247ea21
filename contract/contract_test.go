package contract

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestOptionsAccessors(t *testing.T) {
	o := Options{
		KeyIncludePageBreaks: {"true"}, KeyStartingPageNumber: {"1", "4"}, "pdfminer_char_margin": {"0.5"},
		KeyLanguages: {"eng", "deu"}, KeyCoordinates: {"maybe"}, "shout_volume": {"11"},
	}
	if !o.Bool(KeyIncludePageBreaks, false) || o.Bool(KeyCoordinates, false) || !o.Bool("xml_keep_tags", true) {
		t.Error("Bool")
	}
	if o.Int(KeyStartingPageNumber, 1) != 4 || o.Int("absent", 9) != 9 || o.Int(KeyLanguages, -1) != -1 {
		t.Error("Int takes the last value, else the default")
	}
	if o.Float("pdfminer_char_margin", 0) != 0.5 || o.Float("pdfminer_line_margin", 2) != 2 {
		t.Error("Float")
	}
	if o.Get("shout_volume") != "11" || o.Get("absent") != "" || o.Has("absent") || !o.Has(KeyLanguages) {
		t.Error("Get/Has")
	}
	if fmt.Sprint(o.Values(KeyLanguages)) != "[eng deu]" || fmt.Sprint(o.Keys()[:2]) != "[coordinates include_page_breaks]" {
		t.Error("Values/Keys")
	}
	c := o.Clone()
	c[KeyLanguages][0] = "fra"
	if o.Get(KeyLanguages) != "deu" || o.Values(KeyLanguages)[0] != "eng" {
		t.Error("Clone shares storage")
	}
}

func TestStandardKeysUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range StandardKeys {
		if seen[s.Key] || s.Since < 2 || s.Help == "" {
			t.Errorf("bad declaration %+v", s)
		}
		seen[s.Key] = true
		if got, ok := LookupKey(s.Key); !ok || got != s {
			t.Errorf("LookupKey(%q)", s.Key)
		}
	}
	if _, ok := LookupKey("chunking_strategy"); ok {
		t.Error("chunking crosses the wire")
	}
}

func TestMemoAndProgress(t *testing.T) {
	d := NewDocument("a/b.txt", []byte("hello"))
	calls := 0
	build := func() (any, error) { calls++; return calls, errors.New("once") }
	v1, e1 := d.Memo("k", build)
	v2, e2 := d.Memo("k", build)
	if calls != 1 || v1 != v2 || e1 != e2 || d.BaseName() != "b.txt" {
		t.Errorf("memo built %d times", calls)
	}
	if b, _ := d.Bytes(); string(b) != "hello" {
		t.Error("Bytes")
	}
	ReportProgress(context.Background(), 1, 2, "none") // no hook: nothing happens
	var got string
	ctx := WithProgress(context.Background(), func(page, pages int, stage string) { got = fmt.Sprintln(page, pages, stage) })
	ReportProgress(ctx, 1, 2, "ocr")
	if got != "1 2 ocr\n" {
		t.Errorf("progress %q", got)
	}
	var err error = Errorf(KindBadRequest, "bad %d", 3)
	var ce *Error
	if !errors.As(err, &ce) || ce.Kind != KindBadRequest || err.Error() != "bad 3" {
		t.Error("Errorf")
	}
}
