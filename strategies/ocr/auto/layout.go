package auto

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/paged"
	"github.com/quarrydocs/quarry/layout"
	"github.com/quarrydocs/quarry/pdf"
	"github.com/quarrydocs/quarry/strategies/fast"
)

// HiRes is the hi_res strategy for PDFs (also what auto resolves to with the API defaults,
// table inference on): every page whose text layer is usable is laid out from its own
// geometry by package layout, without rendering; only the pages without one (scans, glyphless
// or garbage text layers: layout.Usable) go to the wrapped OCR hi_res, in one call listing
// them (ocr_pages). Images and other types go to the OCR strategy as they are.
//
// The layout pass (LayoutPass: parse, layout, tables, crops) runs behind layout, which the
// service points at a plugin process under a per-document memory budget (SetLayout), so that a
// hostile PDF (millions of glyphs, huge content streams) exhausts a child, not the server; in
// process otherwise (the library, a one-shot CLI run). Either way the pass reports the pages to
// OCR, the pictures to read and its warnings as marker elements that HiRes consumes.
type HiRes struct {
	// ocr is the OCR hi_res strategy (a plugin), nil when not installed.
	ocr contract.Partitioner
	// layout runs LayoutPass (nil: in this process).
	layout contract.Partitioner
}

var _ contract.Partitioner = (*HiRes)(nil)

func (s *HiRes) ocrMissing(what string) error {
	return contract.Errorf(contract.KindBadRequest, "%s needs OCR, and the hi_res OCR strategy is not available in this installation; "+
		"install the OCR plugin (see plugins/README.md)", what)
}

// Marker elements: what LayoutPass tells HiRes besides the elements, in the element stream
// (the one channel a plugin process has). They never reach a caller. A document cannot forge
// one: HiRes tells markers apart by element type only, and the pass sets types from the
// layout's own constants, never from a page's text (a page reading "quarry.layout.ocr_page"
// is a NarrativeText of that text: TestMarkerTextCannotBeForged); their payloads are numbers
// the pass formats and JSON it encodes. They stay in band on purpose: a protocol 3 host ends a
// call on an event kind it does not know (wire.Client.handle), so an out-of-band note would
// need the host to announce it in Start, and, since the pass is whatever binary sits at the
// host's path (an in-place upgrade re-executes the new one), both sides would still have to
// speak markers as the fallback: two channels instead of one that is already unforgeable.
const (
	// markOCR: the page (page_number) has no usable text layer; text says why.
	markOCR element.Type = "quarry.layout.ocr_page"
	// markRegion: OCR the region of the picture (text "i;page:x0,y0,x1,y1", as ExtraRegions
	// lists them) and give its text to the page's i-th element. Sent before the page's
	// elements.
	markRegion element.Type = "quarry.layout.ocr_region"
	// markLog: a log record of the pass (text: JSON of logRecord).
	markLog element.Type = "quarry.layout.log"
)

// keyReadPictures asks LayoutPass for markRegion markers (hi_res by name, with OCR installed).
const keyReadPictures = "quarry_layout_read_pictures"

// LayoutName is the name the layout pass is served under by a plugin process (quarry plugin
// serve LayoutName); not a strategy users select.
const LayoutName = "layout"

type logRecord struct {
	Level slog.Level        `json:"level"`
	Msg   string            `json:"msg"`
	Attrs map[string]string `json:"attrs,omitempty"`
}

// Partition implements contract.Partitioner.
func (s *HiRes) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	if doc.MIMEType != paged.MIMEPDF {
		if s.ocr == nil {
			return s.ocrMissing("An image")
		}
		return s.ocr.Partition(ctx, doc, opts, emit)
	}
	log := contract.Logger(ctx)
	o := opts
	// hi_res asked for by name reads the text inside large placed images too, as the
	// reference's hi_res does (auto, the default, does not: that is what makes it fast).
	if strings.EqualFold(opts.Get(contract.KeyStrategy), contract.StrategyHiRes) && s.ocr != nil {
		o = opts.Clone()
		o[keyReadPictures] = []string{"true"}
	}
	var scans []int
	var regions []string
	type regionRef struct{ page, elem int }
	var regionRefs []regionRef
	firstHeld := 0
	// Pages after the first one that needs OCR wait for the OCR result, to keep page order.
	held := map[int][]element.Element{}
	pass := s.layout
	if pass == nil {
		pass = LayoutPass{}
	}
	laidOut := map[int]bool{} // pages with elements of their own, to word the strategy line
	err := pass.Partition(ctx, doc, o, func(e element.Element) error {
		p := 0
		if e.Metadata.PageNumber != nil {
			p = *e.Metadata.PageNumber
		}
		if e.Type != markOCR && e.Type != markRegion && e.Type != markLog {
			laidOut[p] = true
		}
		switch e.Type {
		case markOCR:
			scans = append(scans, p)
		case markRegion:
			i, r, _ := strings.Cut(e.Text, ";")
			n, err := strconv.Atoi(i)
			if err != nil {
				return fmt.Errorf("hi_res: layout pass sent region %q", e.Text)
			}
			regions = append(regions, r)
			regionRefs = append(regionRefs, regionRef{p, n})
		case markLog:
			var r logRecord
			if err := json.Unmarshal([]byte(e.Text), &r); err != nil {
				return fmt.Errorf("hi_res: layout pass sent log %q: %w", e.Text, err)
			}
			args := make([]any, 0, 2*len(r.Attrs))
			for _, k := range slices.Sorted(maps.Keys(r.Attrs)) {
				args = append(args, k, r.Attrs[k])
			}
			log.Log(ctx, r.Level, r.Msg, args...)
			return nil
		default:
			if firstHeld > 0 {
				held[p] = append(held[p], e)
				return nil
			}
			return emit(e)
		}
		if firstHeld == 0 {
			firstHeld = p
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(scans) == 0 && len(regions) == 0 {
		return nil
	}
	if s.ocr == nil {
		return s.ocrMissing("Page " + joinInts(scans, ", ") + " (no usable text layer)")
	}
	if len(scans) > 0 {
		why := "no usable text layer"
		for p := range laidOut {
			if !slices.Contains(scans, p) {
				why += " (the other pages are laid out from the PDF's geometry)"
				break
			}
		}
		contract.ReportStrategy(ctx, contract.StrategyHiRes, why, scans)
	}
	o = opts.Clone()
	o[ExtraPages] = []string{"0"} // none
	if len(scans) > 0 {
		o[ExtraPages] = []string{joinInts(scans, ",")}
	}
	if len(regions) > 0 {
		o[ExtraRegions] = []string{strings.Join(regions, ";")}
	}
	next := 0 // the region whose result comes next
	err = s.ocr.Partition(ctx, doc, o, func(e element.Element) error {
		p := 0
		if e.Metadata.PageNumber != nil {
			p = *e.Metadata.PageNumber
		}
		if slices.Contains(scans, p) {
			held[p] = append(held[p], e)
			return nil
		}
		// A region's result: its text goes on the picture's element.
		if next < len(regionRefs) && regionRefs[next].page == p && e.Type == element.Image {
			ref := regionRefs[next]
			next++
			if t := strings.TrimSpace(e.Text); t != "" && ref.elem < len(held[p]) {
				held[p][ref.elem].Text = t
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	n := 0
	for p := range held {
		n = max(n, p)
	}
	for _, p := range scans {
		n = max(n, p)
	}
	// From the first page: a page laid out before a page sent to OCR may come after its marker
	// (its running heads are settled a few pages later) and is held too.
	for i := 1; i <= n; i++ {
		for _, e := range held[i] {
			if err := emit(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// LayoutPass is the born-digital half of HiRes, the part that parses the PDF: every page is
// read and, when its text layer is usable, laid out (with crops for extract_image_block_types);
// the others are named by markOCR markers, large pictures to read by markRegion markers
// (when keyReadPictures is set), and log records travel as markLog markers. It runs in
// whatever process HiRes's layout puts it in.
type LayoutPass struct{}

// Partition implements contract.Partitioner.
func (LayoutPass) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	log := slog.New(&markerHandler{emit: emit})
	ctx = contract.WithLogger(ctx, log)
	d, err := fast.Open(ctx, doc)
	if err != nil {
		return err
	}
	mark := func(typ element.Type, page int, text string) error {
		return emit(element.Element{Type: typ, Text: text, Metadata: element.Metadata{PageNumber: element.Int(page)}})
	}
	ft, _ := contract.LookupFormat(doc.MIMEType)
	lo := layout.Options{
		TableHTML:    opts.Bool(contract.KeyPDFInferTableStructure, true) && !slices.Contains(opts.Values(contract.KeySkipInferTableTypes), ft.Name),
		ExtractTypes: map[element.Type]bool{},
	}
	// Any element type may be named, case-insensitively, as the reference crops any category
	// (pictures get their own pixels where the PDF has them, everything else a crop of the page).
	for _, t := range opts.Values(contract.KeyExtractImageBlockTypes) {
		for _, typ := range croppable() {
			if strings.EqualFold(t, string(typ)) {
				lo.ExtractTypes[typ] = true
			}
		}
	}
	// The pictures the decoder refuses on the page being laid out (the reason goes in the
	// warning when the page cannot be rendered either); crops fills in what it refuses, and
	// tables and vector figures, from the rendered page.
	var refused []error
	var crops *cropper
	if len(lo.ExtractTypes) > 0 {
		lo.ImageData = func(im pdf.Image) (string, string, bool) {
			b, err := d.ImageAsJPEG(im.Ref)
			if err != nil {
				refused = append(refused, err)
				return "", "", false
			}
			return "image/jpeg", base64.StdEncoding.EncodeToString(b), true
		}
		crops = newCropper(doc)
		defer crops.close()
	}
	ld := layout.New(lo)
	params := layout.Params(fast.Params(opts))
	n := d.NumPages()
	readPictures := opts.Bool(keyReadPictures, false)
	// Pages read in part (a damaged stream kept as far as it decodes) are said once, at the end.
	var damaged []int
	var firstDamage error
	// refusedOn keeps the pictures the decoder refused on pages laid out but not yet settled,
	// shownOn how each is drawn (its turn and size as pdftoppm renders it).
	refusedOn := map[int][]error{}
	type shown struct {
		q    uint8
		w, h float64
	}
	shownOn := map[int]shown{}
	// laid hands on a page laid out once its running heads are settled (layout.LookAhead
	// pages later): its crops, the pictures to read, its elements. A page sent to OCR
	// meanwhile is marked before the pages laid out ahead of it come: HiRes puts the held
	// pages in page order.
	laid := func(l layout.Laid) error {
		i, els := l.Number, l.Elements
		sh := shownOn[i]
		if crops != nil {
			if err := crops.fillCrops(ctx, i, els, lo.ExtractTypes, sh.q, sh.w, sh.h, refusedOn[i]); err != nil {
				return err
			}
		}
		delete(refusedOn, i)
		delete(shownOn, i)
		for _, pic := range l.Pictures {
			if readPictures && pictureHoldsText(pic, l.Width, l.Height) {
				x0, y0, x1, y1 := shownBox(sh.q, sh.w, sh.h, pic.X0, pic.Y0, pic.X1, pic.Y1)
				if err := mark(markRegion, i, fmt.Sprintf("%d;%d:%.1f,%.1f,%.1f,%.1f", pic.Element, i, x0, y0, x1, y1)); err != nil {
					return err
				}
			}
		}
		if opts.Bool(contract.KeyIncludePageBreaks, false) {
			els = append(els, element.Element{Type: element.PageBreak, Metadata: element.Metadata{PageNumber: element.Int(i)}})
		}
		for _, e := range els {
			if err := emit(e); err != nil {
				return err
			}
		}
		return nil
	}
	for i := 1; i <= n; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		pctx, cancel := context.WithTimeout(ctx, pageBudget)
		p, err := d.Page(pctx, i, params)
		if err != nil {
			cancel()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if pctx.Err() != nil {
				return contract.Errorf(contract.KindUnprocessable, "Page %d could not be read within %v", i, pageBudget)
			}
			// An unreadable content stream may still render: OCR has the last word.
			log.Warn("hi_res: page text layer unreadable, OCR instead", "page", i, "error", err)
			if err := mark(markOCR, i, "text layer unreadable"); err != nil {
				return err
			}
			continue
		}
		if len(p.Warnings) > 0 {
			damaged = append(damaged, i)
			if firstDamage == nil {
				firstDamage = p.Warnings[0]
			}
		}
		if ok, why := layout.Usable(p); !ok {
			log.Debug("hi_res: no usable text layer, OCR instead", "page", i, "reason", why)
			cancel()
			d.Recycle(p)
			if err := mark(markOCR, i, why); err != nil {
				return err
			}
			continue
		}
		refused = refused[:0]
		// The layout lays a page of turned text out as a reader turns the sheet (the call
		// below is then a no-op): crops and OCR regions are taken from the page as pdftoppm
		// draws it, so boxes are turned back by q (shownBox).
		q := p.TurnUpright(layout.Params(pdf.DefaultLAParams()))
		sw, sh := d.PageSize(i)
		shownOn[i] = shown{q, sw, sh}
		err = ld.Add(pctx, p)
		cancel()
		d.Recycle(p)
		if err != nil {
			if ctx.Err() == nil && pctx.Err() != nil {
				return contract.Errorf(contract.KindUnprocessable, "Page %d could not be laid out within %v", i, pageBudget)
			}
			return err
		}
		if len(refused) > 0 {
			refusedOn[i] = slices.Clone(refused)
		}
		contract.ReportProgress(ctx, i, n, "layout")
		for _, l := range ld.Ready() {
			if err := laid(l); err != nil {
				return err
			}
		}
	}
	for _, l := range ld.Finish() {
		if err := laid(l); err != nil {
			return err
		}
	}
	if crops != nil {
		crops.summary(ctx)
	}
	if len(damaged) > 0 {
		log.Warn("hi_res: PDF partly damaged, kept what could be read", "pages", n,
			"read_in_part", joinInts(damaged, ","), "first_error", firstDamage)
	}
	return nil
}

// croppable are the element types the layout makes, which extract_image_block_types may name.
func croppable() []element.Type {
	return []element.Type{element.Image, element.Table, element.FigureCaption, element.Title,
		element.NarrativeText, element.ListItem, element.UncategorizedText, element.Header,
		element.Footer, element.PageNumber, element.Formula, element.Address, element.EmailAddress,
		element.CodeSnippet}
}

// markerHandler is LayoutPass's logger: every record becomes a markLog marker, so what the
// pass says reaches the request's log from a plugin process as it does in process.
type markerHandler struct {
	emit  contract.Emit
	attrs []slog.Attr
}

func (h *markerHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *markerHandler) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{Level: r.Level, Msg: r.Message, Attrs: map[string]string{}}
	add := func(a slog.Attr) bool {
		rec.Attrs[a.Key] = a.Value.Resolve().String()
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return h.emit(element.Element{Type: markLog, Text: string(b)})
}

func (h *markerHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &markerHandler{emit: h.emit, attrs: append(slices.Clip(h.attrs), as...)}
}

func (h *markerHandler) WithGroup(string) slog.Handler { return h }

// pageBudget bounds the reading and layout of one page: everything in them is bounded (operator
// count, path items, cells), so a page over it is pathological and ends the request with an
// error naming it rather than holding a worker.
const pageBudget = 60 * time.Second

// pictureHoldsText reports a placed image big enough, on the page and in samples, for text
// inside it to be worth reading.
func pictureHoldsText(p layout.Picture, pageW, pageH float64) bool {
	w, h := p.X1-p.X0, p.Y1-p.Y0
	return p.Raster && w >= 72 && h >= 36 && w*h >= 0.03*pageW*pageH && p.PixW >= 150 && p.PixH >= 50
}

// ExtraRegions is the option key the OCR strategy reads to OCR areas of pages (strategies/ocr).
const ExtraRegions = "ocr_regions"

func joinInts(ns []int, sep string) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, sep)
}
