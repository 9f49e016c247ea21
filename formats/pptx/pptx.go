// Package pptx partitions PowerPoint 2007+ presentations (.pptx) the way the reference's
// python-pptx based partitioner does: slides in presentation order, each slide's shapes (group
// shapes flattened, off-slide shapes skipped) sorted top to bottom and left to right, the title
// placeholder as Title, bulleted paragraphs as ListItem with their level as depth, other
// paragraphs through the slide text rules, tables as one Table with compact HTML, and optional
// speaker notes and page breaks. Legacy .ppt files converted to PPTX bytes go through Partition.
package pptx

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/internal/opc"
)

// MIME is the canonical PPTX content type.
const MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"

// Partitioner is the registered PPTX partitioner.
type Partitioner struct{}

var _ contract.Partitioner = Partitioner{}

// KeyIncludeSlideNotes is the API's include_slide_notes (default true): speaker notes become
// elements after their slide's.
const KeyIncludeSlideNotes = "include_slide_notes"

// Options are the keys the format reads beyond the standard ones (also declared by the legacy
// PowerPoint format, which is converted to PPTX and read here).
var Options = []contract.KeySpec{{Key: KeyIncludeSlideNotes, Kind: contract.Bool, Help: "PPT/PPTX: emit speaker notes (default true)", Since: 2}}

func init() {
	contract.RegisterFormat(contract.Format{Name: "pptx", MIME: MIME, Extensions: []string{".pptx"},
		ZipMembers: []contract.ZipMember{{Prefix: "ppt/presentation", Suffix: ".xml"}}, Partitioner: Partitioner{}, Options: Options})
}

// Partition implements contract.Partitioner.
func (Partitioner) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	return Partition(ctx, doc.Content, doc.Size, opts, emit)
}

func errInvalid(err error) error { return opc.InvalidError("pptx", err) }

func wrapErr(what string, err error) error { return opc.WrapError("pptx", what, err) }

// Partition partitions the PPTX bytes in r.
func Partition(ctx context.Context, r io.ReaderAt, size int64, opts contract.Options, emit contract.Emit) error {
	pkg, err := opc.Open(r, size)
	if err != nil {
		return errInvalid(err)
	}
	pres, err := opc.MainPart(pkg, "pptx", "ppt/presentation.xml")
	if err != nil {
		return err
	}
	slides, err := slideParts(pkg, pres)
	if err != nil {
		return wrapErr("read presentation", err)
	}
	p := &presentation{ctx: ctx, pkg: pkg, opts: opts, emit: emit, layouts: map[string]*phSet{}}
	start := opts.Int(contract.KeyStartingPageNumber, 1)
	if start == 0 {
		start = 1
	}
	var firstErr error
	skipped := 0
	for i, part := range slides {
		if err := ctx.Err(); err != nil {
			return err
		}
		page := i + 1
		// The reference tests "no break before the first slide" against its running counter,
		// which starts at starting_page_number: from 2 on, the first slide gets one too.
		if opts.Bool(contract.KeyIncludePageBreaks, false) && page+start-1 >= 2 {
			el := element.Element{Type: element.PageBreak}
			el.Metadata.PageNumber = element.Int(page - 1)
			if err := emit(el); err != nil {
				return err
			}
		}
		if err := p.slide(part, page); err != nil {
			if !opc.Degradable(err) {
				return wrapErr(part, err)
			}
			p.damaged = append(p.damaged, fmt.Sprintf("%s (%v): slide skipped", part, err))
			if firstErr == nil {
				firstErr = wrapErr(part, err)
			}
			skipped++
		}
	}
	if len(slides) > 0 && skipped == len(slides) {
		return firstErr // nothing readable: the document fails with why
	}
	if len(p.damaged) > 0 {
		contract.Logger(ctx).Warn("pptx: damaged parts skipped; the rest is kept", "parts", strings.Join(p.damaged, "; "))
	}
	return nil
}

// slideParts lists slide part names in presentation order (p:sldIdLst).
func slideParts(pkg *opc.Package, pres string) ([]string, error) {
	rels, err := pkg.Rels(pres)
	if err != nil {
		return nil, err
	}
	rc, err := pkg.OpenPart(pres)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	ids, err := sldIDs(rc)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		if rel, ok := rels[id]; ok && !rel.External && pkg.Has(rel.Target) {
			out = append(out, rel.Target)
		}
	}
	return out, nil
}

type presentation struct {
	ctx     context.Context
	pkg     *opc.Package
	opts    contract.Options
	emit    contract.Emit
	layouts map[string]*phSet
	// damaged names the parts that could not be read (a corrupt stream, broken markup): a
	// slide whose part is damaged is skipped, a damaged layout or notes part is done without.
	damaged []string
}

// phSet holds the placeholder positions of a layout or master, for shapes that inherit them.
type phSet struct {
	byIdx  map[int]*Shape
	byType map[string]*Shape
	base   *phSet // the layout's master
}

func (p *presentation) placeholders(part string, master bool) (*phSet, error) {
	if set, ok := p.layouts[part]; ok {
		return set, nil
	}
	set := &phSet{byIdx: map[int]*Shape{}, byType: map[string]*Shape{}}
	p.layouts[part] = set // set before recursing: a cyclic relationship must not loop
	rc, err := p.pkg.OpenPart(part)
	if err != nil {
		return nil, err
	}
	shapes, err := parseShapes(p.ctx, rc)
	rc.Close()
	if err != nil {
		return nil, err
	}
	for _, s := range shapes {
		if !s.hasPh {
			continue
		}
		if _, ok := set.byIdx[s.phIdx]; !ok {
			set.byIdx[s.phIdx] = s
		}
		if _, ok := set.byType[s.phType]; !ok {
			set.byType[s.phType] = s
		}
	}
	if !master {
		rels, err := p.pkg.Rels(part)
		if err != nil {
			return nil, err
		}
		if rel, ok := opc.RelByType(rels, "/slideMaster"); ok && p.pkg.Has(rel.Target) {
			if set.base, err = p.placeholders(rel.Target, true); err != nil {
				return nil, err
			}
		}
	}
	return set, nil
}

// masterType maps a layout placeholder type to the master placeholder it inherits from.
func masterType(t string) string {
	switch t {
	case "ctrTitle", "title":
		return "title"
	case "dt", "ftr", "sldNum":
		return t
	}
	return "body"
}

// position returns a shape's offset the way python-pptx reports it: its own, else a
// placeholder's inherited from the layout placeholder with the same idx, else from the master.
func position(s *Shape, layout *phSet) (x, y int64, ok bool) {
	if s.hasOff || !s.hasPh || layout == nil {
		return s.x, s.y, s.hasOff
	}
	lp := layout.byIdx[s.phIdx]
	if lp == nil {
		return 0, 0, false
	}
	if lp.hasOff {
		return lp.x, lp.y, true
	}
	if layout.base == nil {
		return 0, 0, false
	}
	if mp := layout.base.byType[masterType(lp.phType)]; mp != nil && mp.hasOff {
		return mp.x, mp.y, true
	}
	return 0, 0, false
}

func (p *presentation) slide(part string, page int) error {
	rels, err := p.pkg.Rels(part)
	if err != nil {
		return err
	}
	var layout *phSet
	if rel, ok := opc.RelByType(rels, "/slideLayout"); ok && p.pkg.Has(rel.Target) {
		if layout, err = p.placeholders(rel.Target, false); opc.Degradable(err) {
			// Without its layout a slide only loses inherited placeholder positions.
			p.damaged = append(p.damaged, fmt.Sprintf("%s (%v): layout not used", rel.Target, err))
			layout = nil
		} else if err != nil {
			return err
		}
	}
	// The slide is read whole before anything of it is emitted, so a damaged slide part
	// leaves nothing half-emitted.
	rc, err := p.pkg.OpenPart(part)
	if err != nil {
		return err
	}
	shapes, err := parseShapes(p.ctx, rc)
	rc.Close()
	if err != nil {
		return err
	}
	p.diagrams(shapes, rels)
	p.charts(shapes, rels)
	if p.opts.Bool(KeyIncludeSlideNotes, true) {
		if rel, ok := opc.RelByType(rels, "/notesSlide"); ok && p.pkg.Has(rel.Target) {
			if err := p.notes(rel.Target, page); opc.Degradable(err) {
				p.damaged = append(p.damaged, fmt.Sprintf("%s (%v): notes skipped", rel.Target, err))
			} else if err != nil {
				return err
			}
		}
	}
	// python-pptx's slide title: the first top-level placeholder with idx 0.
	var title *Shape
	for _, s := range shapes {
		if s.hasPh && s.phIdx == 0 {
			title = s
			break
		}
	}
	type placed struct {
		s      *Shape
		x, y   int64
		hasPos bool
	}
	var flat []placed
	var walk func([]*Shape)
	walk = func(ss []*Shape) {
		for _, s := range ss {
			if s.kind == kindGroup {
				walk(s.children)
				continue
			}
			x, y, ok := position(s, layout)
			flat = append(flat, placed{s, x, y, ok})
		}
	}
	walk(shapes)
	sort.SliceStable(flat, func(i, j int) bool {
		if flat[i].y != flat[j].y {
			return flat[i].y < flat[j].y
		}
		return flat[i].x < flat[j].x
	})
	for _, f := range flat {
		s := f.s
		// Off-slide: both offsets non-zero and one negative (python-pptx's truthiness test).
		offSlide := f.hasPos && f.x != 0 && f.y != 0 && (f.x < 0 || f.y < 0)
		var err error
		switch {
		case s.chart != "" && !offSlide:
			// Its titles, then its data as a table.
			if err = p.textShape(s, page); err == nil {
				err = p.table(s, page)
			}
		case s.isTable:
			err = p.table(s, page)
		case s.kind == kindSp && offSlide:
		case s.kind == kindSp && s == title:
			err = p.titleShape(s, page)
		case s.kind == kindSp, s.kind == kindFrame && s.diagram != "" && !offSlide:
			err = p.textShape(s, page)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func textElement(t element.Type, text string, page, depth int) element.Element {
	el := element.Element{Type: t, Text: text}
	el.Metadata.PageNumber = element.Int(page)
	el.Metadata.CategoryDepth = element.Int(depth)
	return el
}

// emailElement mirrors the reference, which builds e-mail addresses found on slides without
// any metadata (so they carry no page number).
func emailElement(text string) element.Element {
	return element.Element{Type: element.EmailAddress, Text: text}
}

func (p *presentation) titleShape(s *Shape, page int) error {
	depth := 0
	for _, para := range s.paras {
		if strings.TrimSpace(para.Text) == "" {
			continue
		}
		var el element.Element
		switch {
		case para.Bullet:
			el = textElement(element.ListItem, para.Text, page, max(para.Level, 1))
		case classify.IsEmailAddress(para.Text):
			el = emailElement(para.Text)
		default:
			el = textElement(element.Title, para.Text, page, depth)
			depth++
		}
		if err := p.emit(el); err != nil {
			return err
		}
	}
	return nil
}

func (p *presentation) textShape(s *Shape, page int) error {
	for _, para := range s.paras {
		stripped := strings.TrimSpace(para.Text)
		if stripped == "" {
			continue
		}
		var el element.Element
		switch {
		case para.Bullet:
			el = textElement(element.ListItem, para.Text, page, para.Level)
		case classify.IsEmailAddress(stripped):
			el = emailElement(para.Text)
		case classify.IsNarrative(stripped):
			el = textElement(element.NarrativeText, para.Text, page, para.Level)
		case classify.IsTitle(stripped):
			el = textElement(element.Title, para.Text, page, para.Level+1)
		default:
			el = textElement(element.UncategorizedText, para.Text, page, para.Level)
		}
		if err := p.emit(el); err != nil {
			return err
		}
	}
	return nil
}

// cellText normalises a table cell as the reference's compact HTML does: white space
// collapsed within each line, line breaks kept (they become <br/>).
func cellText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

func (p *presentation) table(s *Shape, page int) error {
	if len(s.table) == 0 {
		return nil
	}
	rows := make([][]element.Cell, 0, len(s.table))
	for _, r := range s.table {
		if len(r) == 0 {
			continue
		}
		row := make([]element.Cell, len(r))
		for i, c := range r {
			row[i].Text = cellText(c)
		}
		rows = append(rows, row)
	}
	text := element.TableText(rows)
	if text == "" {
		return nil
	}
	el := element.Element{Type: element.Table, Text: text}
	el.Metadata.PageNumber = element.Int(page)
	el.Metadata.TextAsHTML = element.TableHTML(rows)
	return p.emit(el)
}

// notes emits the slide's speaker notes (the notes slide's body placeholder) as one
// NarrativeText.
func (p *presentation) notes(part string, page int) error {
	rc, err := p.pkg.OpenPart(part)
	if err != nil {
		return err
	}
	shapes, err := parseShapes(p.ctx, rc)
	rc.Close()
	if err != nil {
		return err
	}
	for _, s := range shapes {
		if !s.hasPh || s.phType != "body" {
			continue
		}
		lines := make([]string, len(s.paras))
		for i, para := range s.paras {
			lines[i] = para.Text
		}
		text := strings.TrimSpace(strings.Join(lines, "\n"))
		if text == "" {
			return nil
		}
		return p.emit(textElement(element.NarrativeText, text, page, 0))
	}
	// Deliberate difference: a notes page without a body placeholder (written by tools that
	// put the notes in a plain text box, as LibreOffice does for notes not in its notes
	// frame) has its notes in text boxes; python-pptx, and so the reference, finds none. The
	// slide image, number, date, header and footer placeholders are not notes.
	var lines []string
	for _, s := range shapes {
		if s.hasPh {
			continue
		}
		for _, para := range s.paras {
			lines = append(lines, para.Text)
		}
	}
	if text := strings.TrimSpace(strings.Join(lines, "\n")); text != "" {
		return p.emit(textElement(element.NarrativeText, text, page, 0))
	}
	return nil
}

// charts gives chart frames their chart parts' titles (as paragraphs) and cached data (as a
// table); python-pptx (and so the reference) reads none of it, so a slide's figures were lost.
func (p *presentation) charts(shapes []*Shape, rels map[string]opc.Rel) {
	for _, s := range shapes {
		p.charts(s.children, rels)
		if s.chart == "" {
			continue
		}
		rel, ok := rels[s.chart]
		if !ok || rel.External || !p.pkg.Has(rel.Target) {
			continue
		}
		data, err := p.pkg.ReadPart(rel.Target)
		if err != nil {
			p.damaged = append(p.damaged, fmt.Sprintf("%s (%v): chart skipped", rel.Target, err))
			continue
		}
		ch := opc.ReadChart(data)
		for _, t := range ch.Titles {
			s.paras = append(s.paras, Paragraph{Text: t})
		}
		s.table = ch.Rows
	}
}

// diagrams gives SmartArt frames the text of their data parts, one paragraph per line of a
// node; python-pptx (and so the reference) reads none of it.
func (p *presentation) diagrams(shapes []*Shape, rels map[string]opc.Rel) {
	for _, s := range shapes {
		p.diagrams(s.children, rels)
		if s.diagram == "" || len(s.paras) > 0 {
			continue
		}
		rel, ok := rels[s.diagram]
		if !ok || rel.External || !p.pkg.Has(rel.Target) {
			continue
		}
		data, err := p.pkg.ReadPart(rel.Target)
		if err != nil {
			p.damaged = append(p.damaged, fmt.Sprintf("%s (%v): diagram text skipped", rel.Target, err))
			continue
		}
		for _, text := range opc.DiagramText(data) {
			s.paras = append(s.paras, Paragraph{Text: text})
		}
	}
}
