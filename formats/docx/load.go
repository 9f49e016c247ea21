package docx

import (
	"context"
	"fmt"
	"io"
	"path"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/internal/opc"
	"github.com/quarrydocs/quarry/formats/internal/wordproc"
)

// errInvalid is the reference's answer for bytes that are not a Word package.
func errInvalid(err error) error { return opc.InvalidError("docx", err) }

// wrapPkgErr turns package-level failures (caps, corrupt streams) into typed errors.
func wrapPkgErr(what string, err error) error { return opc.WrapError("docx", what, err) }

// Load parses the DOCX package in r into a Document. Imported chunks (w:altChunk) are not
// read: that needs the request's options (see Partition).
func Load(ctx context.Context, r io.ReaderAt, size int64) (*wordproc.Document, error) {
	return load(ctx, r, size, nil)
}

func load(ctx context.Context, r io.ReaderAt, size int64, opts contract.Options) (*wordproc.Document, error) {
	pkg, err := opc.Open(r, size)
	if err != nil {
		return nil, errInvalid(err)
	}
	return loadPackage(ctx, pkg, opts)
}

func degradable(err error) bool { return opc.Degradable(err) }

// LoadPackage parses an already opened package (imported chunks aside, as Load).
func LoadPackage(ctx context.Context, pkg *opc.Package) (*wordproc.Document, error) {
	return loadPackage(ctx, pkg, nil)
}

// maxChunkNesting bounds documents imported into documents imported into … (a DOCX chunk can
// hold a DOCX with chunks).
const maxChunkNesting = 4

type chunkNestingKey struct{}

// loadPackage parses the package; with opts, imported chunks are partitioned through the
// engine with them.
func loadPackage(ctx context.Context, pkg *opc.Package, opts contract.Options) (*wordproc.Document, error) {
	main, err := opc.MainPart(pkg, "docx", "word/document.xml")
	if err != nil {
		return nil, err
	}
	rels, err := pkg.Rels(main)
	if err != nil {
		return nil, wrapPkgErr("read relationships", err)
	}
	doc := &wordproc.Document{Styles: map[string]string{}}
	dir := path.Dir(main) + "/"
	stylesPart := dir + "styles.xml"
	if rel, ok := opc.RelByType(rels, "/styles"); ok {
		stylesPart = rel.Target
	}
	if pkg.Has(stylesPart) {
		data, err := pkg.ReadPart(stylesPart)
		if err != nil && !degradable(err) {
			return nil, wrapPkgErr("read styles", err)
		}
		if err != nil {
			doc.Damaged = append(doc.Damaged, fmt.Sprintf("%s (%v): paragraph styles not known", stylesPart, err))
		}
		// A broken styles part degrades to "every paragraph is Normal", as Word itself would.
		if names, def, err := parseStyles(data); err == nil {
			doc.Styles, doc.DefaultStyle = names, def
		}
	}
	settingsPart := dir + "settings.xml"
	if rel, ok := opc.RelByType(rels, "/settings"); ok {
		settingsPart = rel.Target
	}
	if pkg.Has(settingsPart) {
		data, err := pkg.ReadPart(settingsPart)
		switch {
		case err == nil:
			doc.EvenAndOddHeaders = parseSettings(data)
		case degradable(err):
			doc.Damaged = append(doc.Damaged, fmt.Sprintf("%s (%v)", settingsPart, err))
		default:
			return nil, wrapPkgErr("read settings", err)
		}
	}

	rc, err := pkg.OpenPart(main)
	if err != nil {
		return nil, wrapPkgErr("open document", err)
	}
	diagram := func(rid string) []wordproc.Block {
		rel, ok := rels[rid]
		if !ok || rel.External || !pkg.Has(rel.Target) {
			return nil
		}
		data, err := pkg.ReadPart(rel.Target)
		if err != nil {
			doc.Damaged = append(doc.Damaged, fmt.Sprintf("%s (%v): diagram text skipped", rel.Target, err))
			return nil
		}
		return diagramText(data)
	}
	var chunk func(rid string) []element.Element
	if depth, _ := ctx.Value(chunkNestingKey{}).(int); opts != nil && depth < maxChunkNesting {
		chunk = func(rid string) []element.Element {
			rel, ok := rels[rid]
			if !ok || rel.External || !pkg.Has(rel.Target) {
				return nil
			}
			data, err := pkg.ReadPart(rel.Target)
			if err != nil {
				doc.Damaged = append(doc.Damaged, fmt.Sprintf("%s (%v): imported content skipped", rel.Target, err))
				return nil
			}
			// The part's type is detected from its bytes and name (afchunk.mht, chunk.html,
			// chunk.rtf, chunk.docx) as a document of its own.
			sub := opts.Clone()
			delete(sub, contract.KeyContentType)
			nctx := context.WithValue(ctx, chunkNestingKey{}, depth+1)
			els, err := contract.Nested(nctx, contract.NewDocument(path.Base(rel.Target), data), sub)
			if err != nil {
				doc.Damaged = append(doc.Damaged, fmt.Sprintf("%s (%v): imported content skipped", rel.Target, err))
				return nil
			}
			for i := range els {
				// The document's own name and type, as for the rest of its text.
				els[i].Metadata.Filename, els[i].Metadata.Filetype = "", ""
			}
			return els
		}
	}
	// Deliberate difference: python-docx reads no chart; its title, axis titles and the data
	// Word caches with it (the embedded workbook's figures) follow the paragraph that
	// anchors it.
	chart := func(rid string) []wordproc.Block {
		rel, ok := rels[rid]
		if !ok || rel.External || !pkg.Has(rel.Target) {
			return nil
		}
		data, err := pkg.ReadPart(rel.Target)
		if err != nil {
			doc.Damaged = append(doc.Damaged, fmt.Sprintf("%s (%v): chart skipped", rel.Target, err))
			return nil
		}
		return chartBlocks(opc.ReadChart(data))
	}
	parsed, err := parseBody(ctx, rc, rels, diagram, chart, chunk)
	blocks := parsed.blocks
	rc.Close()
	if err != nil {
		// A body cut short by a damaged stream or broken markup keeps the blocks read
		// before the damage; with none, the document is unreadable.
		if !degradable(err) || len(blocks) == 0 {
			return nil, wrapPkgErr("read document", err)
		}
		doc.Damaged = append(doc.Damaged, fmt.Sprintf("%s (%v): the rest of the body is lost", main, err))
	}
	doc.HasRenderedPageBreaks = parsed.lrpb

	hdrftr := map[string]*wordproc.HeaderFooter{}
	load := func(ids map[string]string) (map[string]*wordproc.HeaderFooter, error) {
		out := map[string]*wordproc.HeaderFooter{}
		for kind, id := range ids {
			rel, ok := rels[id]
			if !ok || rel.External || !pkg.Has(rel.Target) {
				continue
			}
			if hf, ok := hdrftr[rel.Target]; ok {
				out[kind] = hf
				continue
			}
			rc, err := pkg.OpenPart(rel.Target)
			if err != nil {
				return nil, err
			}
			hf, err := parseHeaderFooter(ctx, rc)
			rc.Close()
			if err != nil && degradable(err) {
				doc.Damaged = append(doc.Damaged, fmt.Sprintf("%s (%v): header or footer skipped", rel.Target, err))
				hdrftr[rel.Target] = &wordproc.HeaderFooter{}
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", rel.Target, err)
			}
			hdrftr[rel.Target] = hf
			out[kind] = hf
		}
		return out, nil
	}
	newSection := func(sp *sectProps, blocks []wordproc.Block) (wordproc.Section, error) {
		s := wordproc.Section{StartType: sp.startType, TitlePage: sp.titlePg, Blocks: blocks}
		var err error
		if s.Headers, err = load(sp.headers); err != nil {
			return s, err
		}
		s.Footers, err = load(sp.footers)
		return s, err
	}

	// Deliberate difference: python-docx reads no notes, so the reference loses footnote and
	// endnote text. Here their paragraphs follow the body, footnotes then endnotes, each in
	// the order Word keeps them (the order of their references).
	for _, kind := range []string{"footnotes", "endnotes"} {
		rel, ok := opc.RelByType(rels, "/"+kind)
		if !ok || rel.External || !pkg.Has(rel.Target) {
			continue
		}
		rc, err := pkg.OpenPart(rel.Target)
		if err != nil {
			doc.Damaged = append(doc.Damaged, fmt.Sprintf("%s (%v): %s skipped", rel.Target, err, kind))
			continue
		}
		notes, err := parseNotes(ctx, rc)
		rc.Close()
		if err != nil {
			if !degradable(err) {
				return nil, wrapPkgErr("read "+kind, err)
			}
			doc.Damaged = append(doc.Damaged, fmt.Sprintf("%s (%v): the rest of the %s are lost", rel.Target, err, kind))
		}
		blocks = append(blocks, notes...)
	}

	start := 0
	for i, b := range blocks {
		sp := parsed.breaks[b.P] // nil for tables and paragraphs inside a section
		if sp == nil {
			continue
		}
		s, err := newSection(sp, blocks[start:i+1])
		if err != nil {
			return nil, wrapPkgErr("read header/footer", err)
		}
		doc.Sections = append(doc.Sections, s)
		start = i + 1
	}
	switch {
	case parsed.final != nil:
		s, err := newSection(parsed.final, blocks[start:])
		if err != nil {
			return nil, wrapPkgErr("read header/footer", err)
		}
		doc.Sections = append(doc.Sections, s)
	case len(doc.Sections) > 0 && start < len(blocks):
		// Blocks after the last section break with no closing w:sectPr belong to no section
		// in the reference's reading; keep them with the last section rather than lose text.
		last := &doc.Sections[len(doc.Sections)-1]
		last.Blocks = append(last.Blocks, blocks[start:]...)
	case len(doc.Sections) == 0:
		doc.Body = blocks
	}
	return doc, nil
}

// chartBlocks is a chart as paragraphs (its titles) and a table (its data).
func chartBlocks(ch opc.Chart) []wordproc.Block {
	var out []wordproc.Block
	run := func(text string) *wordproc.Paragraph {
		return &wordproc.Paragraph{Items: []wordproc.Inline{{Kind: wordproc.KindRun, Text: text}}}
	}
	for _, t := range ch.Titles {
		out = append(out, wordproc.Block{P: run(t)})
	}
	if len(ch.Rows) == 0 {
		return out
	}
	tbl := &wordproc.Table{}
	for _, r := range ch.Rows {
		row := wordproc.Row{}
		for _, v := range r {
			row.Cells = append(row.Cells, wordproc.Cell{GridSpan: 1, Blocks: []wordproc.Block{{P: run(v)}}})
		}
		tbl.Rows = append(tbl.Rows, row)
	}
	return append(out, wordproc.Block{T: tbl})
}
