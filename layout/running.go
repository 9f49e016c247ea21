package layout

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/pdf"
)

// LookAhead is how many pages after a page Add waits for before its running heads and feet
// are settled: two pages to see a book's alternating heads (the title on even pages, the
// chapter on odd ones) come back, and two more for a chapter's opening page or a full-page
// figure between them.
const LookAhead = 4

// Laid is one page laid out: its elements (in reading order), its pictures (Picture.Element
// indexes Elements) and its size in points.
type Laid struct {
	Number        int
	Elements      []element.Element
	Pictures      []Picture
	Width, Height float64
}

// heldPage is a page laid out whose running heads and feet are not settled yet.
type heldPage struct {
	Laid
	cands   []runCand
	retypes []retype
}

// runCand is a block that may be a running head or foot: a short text on the page's first or
// last line, or in its outer margin.
type runCand struct {
	elem int    // index in the page's elements
	key  string // normalised text (runKey)
	// first and last: on the page's first or last text line; upper: in the page's top half.
	first, last, upper bool
	// pos is set for one line in body size or smaller within the top or bottom band: what a
	// running head looks like, placed would it be one (Header or Footer), edge its distance
	// from its page edge (points).
	pos    bool
	placed element.Type
	edge   float64
	size   float64
	// beside is set when a page number shares its line (a book's "12   Chapter One").
	beside bool
	// canRepeat is set for text that is a running head or foot when it repeats: text with
	// words (what repeats without letters is numbering: "2.4", a listing's "243 }" and
	// "726 }"), in the outer fifth of the page or not set larger than the body (a part's
	// title in the middle of its own page, "Part II", comes back as "Part III").
	canRepeat bool
	b         box
}

// runPos is where a document sets its running heads or feet: the band, the distance from
// the page edge and the type size.
type runPos struct {
	typ        element.Type
	edge, size float64
}

// maxHeads bounds the positions remembered (a document sets its heads in a few places).
const maxHeads = 32

// Add lays out page p (read with Params) and holds it until its running heads and feet are
// settled; Ready returns it then. Pages are added in order. It fails only when ctx is done.
func (d *Doc) Add(ctx context.Context, p *pdf.Page) error {
	hp, err := d.layPage(ctx, p)
	if err != nil {
		return err
	}
	d.held = append(d.held, hp)
	return nil
}

// Ready returns the pages whose running heads and feet are settled (LookAhead pages have been
// added after them), in order, and forgets them.
func (d *Doc) Ready() []Laid {
	n := len(d.held) - LookAhead
	if n <= 0 {
		return nil
	}
	return d.release(n, false)
}

// Finish settles every page still held (the document ended, or the caller stops) and returns
// them in order. A document of one page has no running heads or feet.
func (d *Doc) Finish() []Laid {
	return d.release(len(d.held), true)
}

func (d *Doc) release(n int, final bool) []Laid {
	out := make([]Laid, 0, n)
	for _, hp := range d.held[:n] {
		d.settle(hp, final)
		out = append(out, hp.Laid)
	}
	d.held = append(d.held[:0], d.held[n:]...)
	return out
}

// count adds a page's band texts to the document's counts, once a page.
func (d *Doc) count(hp *heldPage) {
	d.added++
	seen := map[string]bool{}
	for _, c := range hp.cands {
		if !seen[c.key] {
			seen[c.key] = true
			d.bands[c.key]++
		}
	}
}

// settle types a page's candidates. A candidate is a running head or foot when
//   - its text (numbers normalised) comes back first or last on another page of the
//     document, as far as it has been read (the pages before it and LookAhead after), or
//   - it is placed like one and a page number shares its line, or
//   - it is placed like one where the document sets heads or feet whose text repeats
//     (the same band, distance from the edge and size): a chapter's or section's title
//     changing from page to page.
//
// Position alone is not enough: the top line of a report's first page is its title, and a
// document of one page (final, one page added) has no running heads at all.
func (d *Doc) settle(hp *heldPage, final bool) {
	if body := d.docBody(); len(hp.retypes) > 0 {
		for _, rt := range hp.retypes {
			if rt.body == body || rt.elem >= len(hp.Elements) || hp.Elements[rt.elem].Type != rt.typ {
				continue
			}
			e := &hp.Elements[rt.elem]
			e.Type = textType(rt.nlines, rt.mark, e.Text, rt.words, rt.size, rt.bold, body)
		}
		hp.retypes = nil
	}
	onePage := final && d.added == 1
	// Positions of repeated heads: those remembered, and those of the pages held.
	heads := d.heads
	for _, h := range d.held {
		for _, c := range h.cands {
			if c.pos && d.bands[c.key] >= 2 {
				heads = append(heads, runPos{c.placed, c.edge, c.size})
			}
		}
	}
	for _, c := range hp.cands {
		if onePage || c.elem >= len(hp.Elements) {
			continue
		}
		typ := element.Type("")
		switch {
		case d.bands[c.key] >= 2 && c.canRepeat:
			switch {
			case c.pos:
				typ = c.placed
			case c.first && c.upper, !c.last && c.upper:
				typ = element.Header
			default:
				typ = element.Footer
			}
		case c.pos && c.beside:
			typ = c.placed
		case c.pos && atHead(heads, c):
			typ = c.placed
		}
		if typ != "" {
			e := &hp.Elements[c.elem]
			e.Type = typ
			// A caption's picture (extract_image_block_types) is not a running head's.
			if !d.opts.ExtractTypes[typ] {
				e.Metadata.ImageBase64, e.Metadata.ImageMIMEType = "", ""
			}
		}
		if c.pos && d.bands[c.key] >= 2 {
			d.remember(runPos{c.placed, c.edge, c.size})
		}
	}
}

// atHead reports a candidate set where the document sets its running heads or feet.
func atHead(heads []runPos, c runCand) bool {
	for _, h := range heads {
		if h.typ == c.placed && math.Abs(h.edge-c.edge) <= math.Max(1.5, 0.25*c.size) && math.Abs(h.size-c.size) <= 0.5 {
			return true
		}
	}
	return false
}

func (d *Doc) remember(h runPos) {
	for _, o := range d.heads {
		if o.typ == h.typ && math.Abs(o.edge-h.edge) < 0.5 && math.Abs(o.size-h.size) < 0.25 {
			return
		}
	}
	if len(d.heads) < maxHeads {
		d.heads = append(d.heads, h)
	}
}

// markBeside marks candidates sharing their line with a page number in the same band.
func markBeside(cands []runCand, numbers []box, H float64) {
	for i := range cands {
		c := &cands[i]
		for _, n := range numbers {
			ov := math.Min(c.b.y1, n.y1) - math.Max(c.b.y0, n.y0)
			if ov > 0.5*math.Min(c.b.h(), n.h()) && (n.y1 < 0.5*H) == c.upper {
				c.beside = true
			}
		}
	}
}

// runKey is the text of a candidate, lower-cased, with numbers — arabic and roman — replaced
// by '#', so "Page 3 of 9" and "Page 4 of 9", or "Chapter iv" and "Chapter v", are one text;
// and its type size to the half point, as a document sets its running heads in one size: a
// chapter's title set large at the top of its first page ("Contents") is not the running
// head of the pages after it. The band is not part of it: a foot set right after a short
// page's text (documents printed from HTML) lies in the page's top half.
func runKey(text string, size float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%.0f:", 2*size)
	for i, w := range strings.Fields(strings.ToLower(text)) {
		if i > 0 {
			b.WriteByte(' ')
		}
		if isRoman(strings.Trim(w, ".,:;()[]-–—")) {
			b.WriteByte('#')
			continue
		}
		b.WriteString(digitsRE.ReplaceAllString(w, "#"))
	}
	return b.String()
}

// isRoman reports a lower-case roman numeral (i … mmm) as page and chapter numbers are set.
func isRoman(w string) bool {
	if w == "" || len(w) > 8 || strings.Trim(w, "ivxlcdm") != "" {
		return false
	}
	// Letters in the order of a numeral: no smaller unit twice before a larger one ("ic" is
	// not a numeral, "civil" has an l after i).
	val := map[byte]int{'i': 1, 'v': 5, 'x': 10, 'l': 50, 'c': 100, 'd': 500, 'm': 1000}
	prev, run := 10000, 0
	for k := 0; k < len(w); k++ {
		v := val[w[k]]
		switch {
		case v < prev:
			run = 1
		case v == prev:
			run++
			if run > 3 || v == 5 || v == 50 || v == 500 {
				return false
			}
		default: // a subtractive pair: one smaller before a larger one, of the allowed kind
			if run > 1 || !(prev*5 == v || prev*10 == v) || prev == 5 || prev == 50 {
				return false
			}
			run = 0
		}
		prev = v
	}
	return true
}
