package odg_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/formats/odg"
)

func partition(t *testing.T, name string, data []byte, mutate func(*engine.Options)) ([]element.Element, error) {
	t.Helper()
	opts := engine.DefaultOptions()
	if mutate != nil {
		mutate(&opts)
	}
	return engine.Partition(context.Background(), engine.NewDocument(name, data), opts)
}

// The text of every page's text boxes, shapes, groups, connectors and framed tables, in
// order, numbered by page (an empty page keeps its number); image frames, alt text and notes
// are not page text. The packaged and flat forms read alike, each under its own type.
func TestDrawingText(t *testing.T) {
	want := `1 Title "Order handling process"
1 NarrativeText "Every order is checked by the warehouse before it ships."
1 NarrativeText "Receive order"
1 UncategorizedText "Check stock"
1 UncategorizedText "Ship\nparcel"
1 UncategorizedText "if in stock"
3 Table "Colour Meaning Green Shipped"
3 ListItem "Orders over 50 kg go by freight"
3 ListItem "Returns use the same flow"
`
	for file, mime := range map[string]string{"shapes.odg": odg.MIME, "shapes.fodg": odg.MIMEFlat, "shapes-no-extension": odg.MIME} {
		data, err := os.ReadFile("testdata/" + strings.Replace(file, "-no-extension", ".odg", 1))
		if err != nil {
			t.Fatal(err)
		}
		els, err := partition(t, file, data, nil)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var got strings.Builder
		for _, e := range els {
			if e.Metadata.Filetype != mime {
				t.Errorf("%s: filetype %s, want %s", file, e.Metadata.Filetype, mime)
			}
			fmt.Fprintf(&got, "%d %s %q\n", *e.Metadata.PageNumber, e.Type, e.Text)
			if e.Type == element.Table && !strings.Contains(e.Metadata.TextAsHTML, "<td>Green</td>") {
				t.Errorf("%s: table HTML %q", file, e.Metadata.TextAsHTML)
			}
		}
		if got.String() != want {
			t.Errorf("%s:\n%s\nwant\n%s", file, got.String(), want)
		}
	}
}

// include_page_breaks puts a PageBreak after each page but the last, empty pages included.
func TestPageBreaks(t *testing.T) {
	data, err := os.ReadFile("testdata/shapes.odg")
	if err != nil {
		t.Fatal(err)
	}
	els, err := partition(t, "shapes.odg", data, func(o *engine.Options) { o.IncludePageBreaks = true })
	if err != nil {
		t.Fatal(err)
	}
	var pages []int
	for _, e := range els {
		if e.Type == element.PageBreak {
			pages = append(pages, *e.Metadata.PageNumber)
		}
	}
	if fmt.Sprint(pages) != "[1 2]" {
		t.Errorf("page breaks after pages %v, want [1 2]", pages)
	}
}

// A package without content.xml, a truncated content.xml, malformed flat XML and content
// with no drawing body (plain text, an ODT's body) are unprocessable documents, not empty
// successes.
func TestBrokenDrawings(t *testing.T) {
	zipOf := func(members map[string]string) []byte {
		var b bytes.Buffer
		w := zip.NewWriter(&b)
		hdr := &zip.FileHeader{Name: "mimetype", Method: zip.Store}
		f, _ := w.CreateHeader(hdr)
		f.Write([]byte(odg.MIME))
		for name, body := range members {
			f, _ := w.Create(name)
			f.Write([]byte(body))
		}
		w.Close()
		return b.Bytes()
	}
	cases := map[string][]byte{
		"missing.odg":   zipOf(map[string]string{"styles.xml": "<x/>"}),
		"truncated.odg": zipOf(map[string]string{"content.xml": `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"><office:body><office:drawing><draw:page xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0">`}),
		"bad.fodg":      []byte(`<?xml version="1.0"?><office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"><office:body><office:drawing><oops></office:drawing>`),
		"text.fodg":     []byte("plain words, not a drawing"),
		"odt-body.odg":  zipOf(map[string]string{"content.xml": `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"><office:body><office:text/></office:body></office:document-content>`}),
	}
	for name, data := range cases {
		_, err := partition(t, name, data, nil)
		var ce *contract.Error
		if !errors.As(err, &ce) || ce.Kind != contract.KindUnprocessable {
			t.Errorf("%s: %v, want an unprocessable-document error", name, err)
		}
	}
}
