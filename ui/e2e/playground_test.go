package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all"
	"github.com/quarrydocs/quarry/server"
	_ "github.com/quarrydocs/quarry/strategies/fast"
	"github.com/quarrydocs/quarry/ui"
)

// partitionServer is the partition API with the UI mounted, as quarry serve composes them.
func partitionServer(t *testing.T) string {
	t.Helper()
	srv := server.New(server.Config{APIKeys: []string{testKey}, InProcess: true})
	srv.Mount("/ui/", ui.New(ui.Config{APIKeys: []string{testKey}}))
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestPlaygroundPDF(t *testing.T) {
	b := newTab(t, partitionServer(t))
	pdf, err := filepath.Abs("../../testdata/reference/docs/multi-column-2p.pdf")
	if err != nil {
		t.Fatal(err)
	}

	b.open("/ui/")
	b.shot("playground-key")
	b.login()

	// Submitting without a file puts the message next to the file field.
	b.do("submit without a file", chromedp.Click(chromedp.ID("pg-submit")))
	b.waitJS("file error", `document.getElementById("pg-file-error").textContent.length > 0 && document.activeElement.id === "pg-file"`, 5*time.Second)

	b.do("upload and partition",
		chromedp.SetUploadFiles(chromedp.ID("pg-file"), []string{pdf}),
		setValue("pg-strategy", "fast"),
		chromedp.Click(chromedp.ID("pg-submit")),
	)
	b.waitJS("elements and boxes", `document.querySelectorAll("#pg-table tbody tr").length > 5 && document.getElementById("pg-page-img").dataset.page === "1" && document.querySelectorAll("#pg-boxes rect").length > 5`, 60*time.Second)

	rows := eval[int](b, `document.querySelectorAll("#pg-table tbody tr").length`)
	types := eval[[]string](b, `[...new Set([...document.querySelectorAll("#pg-table tbody tr td:nth-child(2)")].map(td => td.textContent))]`)
	if !slices.Contains(types, "Title") || !slices.Contains(types, "NarrativeText") {
		t.Errorf("element types in the table = %v, want Title and NarrativeText among them", types)
	}
	// Every box lies on the page image and has a visible size.
	bad := eval[[]string](b, `(() => {
	  const img = document.getElementById("pg-page-img").getBoundingClientRect();
	  return [...document.querySelectorAll("#pg-boxes rect")].map(r => r.getBoundingClientRect()).filter(r =>
	    r.width < 2 || r.height < 2 || r.left < img.left - 1 || r.right > img.right + 1 || r.top < img.top - 1 || r.bottom > img.bottom + 1).map(r => JSON.stringify(r));
	})()`)
	if len(bad) > 0 {
		t.Errorf("%d boxes off the page or empty: %v", len(bad), bad[:min(3, len(bad))])
	}
	page1 := eval[int](b, `document.querySelectorAll("#pg-boxes rect").length`)
	t.Logf("%d elements, %d boxes on page 1", rows, page1)
	b.shot("playground-pdf-page1")

	// Clicking a row selects its box; the next page shows that page's boxes.
	b.do("select first row", chromedp.Click(chromedp.CSS("#pg-table tbody tr:nth-child(2)")))
	b.waitJS("selected box", `document.querySelectorAll("#pg-boxes rect.selected").length === 1`, 5*time.Second)
	if js := eval[string](b, `document.getElementById("pg-selected").textContent`); !strings.Contains(js, `"element_id"`) || !strings.Contains(js, `"coordinates"`) {
		t.Errorf("selected element panel shows %.200q, want the element's JSON", js)
	}
	b.do("next page", chromedp.Click(chromedp.ID("pg-next")))
	b.waitJS("page 2", `document.getElementById("pg-page-img").dataset.page === "2" && document.querySelectorAll("#pg-boxes rect").length > 0`, 20*time.Second)
	// Page 2 shows exactly the boxes of the elements on page 2.
	var onPage2 int
	for _, row := range eval[[]string](b, `[...document.querySelectorAll("#pg-table tbody tr td:nth-child(4)")].map(td => td.textContent)`) {
		if row == "2" {
			onPage2++
		}
	}
	if got := eval[int](b, `document.querySelectorAll("#pg-boxes rect").length`); got != onPage2 || got == 0 {
		t.Errorf("page 2 shows %d boxes, want %d (its elements)", got, onPage2)
	}
	b.shot("playground-pdf-page2")

	// JSON tab, by keyboard.
	b.do("JSON tab", chromedp.Focus(chromedp.ID("tab-table")), chromedp.KeyEvent("\u2192"))
	b.do("JSON tab click", chromedp.Click(chromedp.ID("tab-json")))
	b.waitJS("json view", `!document.getElementById("view-json").hidden && document.getElementById("pg-json").textContent.includes("\"coordinates\"")`, 5*time.Second)
	b.do("table tab", chromedp.Click(chromedp.ID("tab-table")))

	// Downloads: the JSON is the API's answer; the CSV comes from output_format=text/csv.
	b.do("download JSON", chromedp.Click(chromedp.ID("pg-download-json")))
	jf := b.waitDownload(".json", 10*time.Second)
	var els []map[string]any
	if data, err := os.ReadFile(jf); err != nil || json.Unmarshal(data, &els) != nil || len(els) != rows {
		t.Errorf("downloaded JSON %s: %d elements (err %v), want %d", jf, len(els), err, rows)
	}
	b.do("download CSV", chromedp.Click(chromedp.ID("pg-download-csv")))
	cf := b.waitDownload(".csv", 20*time.Second)
	if data, _ := os.ReadFile(cf); !strings.Contains(string(data), "NarrativeText") {
		t.Errorf("downloaded CSV lacks elements: %.200s", data)
	}

	b.checkA11y("playground")
	b.checkLayout("playground-results")
}

func TestPlaygroundImageErrorsKeyboard(t *testing.T) {
	b := newTab(t, partitionServer(t))
	b.open("/ui/")
	b.login()
	// The form fields come in reading order for keyboard users.
	order := b.tabOrder(4)
	if i := slices.Index(order, "pg-file"); i < 0 || !slices.Contains(order[i:], "pg-strategy") {
		t.Errorf("tab order from the top = %v, want the file field then the strategy", order)
	}

	// A type the API cannot partition: the API's message is shown, not a blank page.
	bad := filepath.Join(t.TempDir(), "thing.xyz")
	os.WriteFile(bad, []byte{0, 1, 2, 3, 0xff, 0xfe}, 0o644)
	b.do("upload unsupported", chromedp.SetUploadFiles(chromedp.ID("pg-file"), []string{bad}), chromedp.Click(chromedp.ID("pg-submit")))
	b.waitJS("error message", `document.getElementById("pg-form-error").textContent.length > 0`, 20*time.Second)
	msg := eval[string](b, `document.getElementById("pg-form-error").textContent`)
	if !strings.Contains(msg, "not supported") {
		t.Errorf("unsupported file message = %q", msg)
	}

	// Images: the test server's hi_res strategy (below) stands in for OCR, which needs
	// Tesseract; the UI shows the uploaded image itself with the boxes over it.
	img, _ := filepath.Abs("../../testdata/reference/docs/layout-parser-paper-with-table.jpg")
	b.do("upload image", chromedp.SetUploadFiles(chromedp.ID("pg-file"), []string{img}), setValue("pg-strategy", "hi_res"), chromedp.Click(chromedp.ID("pg-submit")))
	b.waitJS("image with boxes", `!document.getElementById("pg-results").hidden && document.getElementById("pg-page-img").naturalWidth > 0 &&
	  document.querySelectorAll("#pg-boxes rect").length === 2`, 30*time.Second)
	// The second box covers the right half of the image: check it lands there on screen.
	ok := eval[bool](b, `(() => {
	  const i = document.getElementById("pg-page-img").getBoundingClientRect();
	  const r = document.querySelectorAll("#pg-boxes rect")[1].getBoundingClientRect();
	  return Math.abs(r.left - (i.left + i.width / 2)) < 2 && Math.abs(r.right - i.right) < 2 && Math.abs(r.top - i.top) < 2 && Math.abs(r.bottom - i.bottom) < 2;
	})()`)
	if !ok {
		t.Error("the image box is not drawn where its PixelSpace coordinates say")
	}
	b.shot("playground-image")
	b.checkLayout("playground-image")
}

// fakeOCR is a hi_res strategy for the test server: for an image it emits a Title over the
// left half and a NarrativeText over the right half, in pixel coordinates.
func init() {
	engine.RegisterStrategy("hi_res", engine.PartitionFunc(func(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
		cfg, _, err := image.DecodeConfig(doc.Reader())
		if err != nil {
			return fmt.Errorf("fake hi_res: %w", err)
		}
		w, h := float64(cfg.Width), float64(cfg.Height)
		one := 1
		for _, e := range []struct {
			typ  element.Type
			x0   float64
			text string
		}{{element.Title, 0, "Left half"}, {element.NarrativeText, w / 2, "Right half of the page, as one paragraph."}} {
			el := element.Element{Type: e.typ, Text: e.text}
			el.Metadata.PageNumber = &one
			el.Metadata.Coordinates = &element.Coordinates{
				Points: []element.Point{{e.x0, 0}, {e.x0, h}, {e.x0 + w/2, h}, {e.x0 + w/2, 0}},
				System: "PixelSpace", LayoutWidth: w, LayoutHeight: h,
			}
			if err := emit(el); err != nil {
				return err
			}
		}
		return nil
	}))
}
