//go:build cgo

// Package ocr holds the OCR strategies for scanned PDFs and images (partition-api.md §7.3,
// §7.4): pages rendered by pdftoppm (grey, 300 DPI by default), recognised by Tesseract through
// gosseract, one client per worker and one recognition call per page.
//
//   - ocr_only: Tesseract's text regions in its reading order, typed by the text rules (§8).
//   - hi_res: a layout from Tesseract's block/paragraph/line structure and the page image —
//     titles, body text, headers and footers, captions, page numbers, pictures, and tables found
//     from word-box alignment (text_as_html when table inference is on) — with the PDF's text
//     layer used for a region's text where the page has one (is_extracted).
//
// The package uses cgo (Tesseract, leptonica) and is compiled only into the OCR plugin binary
// (cmd/quarry-plugin-ocr), which the host starts with OMP_THREAD_LIMIT=1; the main quarry
// binary stays pure Go.
package ocr

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	_ "github.com/quarrydocs/quarry/formats/paged" // the PDF and image types it reads (their names for skip_infer_table_types)
	"github.com/quarrydocs/quarry/pdf"
	"github.com/quarrydocs/quarry/plugins/sdk"
	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// MIMETypes are the document types the OCR strategies accept.
var MIMETypes = []string{"application/pdf", "image/jpeg", "image/png", "image/tiff", "image/bmp", "image/heic", "image/gif", "image/webp"}

// Option keys the OCR strategies read and declare (Options).
const (
	// ExtraDPI sets the rendering resolution of PDF pages (default 300).
	ExtraDPI = "ocr_dpi"
	// ExtraPages restricts OCR to a comma-separated list of 1-based pages (used by auto to OCR
	// only the pages without a text layer).
	ExtraPages = "ocr_pages"
)

// Options are the keys the OCR strategies declare beyond the standard ones.
var Options = []contract.KeySpec{
	{Key: ExtraDPI, Kind: contract.Int, Help: "OCR: rendering resolution of PDF pages (default 300)", Since: 2},
	{Key: ExtraPages, Kind: contract.String, Help: "OCR: only these 1-based pages, comma-separated (auto's per-page routing)", Since: 2},
	{Key: ExtraRegions, Kind: contract.String, Help: "OCR: only these regions (hi_res's born-digital layout)", Since: 2},
}

// Config sets up an OCR engine.
type Config struct {
	// Workers is the number of Tesseract clients, each used by one goroutine (default: cores).
	Workers int
	// DPI is the default PDF rendering resolution (default 300).
	DPI int
}

// ConfigFromEnv reads QUARRY_OCR_WORKERS and QUARRY_OCR_DPI.
func ConfigFromEnv() Config {
	var c Config
	c.Workers, _ = strconv.Atoi(os.Getenv("QUARRY_OCR_WORKERS"))
	c.DPI, _ = strconv.Atoi(os.Getenv("QUARRY_OCR_DPI"))
	return c
}

// OCR runs the strategies with a fixed set of Tesseract workers.
type OCR struct {
	cfg   Config
	slots chan struct{} // one token per worker allowed to run
	mu    sync.Mutex
	idle  []*tesseract  // created clients not in use, the most recently used last
	warm  chan struct{} // closed when the client Warm prepares is ready (nil: no warm-up)
}

// New returns an OCR engine; Tesseract clients are created on first use.
func New(cfg Config) *OCR {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.DPI <= 0 {
		cfg.DPI = 300
	}
	return &OCR{cfg: cfg, slots: make(chan struct{}, cfg.Workers)}
}

// Warm starts initialising one Tesseract client for langs in the background (loading the
// models: about 50 ms on one core) and returns at once. A plugin process calls it when it
// starts, so that the models load while the host connects and sends the document, and the
// page is decoded, instead of after; the first page then waits only for what is left of it.
func (o *OCR) Warm(langs string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.warm != nil {
		return
	}
	done := make(chan struct{})
	o.warm = done
	go func() {
		defer close(done)
		t := newTesseract()
		if err := t.prepare(langs); err != nil {
			t.close() // the first page makes its own client and reports the error
			return
		}
		o.mu.Lock()
		o.idle = append(o.idle, t)
		o.mu.Unlock()
	}()
}

// waitWarm waits for the warm-up client, if one is being made.
func (o *OCR) waitWarm() {
	o.mu.Lock()
	warm := o.warm
	o.mu.Unlock()
	if warm != nil {
		<-warm
	}
}

// Close waits for the pages being recognised and releases the Tesseract clients.
func (o *OCR) Close() {
	for range o.cfg.Workers {
		o.slots <- struct{}{}
	}
	o.waitWarm()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, t := range o.idle {
		t.close()
	}
	o.idle = nil
}

// client returns an idle Tesseract client, the most recently used first, so that a document
// read page after page keeps using one initialised client (creating one loads the language
// models: about 50 ms and tens of MiB) and a second is made only when two pages run at once.
// While the warm-up client is being made, it waits for it rather than make a second.
func (o *OCR) client() *tesseract {
	o.waitWarm()
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.idle); n > 0 {
		t := o.idle[n-1]
		o.idle = o.idle[:n-1]
		return t
	}
	return newTesseract()
}

func (o *OCR) release(t *tesseract) {
	o.mu.Lock()
	o.idle = append(o.idle, t)
	o.mu.Unlock()
}

func init() {
	o := New(ConfigFromEnv())
	contract.RegisterStrategy(contract.Strategy{Name: contract.StrategyHiRes, Partitioner: contract.Func(o.HiRes), Options: Options})
	contract.RegisterStrategy(contract.Strategy{Name: contract.StrategyOCROnly, Partitioner: contract.Func(o.OCROnly), Options: Options})
}

// OCROnly is the ocr_only strategy.
func (o *OCR) OCROnly(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	return o.run(ctx, doc, opts, emit, false)
}

// HiRes is the hi_res strategy.
func (o *OCR) HiRes(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	return o.run(ctx, doc, opts, emit, true)
}

// pageResult is one recognised page.
type pageResult struct {
	num   int
	img   *image.Gray
	scale float64 // PDF points → pixels; 0 for images
	// shrink: img is the image reduced by this factor (pageImage.shrink); boxes are scaled
	// back to the image's pixels when elements are made.
	shrink int
	words  []scan.Word
	ruled  []scan.RuledTable // drawn tables, their cells read one by one (hi_res with tables)
	err    error
}

func (o *OCR) run(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit, hiRes bool) error {
	dpi := o.cfg.DPI
	if v, err := strconv.Atoi(opts.Get(ExtraDPI)); err == nil && v >= 50 && v <= 1200 {
		dpi = v
	}
	langs := TesseractLanguages(opts.Values(contract.KeyLanguages), opts.Values(contract.KeyOCRLanguages))
	langs, err := checkLanguages(langs)
	if err != nil {
		return err
	}
	src, pdfDoc, err := openSource(ctx, doc, dpi)
	if err != nil {
		return err
	}
	defer src.close()
	pages := pageList(src.count(), opts.Get(ExtraPages))
	if spec := opts.Get(ExtraRegions); spec != "" {
		if err := o.regions(ctx, src, parseRegions(spec, src.count()), langs, emit); err != nil {
			return err
		}
	}
	ft, _ := contract.LookupFormat(doc.MIMEType)
	tables := hiRes && opts.Bool(contract.KeyPDFInferTableStructure, true) && !slices.Contains(opts.Values(contract.KeySkipInferTableTypes), ft.Name)
	crops := map[string]bool{}
	for _, t := range opts.Values(contract.KeyExtractImageBlockTypes) {
		crops[strings.ToLower(t)] = true
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Pages are recognised in parallel by the workers and emitted in order; the window bounds
	// how many finished pages wait for a slow earlier one.
	results := make([]chan pageResult, len(pages))
	for i := range pages {
		results[i] = make(chan pageResult, 1)
	}
	window := make(chan struct{}, 2*o.cfg.Workers)
	go func() {
		for i, n := range pages {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				for _, ch := range results[i:] {
					ch <- pageResult{err: ctx.Err()}
				}
				return
			}
			go func() { results[i] <- o.page(ctx, src, n, langs, tables) }()
		}
	}()
	for i := range pages {
		var r pageResult
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-window
		if r.err != nil {
			return r.err
		}
		sdk.ReportProgress(ctx, r.num, src.count(), "ocr")
		var regions []scan.Region
		if hiRes {
			var layer scan.LayerFunc
			if pdfDoc != nil && r.scale > 0 {
				layer = textLayer(ctx, pdfDoc, r.num, r.scale)
			}
			regions = scan.HiResRegions(r.words, r.img, tables, layer, r.ruled)
		} else {
			regions = scan.OCROnlyRegions(r.words)
		}
		for _, rg := range regions {
			e := toElement(rg, r, hiRes)
			if crops[strings.ToLower(string(e.Type))] {
				if b64, err := cropJPEG(r.img, rg.Box); err == nil {
					e.Metadata.ImageBase64, e.Metadata.ImageMIMEType = b64, "image/jpeg"
				}
			}
			if err := emit(e); err != nil {
				return err
			}
		}
		if opts.Bool(contract.KeyIncludePageBreaks, false) {
			if err := emit(element.Element{Type: element.PageBreak, Metadata: element.Metadata{PageNumber: element.Int(r.num)}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// page renders and recognises page n on a worker; with tables, the cells of drawn tables are
// read too, on the same worker.
func (o *OCR) page(ctx context.Context, src source, n int, langs string, tables bool) pageResult {
	select {
	case o.slots <- struct{}{}:
	case <-ctx.Done():
		return pageResult{err: ctx.Err()}
	}
	defer func() { <-o.slots }()
	if err := ctx.Err(); err != nil {
		return pageResult{err: err}
	}
	pi, err := src.render(ctx, n)
	if err != nil {
		return pageResult{err: err}
	}
	img, scale := pi.img, pi.scale
	// A crooked scan or photo is straightened before anything reads it (rules, words,
	// layout): Tesseract drops whole lines of text tilted a few degrees. The straightened
	// page (same size, turned about its centre) is the page whose pixels the boxes count, as
	// for a page turned upright.
	if a := scan.FindSkew(img); a != 0 {
		img = scan.Deskew(img, a)
	}
	clean, mask := scan.RemoveRules(img, tables)
	// Light text on dark ground is turned dark-on-light for reading only (scan.InvertDark).
	clean = scan.InvertDark(clean)
	bilevel := scan.IsBilevel(img)
	// The client is taken once the page is ready: a client still loading its models (the
	// plugin's warm-up) finishes while the page is decoded.
	t := o.client()
	defer o.release(t)
	words, err := t.read(clean, bilevel, 1, langs)
	if err != nil {
		return pageResult{err: err}
	}
	img, clean, mask, words = t.upright(img, clean, mask, words, bilevel, tables, langs)
	zoom := 1.0
	// Tesseract reads text best at 20-30 px x-height-ish word boxes. Rendered PDF pages are
	// there already; a low-resolution image is scaled up and read again, as the reference
	// does (its TESSERACT_OPTIMUM_TEXT_HEIGHT), with boxes mapped back to the image.
	if scale == 0 && pi.shrink <= 1 {
		if zoom = scan.ZoomFor(words); zoom > 1 {
			if more, err := t.read(clean, false, zoom, langs); err == nil {
				words = more
			}
		}
	}
	var ruled []scan.RuledTable
	if tables {
		read := func(cell *image.Gray) ([]scan.Word, error) {
			if zoom <= 1 {
				return t.recognizeBlock(scan.EncodeForOCR(cell, false), langs)
			}
			ws, err := t.recognizeBlock(scan.EncodeForOCR(scan.Resize(cell, zoom), false), langs)
			for i := range ws {
				ws[i].Box = scan.Unzoom(ws[i].Box, zoom, cell.Bounds())
			}
			return ws, err
		}
		if ruled, err = scan.FindRuledTables(ctx, words, clean, mask, read); err != nil {
			return pageResult{err: err}
		}
	}
	return pageResult{num: n, img: img, scale: scale, shrink: pi.shrink, words: words, ruled: ruled}
}

// pageList is 1..count, or the pages listed in spec that exist.
func pageList(count int, spec string) []int {
	var out []int
	if spec == "" {
		for n := 1; n <= count; n++ {
			out = append(out, n)
		}
		return out
	}
	for _, f := range strings.Split(spec, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n >= 1 && n <= count && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func toElement(rg scan.Region, r pageResult, hiRes bool) element.Element {
	b := rg.Box
	w, h := float64(r.img.Bounds().Dx()), float64(r.img.Bounds().Dy())
	if k := r.shrink; k > 1 {
		b = image.Rect(b.Min.X*k, b.Min.Y*k, b.Max.X*k, b.Max.Y*k)
		w, h = w*float64(k), h*float64(k)
	}
	m := element.Metadata{
		PageNumber: element.Int(r.num),
		Coordinates: &element.Coordinates{
			Points: []element.Point{
				{float64(b.Min.X), float64(b.Min.Y)}, {float64(b.Min.X), float64(b.Max.Y)},
				{float64(b.Max.X), float64(b.Max.Y)}, {float64(b.Max.X), float64(b.Min.Y)},
			},
			System: "PixelSpace", LayoutWidth: w, LayoutHeight: h,
		},
		TextAsHTML: rg.HTML,
	}
	if hiRes {
		m.IsExtracted = rg.Extracted
	}
	return element.Element{Type: rg.Type, Text: rg.Text, Metadata: m}
}

// cropJPEG encodes the region of the page as base64 JPEG (extract_image_block_types).
func cropJPEG(img *image.Gray, box image.Rectangle) (string, error) {
	sub := img.SubImage(box.Intersect(img.Bounds()))
	if sub.Bounds().Empty() {
		return "", fmt.Errorf("empty crop")
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, sub, &jpeg.Options{Quality: 90}); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// textLayer returns the text of page n's text layer inside a pixel box, or nil when the page
// has no text layer (a scan): hi_res then keeps Tesseract's text.
func textLayer(ctx context.Context, d *pdf.Document, n int, scale float64) scan.LayerFunc {
	p, err := d.Page(ctx, n, pdf.DefaultLAParams())
	if err != nil || !p.HasText() {
		return nil
	}
	return func(box image.Rectangle) string {
		// The box in PDF space (origin bottom-left), slightly enlarged; a glyph belongs to it
		// when its centre is inside.
		const pad = 1.5
		x0, x1 := float64(box.Min.X)/scale-pad, float64(box.Max.X)/scale+pad
		y0, y1 := p.Height-float64(box.Max.Y)/scale-pad, p.Height-float64(box.Min.Y)/scale+pad
		var lines []string
		for _, b := range p.Boxes {
			for _, l := range b.Lines {
				var sb strings.Builder
				for _, it := range l.Items {
					if it.Glyph < 0 {
						sb.WriteString(it.Text)
						continue
					}
					g := &p.Glyphs[it.Glyph]
					cx, cy := (g.X0+g.X1)/2, (g.Y0+g.Y1)/2
					if !g.Invisible && cx >= x0 && cx <= x1 && cy >= y0 && cy <= y1 {
						sb.WriteString(it.Text)
					} else {
						sb.WriteByte(' ')
					}
				}
				if t := strings.Join(strings.Fields(sb.String()), " "); t != "" {
					lines = append(lines, t)
				}
			}
		}
		return strings.Join(lines, " ")
	}
}
