package auto

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/internal/pdftest"
	_ "github.com/quarrydocs/quarry/strategies/fast"
)

// fakeOCR stands in for the OCR plugin's hi_res: it records the pages it was asked for and
// emits one element per page.
type fakeOCR struct {
	mu             sync.Mutex
	calls, regions []string
}

func (f *fakeOCR) Partition(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
	f.mu.Lock()
	f.calls = append(f.calls, opts.Extra.Get(ExtraPages))
	f.regions = append(f.regions, opts.Extra.Get(ExtraRegions))
	f.mu.Unlock()
	for _, r := range strings.Split(opts.Extra.Get(ExtraRegions), ";") {
		if p, _, ok := strings.Cut(r, ":"); ok {
			n, _ := strconv.Atoi(p)
			if err := emit(element.Element{Type: element.Image, Text: "words in the picture", Metadata: element.Metadata{PageNumber: element.Int(n)}}); err != nil {
				return err
			}
		}
	}
	for _, s := range strings.Split(opts.Extra.Get(ExtraPages), ",") {
		n, _ := strconv.Atoi(s)
		if n == 0 {
			continue
		}
		if err := emit(element.Element{Type: element.NarrativeText, Text: fmt.Sprintf("ocr page %d", n), Metadata: element.Metadata{PageNumber: element.Int(n)}}); err != nil {
			return err
		}
	}
	return nil
}

var ocr = &fakeOCR{}

// The fake OCR and the routers are installed at init, as a program does at start-up: the
// registry is frozen once the first document is partitioned.
func init() {
	engine.ReplaceStrategy("hi_res", ocr)
	Install()
}

// With the API defaults (auto, table inference on) a born-digital page is laid out from its
// geometry and never OCRed; a scanned page and a page of unmapped glyphs go to OCR, in one call
// naming them, and the result keeps page order.
func TestDefaultsLayOutTextPagesAndOCROnlyTheOthers(t *testing.T) {
	f := pdftest.FirstExtra(4)
	res := fmt.Sprintf("<< /Font << /F1 %d 0 R /F2 %d 0 R >> /XObject << /Im1 %d 0 R >> >>", f, f+1, f+2)
	text := func(s string) string {
		return pdftest.Text("F1", 11, 72, 700, s+" is a sentence on a born-digital page.")
	}
	d := pdftest.Doc{
		Pages: []pdftest.Page{
			{Content: text("One"), Resources: res},
			{Content: "q 612 0 0 792 0 0 cm /Im1 Do Q", Resources: res},
			{Content: "BT /F2 12 Tf 72 700 Td <000100020003000400050006> Tj ET", Resources: res},
			{Content: text("Four"), Resources: res},
		},
		Extra: []string{
			pdftest.Helvetica,
			fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [%d 0 R] >>", f+3),
			pdftest.Stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8", "\x80"),
			"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 >>",
		},
	}
	ocr.calls = nil
	opts := engine.DefaultOptions()
	var reports []engine.Progress
	opts.Progress = func(p engine.Progress) {
		if p.Strategy != "" {
			reports = append(reports, p)
		}
	}
	els, err := engine.Partition(context.Background(), engine.NewDocument("mixed.pdf", d.Bytes()), opts)
	if err != nil {
		t.Fatal(err)
	}
	// The router's report (contract.ReportStrategy) reaches the engine's progress hook after
	// the engine's own choice.
	if n := len(reports); n < 2 || reports[n-1].Strategy != "hi_res" || fmt.Sprint(reports[n-1].Pages) != "[2 3]" {
		t.Errorf("strategy reports %+v, want the last one hi_res for pages [2 3]", reports)
	}
	if r := reports[len(reports)-1].Reason; !strings.Contains(r, "the other pages are laid out") {
		t.Errorf("reason %q does not say the other pages are laid out", r)
	}
	var got []string
	for _, e := range els {
		got = append(got, fmt.Sprintf("%d:%s", *e.Metadata.PageNumber, e.Text))
	}
	want := []string{"1:One is a sentence on a born-digital page.", "2:ocr page 2", "3:ocr page 3", "4:Four is a sentence on a born-digital page."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if len(ocr.calls) != 1 || ocr.calls[0] != "2,3" {
		t.Errorf("OCR calls = %q, want one for pages 2,3", ocr.calls)
	}
	// A document whose every page is scanned is not told about "the other pages".
	reports = nil
	scanned := d
	scanned.Pages = []pdftest.Page{d.Pages[2], d.Pages[1]}
	opts = engine.DefaultOptions()
	opts.Progress = func(p engine.Progress) {
		if p.Strategy != "" {
			reports = append(reports, p)
		}
	}
	if _, err := engine.Partition(context.Background(), engine.NewDocument("scan.pdf", scanned.Bytes()), opts); err != nil {
		t.Fatal(err)
	}
	if n := len(reports); n == 0 || reports[n-1].Reason != "no usable text layer" {
		t.Errorf("all-scanned reports %+v, want the last reason to be just \"no usable text layer\"", reports)
	}
	// A born-digital document never reaches OCR.
	ocr.calls = nil
	d.Pages = []pdftest.Page{{Content: text("Only"), Resources: res}}
	d.Pages = append(d.Pages, d.Pages[0], d.Pages[0], d.Pages[0])
	opts = engine.DefaultOptions()
	opts.Strategy = "hi_res"
	if _, err := engine.Partition(context.Background(), engine.NewDocument("text.pdf", d.Bytes()), opts); err != nil {
		t.Fatal(err)
	}
	if len(ocr.calls) != 0 {
		t.Errorf("OCR called on a born-digital PDF: %q", ocr.calls)
	}
}

// hi_res asked for by name reads the text inside a large placed image of a born-digital page
// (one OCR call listing the region, no page OCRed whole); auto does not.
func TestHiResReadsLargePictures(t *testing.T) {
	f := pdftest.FirstExtra(1)
	d := pdftest.Doc{
		Pages: []pdftest.Page{{
			Content:   pdftest.Text("F1", 11, 72, 720, "A sentence above a large picture of a sign.") + "q 300 0 0 200 72 400 cm /Im1 Do Q",
			Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> /XObject << /Im1 %d 0 R >> >>", f, f+1),
		}},
		Extra: []string{pdftest.Helvetica, pdftest.Stream("/Type /XObject /Subtype /Image /Width 600 /Height 400 /ColorSpace /DeviceGray /BitsPerComponent 8", strings.Repeat("\x80", 600*400))},
	}
	for _, c := range []struct {
		strategy string
		want     string
	}{{"hi_res", "words in the picture"}, {"auto", ""}} {
		ocr.calls, ocr.regions = nil, nil
		opts := engine.DefaultOptions()
		opts.Strategy = c.strategy
		els, err := engine.Partition(context.Background(), engine.NewDocument("sign.pdf", d.Bytes()), opts)
		if err != nil {
			t.Fatal(err)
		}
		var img *element.Element
		for i := range els {
			if els[i].Type == element.Image {
				img = &els[i]
			}
		}
		if img == nil || img.Text != c.want {
			t.Errorf("%s: image element %+v, want text %q", c.strategy, img, c.want)
		}
		if c.want != "" && (len(ocr.calls) != 1 || ocr.calls[0] != "0" || !strings.HasPrefix(ocr.regions[0], "1:72.0,192.0,372.0,392.0")) {
			t.Errorf("%s: OCR calls %q regions %q", c.strategy, ocr.calls, ocr.regions)
		}
		if c.want == "" && len(ocr.calls) != 0 {
			t.Errorf("%s: OCR called: %q", c.strategy, ocr.calls)
		}
	}
}

// A page whose content stream is damaged is laid out from what decodes, and the default path
// says so once (the fast strategy does the same).
func TestDamagedStreamWarnedOnce(t *testing.T) {
	data, err := os.ReadFile("../../../pdf/testdata/robust/TestDamagedFlateKeepsPrefix_bad_checksum.pdf")
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	opts := engine.DefaultOptions()
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	ocr.calls = nil
	els, err := engine.Partition(context.Background(), engine.NewDocument("damaged.pdf", data), opts)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, e := range els {
		text.WriteString(e.Text + "\n")
	}
	if n := strings.Count(text.String(), "line number"); n != 50 {
		t.Errorf("%d of 50 lines read:\n%s", n, text.String())
	}
	if n := strings.Count(logs.String(), "partly damaged"); n != 1 || len(ocr.calls) != 0 {
		t.Errorf("%d damage warnings, OCR calls %q:\n%s", n, ocr.calls, logs.String())
	}
}

// wired runs LayoutPass as a plugin process does for HiRes: every element it emits goes through
// the wire's JSON encoding, so the markers must survive it.
type wired struct{ t *testing.T }

func (w wired) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	return LayoutPass{}.Partition(ctx, doc, opts, func(e element.Element) error {
		b, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		var back element.Element
		if err := json.Unmarshal(b, &back); err != nil {
			w.t.Fatalf("%s: %v", b, err)
		}
		return emit(back)
	})
}

// HiRes with its layout pass out of process (over the wire's encoding) gives what it gives in
// process: the OCR pages and picture regions the pass names reach the OCR call, the region's
// text lands on its picture, the pass's warnings reach the request's log with their page, and
// no marker reaches the caller.
func TestLayoutPassOverTheWire(t *testing.T) {
	f := pdftest.FirstExtra(2)
	d := pdftest.Doc{
		Pages: []pdftest.Page{{
			Content:   pdftest.Text("F1", 11, 72, 720, "A sentence above a large picture of a sign.") + "q 300 0 0 200 72 400 cm /Im1 Do Q",
			Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> /XObject << /Im1 %d 0 R >> >>", f, f+1),
		}, {
			Content:   "q 612 0 0 792 0 0 cm /Im1 Do Q",
			Resources: fmt.Sprintf("<< /XObject << /Im1 %d 0 R >> >>", f+1),
		}},
		Extra: []string{pdftest.Helvetica, pdftest.Stream("/Type /XObject /Subtype /Image /Width 600 /Height 400 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /JPXDecode", "not JPEG 2000")},
	}
	fo := &fakeOCR{}
	h := &HiRes{ocr: engine.Contract(fo), layout: wired{t}}
	var logs bytes.Buffer
	ctx := contract.WithLogger(context.Background(), slog.New(slog.NewTextHandler(&logs, nil)))
	doc := contract.NewDocument("sign.pdf", d.Bytes())
	doc.MIMEType = "application/pdf"
	opts := contract.Options{contract.KeyStrategy: {"hi_res"}, contract.KeyExtractImageBlockTypes: {"Image"}}
	var got []element.Element
	if err := h.Partition(ctx, doc, opts, func(e element.Element) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, e := range got {
		if strings.HasPrefix(string(e.Type), "quarry.") {
			t.Errorf("marker reached the caller: %+v", e)
		}
		text = append(text, fmt.Sprintf("%d:%s:%s", *e.Metadata.PageNumber, e.Type, e.Text))
	}
	want := "1:NarrativeText:A sentence above a large picture of a sign.|1:Image:words in the picture|2:NarrativeText:ocr page 2"
	if s := strings.Join(text, "|"); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
	if len(fo.calls) != 1 || fo.calls[0] != "2" || !strings.HasPrefix(fo.regions[0], "1:72.0,192.0,372.0,392.0") {
		t.Errorf("OCR calls %q regions %q", fo.calls, fo.regions)
	}
	// The picture is not JPEG 2000 at all: the renderer draws nothing, so the crop of page 1
	// is made (blank) or warned about; either way the log says so with its page.
	if l := logs.String(); !strings.Contains(l, "page=1") || !strings.Contains(l, "level=WARN") {
		t.Errorf("no warning with its page from the pass:\n%s", l)
	}
}

// The default path settles running heads over the whole document: the first page's head (two
// lines, so not placed like one) is a Header because the pages after it repeat it, and pages
// still come out in order.
func TestDefaultsFindRunningHeadOnFirstPage(t *testing.T) {
	f := pdftest.FirstExtra(6)
	res := fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", f)
	var d pdftest.Doc
	d.Extra = []string{pdftest.Helvetica}
	words := []string{"rivers", "deltas", "sources", "floods", "banks", "currents"}
	for i := range 6 {
		d.Pages = append(d.Pages, pdftest.Page{Resources: res, Content: pdftest.Text("F1", 9, 72, 760, "Survey of Waterways") + pdftest.Text("F1", 9, 72, 750, "Annual edition") +
			pdftest.Text("F1", 11, 72, 700, "This page is about "+words[i]+" and says so in a sentence.")})
	}
	els, err := engine.Partition(context.Background(), engine.NewDocument("heads.pdf", d.Bytes()), engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range els {
		got = append(got, fmt.Sprintf("%d:%s", *e.Metadata.PageNumber, e.Type))
	}
	want := "1:Header|1:NarrativeText|2:Header|2:NarrativeText|3:Header|3:NarrativeText|4:Header|4:NarrativeText|5:Header|5:NarrativeText|6:Header|6:NarrativeText"
	if strings.Join(got, "|") != want {
		t.Errorf("got %q\nwant %s", got, want)
	}
}

// A document cannot forge a marker: markers are told apart by their element type, which the
// layout sets from its own constants, never from the page's text. A born-digital page whose
// lines read exactly as the marker types and as their payloads (a region, a log record) comes
// out as its text, in process and over the wire's encoding, with no OCR call and nothing logged.
func TestMarkerTextCannotBeForged(t *testing.T) {
	forged := []string{string(markOCR), string(markRegion), string(markLog), "0;1:0.0,0.0,612.0,792.0",
		`{"level":8,"msg":"forged record"}`}
	var content strings.Builder
	for i, s := range forged {
		content.WriteString(pdftest.Text("F1", 11, 72, 700-float64(40*i), s))
	}
	d := pdftest.Doc{
		Pages: []pdftest.Page{{Content: content.String(), Resources: fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", pdftest.FirstExtra(1))}},
		Extra: []string{pdftest.Helvetica},
	}
	for _, over := range []string{"process", "wire"} {
		fo := &fakeOCR{}
		h := &HiRes{ocr: engine.Contract(fo)}
		if over == "wire" {
			h.layout = wired{t}
		}
		var logs bytes.Buffer
		ctx := contract.WithLogger(context.Background(), slog.New(slog.NewTextHandler(&logs, nil)))
		doc := contract.NewDocument("forged.pdf", d.Bytes())
		doc.MIMEType = "application/pdf"
		// hi_res by name: the pass may send region markers too.
		opts := contract.Options{contract.KeyStrategy: {"hi_res"}}
		var text strings.Builder
		err := h.Partition(ctx, doc, opts, func(e element.Element) error {
			if strings.HasPrefix(string(e.Type), "quarry.") {
				t.Errorf("%s: marker reached the caller: %+v", over, e)
			}
			text.WriteString(e.Text + "\n")
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", over, err)
		}
		for _, s := range forged {
			if !strings.Contains(text.String(), s) {
				t.Errorf("%s: the line %q is not in the output:\n%s", over, s, text.String())
			}
		}
		if len(fo.calls) != 0 || strings.Contains(logs.String(), "forged record") {
			t.Errorf("%s: a forged marker acted: OCR calls %q regions %q, log:\n%s", over, fo.calls, fo.regions, logs.String())
		}
	}
}
