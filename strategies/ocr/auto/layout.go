package auto

import (
	"context"
	"encoding/base64"
	"fmt"
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
// geometry by package layout, in this process and without rendering; only the pages without
// one (scans, glyphless or garbage text layers: layout.Usable) go to the wrapped OCR hi_res,
// in one call listing them (ocr_pages). Images and other types go to the OCR strategy as
// they are. The PDF is parsed once (fast.Open, shared with the precheck) and each page is
// read and laid out once.
type HiRes struct {
	// ocr is the OCR hi_res strategy (a plugin), nil when not installed.
	ocr contract.Partitioner
}

var _ contract.Partitioner = (*HiRes)(nil)

func (s *HiRes) ocrMissing(what string) error {
	return contract.Errorf(contract.KindBadRequest, "%s needs OCR, and the hi_res OCR strategy is not available in this installation; "+
		"install the OCR plugin (see plugins/README.md)", what)
}

// Partition implements contract.Partitioner.
func (s *HiRes) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	if doc.MIMEType != paged.MIMEPDF {
		if s.ocr == nil {
			return s.ocrMissing("An image")
		}
		return s.ocr.Partition(ctx, doc, opts, emit)
	}
	d, err := fast.Open(ctx, doc)
	if err != nil {
		return err
	}
	log := contract.Logger(ctx)
	ft, _ := contract.LookupFormat(doc.MIMEType)
	lo := layout.Options{
		TableHTML:    opts.Bool(contract.KeyPDFInferTableStructure, true) && !slices.Contains(opts.Values(contract.KeySkipInferTableTypes), ft.Name),
		ExtractTypes: map[element.Type]bool{},
	}
	for _, t := range opts.Values(contract.KeyExtractImageBlockTypes) {
		for _, typ := range []element.Type{element.Image, element.Table, element.FigureCaption} {
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
	var scans []int
	// hi_res asked for by name reads the text inside large placed images too, as the
	// reference's hi_res does (auto, the default, does not: that is what makes it fast).
	readPictures := strings.EqualFold(opts.Get(contract.KeyStrategy), contract.StrategyHiRes) && s.ocr != nil
	var regions []string
	type regionRef struct{ page, elem int }
	var regionRefs []regionRef
	firstHeld := 0
	// Pages after the first one that needs OCR wait for the OCR result, to keep page order.
	held := map[int][]element.Element{}
	// Pages read in part (a damaged stream kept as far as it decodes) are said once, at the end.
	var damaged []int
	var firstDamage error
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
			scans = append(scans, i)
			if firstHeld == 0 {
				firstHeld = i
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
			scans = append(scans, i)
			if firstHeld == 0 {
				firstHeld = i
			}
			continue
		}
		refused = refused[:0]
		els, pics, err := ld.PageWithPictures(pctx, p)
		cancel()
		w, h := p.Width, p.Height
		d.Recycle(p)
		if err != nil {
			if ctx.Err() == nil && pctx.Err() != nil {
				return contract.Errorf(contract.KindUnprocessable, "Page %d could not be laid out within %v", i, pageBudget)
			}
			return err
		}
		if crops != nil {
			if err := crops.fillCrops(ctx, i, els, lo.ExtractTypes, w, h, refused); err != nil {
				return err
			}
		}
		for _, pic := range pics {
			if readPictures && pictureHoldsText(pic, w, h) {
				regions = append(regions, fmt.Sprintf("%d:%.1f,%.1f,%.1f,%.1f", i, pic.X0, pic.Y0, pic.X1, pic.Y1))
				regionRefs = append(regionRefs, regionRef{i, pic.Element})
			}
		}
		if opts.Bool(contract.KeyIncludePageBreaks, false) {
			els = append(els, element.Element{Type: element.PageBreak, Metadata: element.Metadata{PageNumber: element.Int(i)}})
		}
		contract.ReportProgress(ctx, i, n, "layout")
		if firstHeld == 0 && len(regions) > 0 {
			firstHeld = i
		}
		if firstHeld > 0 || len(scans) > 0 {
			held[i] = els
			continue
		}
		for _, e := range els {
			if err := emit(e); err != nil {
				return err
			}
		}
	}
	if len(damaged) > 0 {
		log.Warn("hi_res: PDF partly damaged, kept what could be read", "pages", n,
			"read_in_part", joinInts(damaged, ","), "first_error", firstDamage)
	}
	if len(scans) == 0 && len(regions) == 0 {
		return nil
	}
	if s.ocr == nil {
		return s.ocrMissing("Page " + joinInts(scans, ", ") + " (no usable text layer)")
	}
	if len(scans) > 0 {
		contract.ReportStrategy(ctx, contract.StrategyHiRes, "no usable text layer (the other pages are laid out from the PDF's geometry)", scans)
	}
	o := opts.Clone()
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
	for i := firstHeld; i <= n; i++ {
		for _, e := range held[i] {
			if err := emit(e); err != nil {
				return err
			}
		}
	}
	return nil
}

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
