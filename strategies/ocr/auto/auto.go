// Package auto routes PDFs page by page. hi_res (and auto with the API defaults, which resolves
// to hi_res) lays out every page with a usable text layer from the PDF's own geometry (package
// layout) and OCRs only the others (HiRes). auto without table inference sends pages with a
// text layer through fast and image-only pages through ocr_only. Elements come back in page
// order as one result. It is pure Go and runs in the host process (the OCR itself runs in the
// OCR plugin process); it wraps whatever fast, hi_res and ocr_only are registered.
package auto

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/paged"
	"github.com/quarrydocs/quarry/strategies/fast"
)

// Install puts the routers in front of the registered strategies: hi_res becomes HiRes (the
// born-digital layout, with the OCR hi_res, when installed, for pages without a usable text
// layer), registered even without the OCR plugin; fast and ocr_only, when both exist, route
// auto page by page. Call it after every strategy (and plugin) is registered; calling it again
// does nothing.
func Install() { InstallWith(nil) }

// InstallWith is Install with hi_res's layout pass (LayoutPass) run by layout: the service
// passes a plugin process under a per-document memory budget (plugins/host.WrapInternal), so
// that parsing and laying out a hostile PDF cannot exhaust the server; nil runs it in process.
func InstallWith(layout contract.Partitioner) {
	fs, okf := contract.LookupStrategy(contract.StrategyFast)
	if !okf || fs.Partitioner == nil {
		return
	}
	f := fs.Partitioner
	if _, wrapped := f.(*Strategy); wrapped {
		return
	}
	if h, ok := contract.LookupStrategy(contract.StrategyHiRes); !ok || h.Partitioner == nil {
		contract.ReplaceStrategy(contract.StrategyHiRes, &HiRes{layout: layout})
	} else if _, wrapped := h.Partitioner.(*HiRes); !wrapped {
		contract.ReplaceStrategy(contract.StrategyHiRes, &HiRes{ocr: h.Partitioner, layout: layout})
	}
	oc, oko := contract.LookupStrategy(contract.StrategyOCROnly)
	if !oko || oc.Partitioner == nil {
		return
	}
	o := oc.Partitioner
	m := &mixed{fast: f, ocr: o}
	contract.ReplaceStrategy(contract.StrategyFast, &Strategy{inner: f, m: m})
	contract.ReplaceStrategy(contract.StrategyOCROnly, &Strategy{inner: o, m: m})
}

// NewRouter returns inner behind the per-page router over fast and ocr: what Install registers
// for fast and ocr_only, for a caller that holds the strategies itself (a test that must not
// change what the process's registry routes to).
func NewRouter(inner, fast, ocr contract.Partitioner) *Strategy {
	return &Strategy{inner: inner, m: &mixed{fast: fast, ocr: ocr}}
}

// Strategy is fast or ocr_only behind the per-page router.
type Strategy struct {
	inner contract.Partitioner
	m     *mixed
}

type mixed struct{ fast, ocr contract.Partitioner }

// ExtraPages is the option key the OCR strategies read to OCR only some pages.
const ExtraPages = "ocr_pages"

// Partition routes page by page when the caller asked for auto on a PDF; an explicit strategy
// runs as asked.
func (s *Strategy) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	st := strings.ToLower(opts.Get(contract.KeyStrategy))
	if (st != contract.StrategyAuto && st != "") || doc.MIMEType != paged.MIMEPDF {
		return s.inner.Partition(ctx, doc, opts, emit)
	}
	text, n, err := textPages(ctx, doc, opts)
	if err != nil || n == 0 {
		return s.inner.Partition(ctx, doc, opts, emit)
	}
	var scans []string
	var scanPages []int
	for p := 1; p <= n; p++ {
		if !text[p] {
			scans = append(scans, strconv.Itoa(p))
			scanPages = append(scanPages, p)
		}
	}
	switch len(scans) {
	case 0:
		return s.m.fast.Partition(ctx, doc, opts, emit)
	case n:
		return s.m.ocr.Partition(ctx, doc, opts, emit)
	}
	contract.Logger(ctx).Debug("auto: mixed PDF", "pages", n, "ocr_pages", strings.Join(scans, ","))
	contract.ReportStrategy(ctx, contract.StrategyOCROnly, "no text layer (the other pages go through fast)", scanPages)
	byPage := map[int][]element.Element{}
	collect := func(keep func(int) bool) contract.Emit {
		return func(e element.Element) error {
			p := 0
			if e.Metadata.PageNumber != nil {
				p = *e.Metadata.PageNumber
			}
			if keep(p) {
				byPage[p] = append(byPage[p], e)
			}
			return nil
		}
	}
	if err := s.m.fast.Partition(ctx, doc, opts, collect(func(p int) bool { return text[p] })); err != nil {
		return err
	}
	o := opts.Clone()
	o[ExtraPages] = []string{strings.Join(scans, ",")}
	if err := s.m.ocr.Partition(ctx, doc, o, collect(func(p int) bool { return !text[p] })); err != nil {
		return err
	}
	pages := make([]int, 0, len(byPage))
	for p := range byPage {
		pages = append(pages, p)
	}
	slices.Sort(pages)
	for _, p := range pages {
		for _, e := range byPage[p] {
			if err := emit(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// HasText reports whether any page has a text layer: what auto asks fast before choosing it.
func (s *Strategy) HasText(ctx context.Context, doc *contract.Document, opts contract.Options) (bool, error) {
	text, _, err := textPages(ctx, doc, opts)
	return len(text) > 0, err
}

var _ contract.TextLayerProber = (*Strategy)(nil)

// textPages returns the pages (1-based) that have a text layer, and the page count.
func textPages(ctx context.Context, doc *contract.Document, opts contract.Options) (map[int]bool, int, error) {
	d, err := fast.Open(ctx, doc)
	if err != nil {
		return nil, 0, err
	}
	text := map[int]bool{}
	for n := 1; n <= d.NumPages(); n++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		// The probe keeps no glyphs: it runs in the host, before any strategy's process.
		if has, err := d.PageHasText(ctx, n); err == nil && has {
			text[n] = true
		} else if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
	}
	return text, d.NumPages(), nil
}
