// Package fast is the "fast" PDF strategy: the text layer read by package pdf with pdfminer's
// layout model, turned into elements the way the reference's fast strategy does it
// (partition-api.md §7.2): one element per text box, text rules plus the header/footer position
// rule, list-item merging, XY-cut reading order, coordinates in PDF points, URI links, AcroForm
// values and optional page breaks.
package fast

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/paged"
	"github.com/quarrydocs/quarry/pdf"
)

func init() {
	contract.RegisterStrategy(contract.Strategy{Name: contract.StrategyFast, Partitioner: strategy{}, Options: Options})
	// The reference opens every PDF before choosing a strategy, so an encrypted or broken file
	// gets its 422 answer whatever strategy was asked for.
	contract.SetPrecheck(paged.MIMEPDF, func(ctx context.Context, doc *contract.Document) error {
		_, err := open(ctx, doc)
		return err
	})
}

type openKey struct{}

// Open returns the document's parsed PDF, parsing it on first use: the precheck, auto's
// text-layer probe, the fast strategy and the born-digital layout of hi_res share one parse
// per request.
func Open(ctx context.Context, doc *contract.Document) (*pdf.Document, error) { return open(ctx, doc) }

// open parses the PDF once per document: the precheck, the text-layer probe and the partition
// share the result.
func open(ctx context.Context, doc *contract.Document) (*pdf.Document, error) {
	v, err := doc.Memo(openKey{}, func() (any, error) {
		d, err := pdf.Open(ctx, doc.Content, doc.Size)
		return d, MapError(err)
	})
	if err != nil {
		return nil, err
	}
	return v.(*pdf.Document), nil
}

// strategy is the registered fast strategy: a partitioner that can also tell "auto" whether a
// PDF has a usable text layer.
type strategy struct{}

func (strategy) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	return Partition(ctx, doc, opts, emit)
}

// HasText reports whether any page has extractable text.
func (strategy) HasText(ctx context.Context, doc *contract.Document, opts contract.Options) (bool, error) {
	d, err := open(ctx, doc)
	if err != nil {
		return false, err
	}
	for n := 1; n <= d.NumPages(); n++ {
		// The probe keeps no glyphs: the engine asks it in the host, before choosing a
		// strategy (and its process).
		has, err := d.PageHasText(ctx, n)
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			continue // a damaged page does not decide
		}
		if has {
			return true, nil
		}
	}
	return false, nil
}

var _ contract.TextLayerProber = strategy{}

// Error messages of the reference (partition-api.md §4).
const (
	msgEncrypted = "File is encrypted. Please decrypt it with password."
	msgInvalid   = "File does not appear to be a valid PDF. Error: "
)

// MapError turns the pdf package's open errors into the reference's typed API errors.
func MapError(err error) error {
	var inv *pdf.InvalidError
	switch {
	case errors.Is(err, pdf.ErrEncrypted):
		return &contract.Error{Kind: contract.KindUnprocessable, Msg: msgEncrypted, Err: err}
	case errors.As(err, &inv):
		return &contract.Error{Kind: contract.KindUnprocessable, Msg: msgInvalid + inv.Reason, Err: err}
	}
	return err
}

// The pdfminer layout overrides the strategy reads (the API's pdfminer_* parameters).
const (
	KeyLineOverlap = "pdfminer_line_overlap"
	KeyCharMargin  = "pdfminer_char_margin"
	KeyLineMargin  = "pdfminer_line_margin"
	KeyWordMargin  = "pdfminer_word_margin"
)

// Options are the keys fast declares beyond the standard ones.
var Options = []contract.KeySpec{
	{Key: KeyLineOverlap, Kind: contract.Float, Help: "pdfminer line_overlap", Since: 2},
	{Key: KeyCharMargin, Kind: contract.Float, Help: "pdfminer char_margin", Since: 2},
	{Key: KeyLineMargin, Kind: contract.Float, Help: "pdfminer line_margin", Since: 2},
	{Key: KeyWordMargin, Kind: contract.Float, Help: "pdfminer word_margin", Since: 2},
}

// Params returns the layout parameters for opts: the reference's defaults with the caller's
// pdfminer_* overrides.
func Params(opts contract.Options) pdf.LAParams {
	p := pdf.DefaultLAParams()
	// pdfminer's text boxes do not depend on vector graphics: the page geometry is not read
	// (5 % of the reading time over the bench corpus).
	p.NoGeometry = true
	p.LineOverlap = opts.Float(KeyLineOverlap, p.LineOverlap)
	p.CharMargin = opts.Float(KeyCharMargin, p.CharMargin)
	p.LineMargin = opts.Float(KeyLineMargin, p.LineMargin)
	p.WordMargin = opts.Float(KeyWordMargin, p.WordMargin)
	return p
}

// Partition implements the fast strategy for PDFs.
func Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	if strings.HasPrefix(doc.MIMEType, "image/") {
		return &contract.Error{Kind: contract.KindBadRequest, Msg: "The fast strategy is not available for image files"}
	}
	d, err := open(ctx, doc)
	if err != nil {
		return err
	}
	log := contract.Logger(ctx)
	params := Params(opts)
	// A damaged document keeps what it can; what was lost is said once, at the end, and a
	// document of which nothing could be read is an error, never an empty success.
	var skipped, damaged, textless []int
	var firstErr error
	emitted := 0
	for n := 1; n <= d.NumPages(); n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		page, err := d.Page(ctx, n, params)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			skipped = append(skipped, n)
			if firstErr == nil {
				firstErr = err
			}
		} else {
			if len(page.Warnings) > 0 {
				damaged = append(damaged, n)
				if firstErr == nil {
					firstErr = page.Warnings[0]
				}
			}
			els := PageElements(page, opts.Bool(contract.KeyCoordinates, false))
			if len(els) == 0 && page.DrawsText() {
				// Text pdfminer lays out into nothing (glyphs of a font without widths are
				// zero-width lines it sets aside): the reference gives nothing here either, so
				// fast does too, but says so.
				textless = append(textless, n)
			}
			d.Recycle(page)
			log.Debug("fast: page done", "page", n, "of", d.NumPages(), "elements", len(els))
			contract.ReportProgress(ctx, n, d.NumPages(), contract.StrategyFast)
			for _, e := range els {
				if err := emit(e); err != nil {
					return err
				}
				emitted++
			}
		}
		if opts.Bool(contract.KeyIncludePageBreaks, false) {
			if err := emit(element.Element{Type: element.PageBreak}); err != nil {
				return err
			}
		}
	}
	if len(skipped) > 0 && emitted == 0 {
		return &contract.Error{Kind: contract.KindUnprocessable,
			Msg: fmt.Sprintf("%sno page could be read (%d of %d unreadable: %v)", msgInvalid, len(skipped), d.NumPages(), firstErr),
			Err: firstErr}
	}
	if len(textless) > 0 {
		log.Warn("fast: pages draw text that pdfminer's layout yields no text from (fonts without widths?), as the reference; hi_res or auto read it",
			"pages", pageList(textless))
	}
	if len(skipped)+len(damaged) > 0 {
		log.Warn("fast: PDF partly damaged, kept what could be read",
			"pages", d.NumPages(), "skipped", pageList(skipped), "read_in_part", pageList(damaged), "first_error", firstErr)
	}
	return nil
}

// pageList writes page numbers compactly for a log line.
func pageList(ps []int) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = strconv.Itoa(p)
	}
	return strings.Join(parts, ",")
}

// item is an element under construction with its box in top-left page space.
type item struct {
	el             element.Element
	x0, y0, x1, y1 float64 // left, top, right, bottom
}

var paragraphSplit = regexp.MustCompile(`\s*\n\s*`)

// PageElements converts one analysed page into elements in reading order. withCoords keeps
// metadata.coordinates on the elements.
func PageElements(p *pdf.Page, withCoords bool) []element.Element {
	items := make([]item, 0, len(p.Boxes)+len(p.Figures)+len(p.Fields))
	for _, b := range p.Boxes {
		items = appendBox(items, p, b)
	}
	for _, f := range p.Figures {
		var sb strings.Builder
		for _, it := range f.Items {
			if it.Glyph == nil {
				sb.WriteByte('\n')
			} else {
				sb.WriteString(it.Glyph.Text)
			}
		}
		for _, snip := range paragraphSplit.Split(sb.String(), -1) {
			items = appendText(items, p, snip, f.X0, f.Y0, f.X1, f.Y1, nil)
		}
	}
	for _, fd := range p.Fields {
		items = appendText(items, p, fd.Value, fd.X0, fd.Y0, fd.X1, fd.Y1, nil)
	}
	items = combineListItems(items)
	order := sortXYCut(items)
	out := make([]element.Element, 0, len(items))
	for _, i := range order {
		it := &items[i]
		e := it.el
		e.Metadata.PageNumber = element.Int(p.Number)
		if withCoords {
			e.Metadata.Coordinates = &element.Coordinates{
				Points:       []element.Point{{it.x0, it.y0}, {it.x0, it.y1}, {it.x1, it.y1}, {it.x1, it.y0}},
				System:       "PixelSpace",
				LayoutWidth:  p.Width,
				LayoutHeight: p.Height,
			}
		}
		out = append(out, e)
	}
	return out
}

// word is a run of non-space characters of a box's raw text, for link mapping.
type word struct {
	text           string
	start          int // rune offset in the raw box text
	x0, y0, x1, y1 float64
}

func appendBox(items []item, p *pdf.Page, b *pdf.TextBox) []item {
	raw := b.Text()
	var links []pendingLink
	if len(p.Links) > 0 {
		links = boxLinks(p, b)
	}
	return appendText(items, p, raw, b.X0, b.Y0, b.X1, b.Y1, links)
}

type pendingLink struct {
	text  string
	url   string
	start int // rune offset in the raw text, -1 when unknown
}

// boxLinks maps the URI annotations lying (≥ 90 % of their area) inside a box to the words
// nearest to the annotation's corners, as the reference does.
func boxLinks(p *pdf.Page, b *pdf.TextBox) []pendingLink {
	var words []word
	pos := 0
	var cur *word
	flush := func() {
		if cur != nil {
			words = append(words, *cur)
			cur = nil
		}
	}
	for _, l := range b.Lines {
		for _, it := range l.Items {
			n := len([]rune(it.Text))
			if strings.TrimSpace(it.Text) == "" || it.Glyph < 0 {
				flush()
				pos += n
				continue
			}
			g := &p.Glyphs[it.Glyph]
			gx0, gy0, gx1, gy1 := g.X0, p.Height-g.Y1, g.X1, p.Height-g.Y0
			if cur == nil {
				cur = &word{start: pos, x0: gx0, y0: gy0, x1: gx1, y1: gy1}
			} else {
				cur.x0, cur.y0 = math.Min(cur.x0, gx0), math.Min(cur.y0, gy0)
				cur.x1, cur.y1 = math.Max(cur.x1, gx1), math.Max(cur.y1, gy1)
			}
			cur.text += it.Text
			pos += n
		}
		flush()
		pos++ // the line's newline
	}
	bx0, by0, bx1, by1 := b.X0, p.Height-b.Y1, b.X1, p.Height-b.Y0
	var out []pendingLink
	for _, lk := range p.Links {
		ax0, ay0, ax1, ay1 := lk.X0, p.Height-lk.Y1, lk.X1, p.Height-lk.Y0
		area := (ax1 - ax0) * (ay1 - ay0)
		if area <= 0 {
			continue
		}
		iw := math.Min(ax1, bx1) - math.Max(ax0, bx0)
		ih := math.Min(ay1, by1) - math.Max(ay0, by0)
		if iw <= 0 || ih <= 0 || iw*ih/area <= 0.9 {
			continue
		}
		if len(words) == 0 {
			out = append(out, pendingLink{url: lk.URI, start: -1})
			continue
		}
		si, ei := 0, 0
		bs, be := math.Inf(1), math.Inf(1)
		for i, w := range words {
			if d := math.Hypot(ax0-w.x0, ay0-w.y0); d < bs {
				bs, si = d, i
			}
			if d := math.Hypot(ax1-w.x1, ay1-w.y1); d < be {
				be, ei = d, i
			}
		}
		if ei < si {
			si, ei = ei, si
		}
		parts := make([]string, 0, ei-si+1)
		for _, w := range words[si : ei+1] {
			parts = append(parts, w.text)
		}
		out = append(out, pendingLink{text: strings.Join(parts, " "), url: lk.URI, start: words[si].start})
	}
	return out
}

// cleanWhitespace is the reference's clean_extra_whitespace_with_index_run: NBSP and newline
// become spaces, runs of spaces collapse, the ends are trimmed. It also returns, for each rune
// offset of the input, the offset in the output, when withIndex is set.
func cleanWhitespace(s string, withIndex bool) (string, []int) {
	rs := []rune(s)
	var idx []int
	if withIndex {
		idx = make([]int, len(rs)+1)
	}
	out := make([]rune, 0, len(rs))
	for i, r := range rs {
		if r == '\u00a0' || r == '\n' {
			r = ' '
		}
		if withIndex {
			idx[i] = len(out)
		}
		if r == ' ' && len(out) > 0 && out[len(out)-1] == ' ' {
			continue
		}
		out = append(out, r)
	}
	if withIndex {
		idx[len(rs)] = len(out)
	}
	lead := 0
	for lead < len(out) && out[lead] == ' ' {
		lead++
	}
	end := len(out)
	for end > lead && out[end-1] == ' ' {
		end--
	}
	for i := range idx {
		idx[i] = min(max(idx[i]-lead, 0), end-lead)
	}
	return string(out[lead:end]), idx
}

func appendText(items []item, p *pdf.Page, raw string, x0, y0, x1, y1 float64, links []pendingLink) []item {
	text, idx := cleanWhitespace(raw, len(links) > 0)
	if strings.TrimSpace(text) == "" {
		return items
	}
	left, top, right, bottom := x0, p.Height-y1, x1, p.Height-y0
	var typ element.Type
	cy := (top + bottom) / 2
	switch {
	case cy < 0.07*p.Height:
		typ = element.Header
	case cy > 0.93*p.Height:
		typ = element.Footer
	default:
		typ, text = classify.Text(text)
	}
	e := element.Element{Type: typ, Text: text}
	for _, l := range links {
		start := l.start
		if start >= 0 && start < len(idx) {
			start = idx[start]
		}
		e.Metadata.Links = append(e.Metadata.Links, element.Link{Text: l.text, URL: l.url, StartIndex: start})
	}
	return append(items, item{el: e, x0: left, y0: top, x1: right, y1: bottom})
}

// combineListItems merges the boxes that continue a list item into it (§7.2): boxes within the
// item's horizontal band (left ≥ item left, right < item right + 20 % of its width) whose top
// lies within its vertical band (± 30 % of its height). The band grows with each merge.
func combineListItems(items []item) []item {
	out := items[:0] // in place: an item is read before its slot can be overwritten
	cur := -1
	for _, it := range items {
		if it.el.Type == element.ListItem {
			out = append(out, it)
			cur = len(out) - 1
			continue
		}
		if cur >= 0 {
			li := &out[cur]
			w, h := li.x1-li.x0, li.y1-li.y0
			if it.x0 >= li.x0 && it.x1 < li.x1+0.2*w && it.y0 >= li.y0-0.3*h && it.y0 <= li.y1+0.3*h {
				li.el.Text = li.el.Text + " " + it.el.Text
				li.x0, li.y0 = math.Min(li.x0, it.x0), math.Min(li.y0, it.y0)
				li.x1, li.y1 = math.Max(li.x1, it.x1), math.Max(li.y1, it.y1)
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

type ibox struct{ x0, y0, x1, y1, idx int }

// sortXYCut returns the reading order of a page's elements, as indexes into items, like the
// reference's sort_page_elements: boxes truncated to integers and shrunk to 90 % (keeping
// top-left), then a recursive XY-cut splitting columns first. Pages with a negative coordinate
// are only sorted top to bottom, as the reference does.
func sortXYCut(items []item) []int {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	if len(items) < 2 {
		return order
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(items[a].y0, items[b].y0); c != 0 {
			return c
		}
		return cmp.Compare(items[a].x0, items[b].x0)
	})
	for _, it := range items {
		if it.x0 < 0 || it.y0 < 0 || it.x1 < 0 || it.y1 < 0 {
			return order // the reference then keeps this top-to-bottom order
		}
	}
	boxes := make([]ibox, len(items))
	for i, k := range order {
		it := &items[k]
		l, t, r, b := int(it.x0), int(it.y0), int(it.x1), int(it.y1)
		w, h := float64(r-l), float64(b-t)
		nr := float64(r) - (w - w*0.9)
		nb := float64(b) - (h - h*0.9)
		boxes[i] = ibox{l, t, int(nr), int(nb), i}
	}
	res := make([]int, 0, len(boxes))
	xyCut(boxes, &res, 0)
	for i, k := range res {
		res[i] = order[k]
	}
	return res
}

// spans returns the [start, end) intervals where the projection of boxes on an axis is
// non-zero; any empty unit between two non-zero ones splits them (min_gap 1).
func spans(boxes []ibox, axis int) [][2]int {
	length := 0
	for _, b := range boxes {
		s, e := b.x0, b.x1
		if axis == 1 {
			s, e = b.y0, b.y1
		}
		length = max(length, s, e)
	}
	if length <= 0 || length > 1<<22 {
		return nil
	}
	// The runs of integer positions covered by at least one box's [s, e): the union of the
	// intervals, with intervals that touch joined.
	iv := make([][2]int, 0, len(boxes))
	for _, b := range boxes {
		s, e := b.x0, b.x1
		if axis == 1 {
			s, e = b.y0, b.y1
		}
		if s = max(s, 0); s < e {
			iv = append(iv, [2]int{s, e})
		}
	}
	slices.SortFunc(iv, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	var out [][2]int
	for _, v := range iv {
		if n := len(out); n > 0 && v[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], v[1])
			continue
		}
		out = append(out, v)
	}
	return out
}

func xyCut(boxes []ibox, res *[]int, depth int) {
	if len(boxes) == 0 {
		return
	}
	if depth > 64 {
		for _, b := range boxes {
			*res = append(*res, b.idx)
		}
		return
	}
	xs := append([]ibox(nil), boxes...)
	sort.SliceStable(xs, func(a, b int) bool { return xs[a].x0 < xs[b].x0 })
	for _, cx := range spans(xs, 0) {
		var col []ibox
		for _, b := range xs {
			if cx[0] <= b.x0 && b.x0 < cx[1] {
				col = append(col, b)
			}
		}
		sort.SliceStable(col, func(a, b int) bool { return col[a].y0 < col[b].y0 })
		rows := spans(col, 1)
		if len(rows) == 0 {
			continue
		}
		if len(rows) == 1 {
			for _, b := range col {
				*res = append(*res, b.idx)
			}
			continue
		}
		for _, ry := range rows {
			var row []ibox
			for _, b := range col {
				if ry[0] <= b.y0 && b.y0 < ry[1] {
					row = append(row, b)
				}
			}
			if len(row) == len(boxes) {
				// No progress: avoid infinite recursion on degenerate input.
				for _, b := range row {
					*res = append(*res, b.idx)
				}
				continue
			}
			xyCut(row, res, depth+1)
		}
	}
}
