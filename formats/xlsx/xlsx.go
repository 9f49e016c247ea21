// Package xlsx partitions Excel 2007+ workbooks (.xlsx) the way the reference's pandas based
// partitioner does: every worksheet (page_number = its index, page_name = its name) is split
// into connected blocks of non-empty cells; in each block the leading and trailing rows that
// hold a single cell become text elements and the rest one Table with compact HTML. Cell
// values are typed and rendered as pandas renders them (integral numbers as ints, numeric
// columns with gaps as floats such as 13.0, dates, booleans).
//
// Worksheets are read with a streaming XML decoder so that memory follows the number of
// non-empty cells, not the file's declared dimensions. Legacy .xls workbooks converted to
// XLSX bytes go through Partition.
package xlsx

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/internal/opc"
)

// MIME is the canonical XLSX content type.
const MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// Partitioner is the registered XLSX partitioner.
type Partitioner struct{}

var _ contract.Partitioner = Partitioner{}

func init() {
	contract.RegisterFormat(contract.Format{Name: "xlsx", MIME: MIME, Extensions: []string{".xlsx"},
		ZipMembers: []contract.ZipMember{{Prefix: "xl/workbook", Suffix: ".xml"}}, Partitioner: Partitioner{}})
}

// Partition implements contract.Partitioner.
func (Partitioner) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	return Partition(ctx, doc.Content, doc.Size, opts, emit)
}

func errInvalid(err error) error { return opc.InvalidError("xlsx", err) }

func wrapErr(what string, err error) error { return opc.WrapError("xlsx", what, err) }

// Partition partitions the XLSX bytes in r.
func Partition(ctx context.Context, r io.ReaderAt, size int64, opts contract.Options, emit contract.Emit) error {
	pkg, err := opc.Open(r, size)
	if err != nil {
		return errInvalid(err)
	}
	wbPart, err := opc.MainPart(pkg, "xlsx", "xl/workbook.xml")
	if err != nil {
		return err
	}
	sheets, d1904, err := readWorkbook(pkg, wbPart)
	if err != nil {
		return wrapErr("read workbook", err)
	}
	wb := &workbook{pkg: pkg, date1904: d1904}
	rels, err := pkg.Rels(wbPart)
	if err != nil {
		return wrapErr("read workbook relationships", err)
	}
	dir := path.Dir(wbPart) + "/"
	ssPart := dir + "sharedStrings.xml"
	if rel, ok := opc.RelByType(rels, "/sharedStrings"); ok {
		ssPart = rel.Target
	}
	if pkg.Has(ssPart) {
		rc, err := pkg.OpenPart(ssPart)
		if err != nil {
			return wrapErr("read shared strings", err)
		}
		wb.strings, err = readSharedStrings(ctx, rc)
		rc.Close()
		if err != nil {
			return wrapErr("read shared strings", err)
		}
	}
	stylesPart := dir + "styles.xml"
	if rel, ok := opc.RelByType(rels, "/styles"); ok {
		stylesPart = rel.Target
	}
	var damaged []string
	if pkg.Has(stylesPart) {
		data, err := pkg.ReadPart(stylesPart)
		switch {
		case err == nil:
			wb.dateXf = readStyles(data)
		case opc.Degradable(err):
			// Without styles, dates read as their serial numbers.
			damaged = append(damaged, fmt.Sprintf("%s (%v): dates shown as numbers", stylesPart, err))
		default:
			return wrapErr("read styles", err)
		}
	}
	log := contract.Logger(ctx)
	var firstErr error
	skipped := 0
	for i, s := range sheets {
		if err := ctx.Err(); err != nil {
			return err
		}
		rc, err := pkg.OpenPart(s.part)
		if err != nil {
			return wrapErr("open sheet "+s.name, err)
		}
		sd, err := wb.readSheet(ctx, rc, func(rows int) {
			log.Info("xlsx: reading worksheet", "sheet", s.name, "rows", rows)
		})
		rc.Close()
		if err != nil {
			// A damaged sheet is skipped (it is read whole before anything of it is
			// emitted); the other sheets are kept.
			if !opc.Degradable(err) {
				return wrapErr("read sheet "+s.name, err)
			}
			damaged = append(damaged, fmt.Sprintf("sheet %s, %s (%v): skipped", s.name, s.part, err))
			if firstErr == nil {
				firstErr = wrapErr("read sheet "+s.name, err)
			}
			skipped++
			continue
		}
		if err := emitSheet(ctx, sd, s.name, i+1, emit); err != nil {
			return err
		}
		if err := emitDrawings(pkg, s, i+1, emit, &damaged); err != nil {
			return err
		}
	}
	if len(sheets) > 0 && skipped == len(sheets) {
		return firstErr // no sheet could be read: the document fails with why
	}
	if len(damaged) > 0 {
		log.Warn("xlsx: damaged parts skipped; the rest is kept", "parts", strings.Join(damaged, "; "))
	}
	return nil
}

// dtype is a pandas column dtype.
type dtype uint8

const (
	dtFloat dtype = iota
	dtInt
	dtBool
	dtDate
	dtDur
	dtObject
)

// columnTypes infers each column's dtype over the whole sheet, as pandas does when it reads
// the sheet into one frame (rows up to the last non-empty one; a gap makes an int column
// float and a bool column object).
func columnTypes(sd *sheetData) []dtype {
	type acc struct {
		n                                   int
		ints, floats, bools, dates, durs, o bool
	}
	accs := make([]acc, sd.width)
	for _, row := range sd.cells {
		for _, c := range row {
			a := &accs[c.col]
			a.n++
			switch c.v.k {
			case kInt:
				a.ints = true
			case kFloat:
				a.floats = true
			case kBool:
				a.bools = true
			case kDate:
				a.dates = true
			case kDur:
				a.durs = true
			default:
				a.o = true
			}
		}
	}
	out := make([]dtype, sd.width)
	for i, a := range accs {
		gap := a.n < sd.lastRow+1
		switch {
		case a.n == 0:
			out[i] = dtFloat
		case a.o || a.bools && (a.ints || a.floats || a.dates) || a.dates && (a.ints || a.floats),
			a.durs && (a.ints || a.floats || a.bools || a.dates):
			// datetime.time values (kTime) keep a column object too: pandas infers no dtype
			// for them.
			out[i] = dtObject
		case a.durs:
			out[i] = dtDur
		case a.bools:
			if gap {
				out[i] = dtObject
			} else {
				out[i] = dtBool
			}
		case a.dates:
			out[i] = dtDate
		case a.floats || gap:
			out[i] = dtFloat
		default:
			out[i] = dtInt
		}
	}
	return out
}

// block is a group of connected non-empty cells: its bounding box in sheet coordinates.
type block struct {
	r0, c0, r1, c1 int
	first          int // row-major order of discovery
}

// blocks finds connected (4-neighbour) components of non-empty cells and merges those whose
// row ranges overlap, in the reference's order. Rows and their cells are sorted, so
// neighbours are found by walking adjacent rows together (union-find, linear time).
func blocks(ctx context.Context, sd *sheetData) ([]block, error) {
	// Flat index of the first cell of each row entry.
	base := make([]int, len(sd.rows)+1)
	for i := range sd.rows {
		base[i+1] = base[i] + len(sd.cells[i])
	}
	parent := make([]int32, base[len(sd.rows)])
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int32) {
		ra, rb := find(a), find(b)
		if ra == rb {
			return
		}
		// Keep the smaller (earlier, row-major) index as root: it names the component in
		// discovery order.
		if rb < ra {
			ra, rb = rb, ra
		}
		parent[rb] = ra
	}
	for i := range sd.rows {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		row := sd.cells[i]
		for j := 1; j < len(row); j++ {
			if row[j].col == row[j-1].col+1 {
				union(int32(base[i]+j-1), int32(base[i]+j))
			}
		}
		if i == 0 || sd.rows[i-1] != sd.rows[i]-1 {
			continue
		}
		prev := sd.cells[i-1]
		a, b := 0, 0
		for a < len(prev) && b < len(row) {
			switch {
			case prev[a].col < row[b].col:
				a++
			case prev[a].col > row[b].col:
				b++
			default:
				union(int32(base[i-1]+a), int32(base[i]+b))
				a++
				b++
			}
		}
	}
	idx := map[int32]int{}
	var comps []block
	for i, r := range sd.rows {
		for j, c := range sd.cells[i] {
			root := find(int32(base[i] + j))
			k, ok := idx[root]
			if !ok {
				k = len(comps)
				idx[root] = k
				comps = append(comps, block{r0: r, c0: c.col, r1: r, c1: c.col, first: k})
			}
			b := &comps[k]
			b.r0, b.r1 = min(b.r0, r), max(b.r1, r)
			b.c0, b.c1 = min(b.c0, c.col), max(b.c1, c.col)
		}
	}
	sort.SliceStable(comps, func(i, j int) bool { return comps[i].r0 < comps[j].r0 })
	return mergeBlocks(comps), nil
}

// mergeBlocks joins components whose rows overlap into one block, as the reference does (a
// table with an empty spacer column, a label beside its table), except components side by
// side — disjoint columns, rows that differ — which are separate tables on one sheet: the
// reference merges those row by row into one table that belongs to neither. comps are sorted
// by first row.
func mergeBlocks(comps []block) []block {
	var merged []block
	active := 0 // merged[active:] may still overlap later components' rows
	for _, b := range comps {
		for active < len(merged) && merged[active].r1 < b.r0 {
			active++
		}
		target := -1
		for k := active; k < len(merged); k++ {
			m := merged[k]
			if b.r0 > m.r1 || !joins(m, b) {
				continue
			}
			if target < 0 {
				target = k
				grow(&merged[k], b)
				continue
			}
			// b bridges two blocks: fold the later into the earlier.
			grow(&merged[target], m)
			merged = append(merged[:k], merged[k+1:]...)
			k--
		}
		if target < 0 {
			// Blocks stay in first-row order: comps come sorted and a fold only moves rows up.
			merged = append(merged, b)
		}
	}
	return merged
}

// joins reports whether two row-overlapping components are one block: their columns overlap,
// or they span exactly the same rows (one table split by an empty column).
func joins(a, b block) bool {
	return a.c0 <= b.c1 && b.c0 <= a.c1 || a.r0 == b.r0 && a.r1 == b.r1
}

func grow(m *block, b block) {
	m.r0, m.r1 = min(m.r0, b.r0), max(m.r1, b.r1)
	m.c0, m.c1 = min(m.c0, b.c0), max(m.c1, b.c1)
}

// maxTableCells bounds the rendered size of one block; a sparse sheet whose blocks span a
// huge area would otherwise produce gigabytes of <td/>.
const maxTableCells = 50_000_000

func emitSheet(ctx context.Context, sd *sheetData, name string, page int, emit contract.Emit) error {
	if len(sd.rows) == 0 {
		return nil
	}
	types := columnTypes(sd)
	bs, err := blocks(ctx, sd)
	if err != nil {
		return err
	}
	meta := func(el *element.Element) {
		el.Metadata.PageNumber = element.Int(page)
		el.Metadata.PageName = name
	}
	text := func(s string) error {
		var el element.Element
		switch {
		case classify.IsBulleted(s):
			el = element.Element{Type: element.ListItem, Text: classify.CleanBullet(s)}
		case classify.IsNumberedListItem(s):
			el = element.Element{Type: element.ListItem, Text: s}
		case classify.IsNarrative(s):
			el = element.Element{Type: element.NarrativeText, Text: s}
		case classify.IsTitle(s):
			el = element.Element{Type: element.Title, Text: s}
		default:
			el = element.Element{Type: element.UncategorizedText, Text: s}
		}
		meta(&el)
		return emit(el)
	}
	for _, b := range bs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if (b.r1-b.r0+1)*(b.c1-b.c0+1) > maxTableCells {
			return &contract.Error{Kind: contract.KindUnprocessable,
				Msg: fmt.Sprintf("xlsx: sheet %s: a cell block spans more than %d cells", name, maxTableCells)}
		}
		// Rows of the block, each limited to the block's columns. Every row in the range has
		// a cell in the block (components are row-contiguous and merged groups overlap).
		lo := sort.SearchInts(sd.rows, b.r0)
		hi := sort.SearchInts(sd.rows, b.r1+1)
		rows := make([][]cell, 0, hi-lo)
		for i := lo; i < hi; i++ {
			var in []cell
			for _, c := range sd.cells[i] {
				if c.col >= b.c0 && c.col <= b.c1 {
					in = append(in, c)
				}
			}
			rows = append(rows, in)
		}
		single := func(i int) bool { return len(rows[i]) == 1 }
		lead := 0
		for lead < len(rows) && single(lead) {
			lead++
		}
		trail := len(rows)
		if lead < len(rows) {
			for trail > lead && single(trail-1) {
				trail--
			}
		}
		for i := 0; i < lead; i++ {
			c := rows[i][0]
			if err := text(scalarString(c.v, types[c.col])); err != nil {
				return err
			}
		}
		if lead < trail {
			el := table(rows[lead:trail], b.c0, b.c1, types)
			meta(&el)
			if err := emit(el); err != nil {
				return err
			}
		}
		for i := trail; i < len(rows); i++ {
			c := rows[i][0]
			if err := text(scalarString(c.v, types[c.col])); err != nil {
				return err
			}
		}
	}
	return nil
}

// table renders the core rows of a block as pandas' to_html would, compacted.
func table(rows [][]cell, c0, c1 int, types []dtype) element.Element {
	width := c1 - c0 + 1
	grid := make([][]element.Cell, len(rows))
	for i := range grid {
		grid[i] = make([]element.Cell, width)
	}
	// Column by column, because pandas formats a float column's values together.
	colVals := make([][]int, width) // per column: row indexes holding a value
	for i, r := range rows {
		for j := range r {
			colVals[r[j].col-c0] = append(colVals[r[j].col-c0], i)
		}
	}
	find := func(i, col int) value {
		r := rows[i]
		k := sort.Search(len(r), func(k int) bool { return r[k].col >= col })
		return r[k].v
	}
	for j := range width {
		col := c0 + j
		dt := dtFloat
		if col < len(types) {
			dt = types[col]
		}
		switch dt {
		case dtFloat:
			fs := make([]float64, len(colVals[j]))
			for k, i := range colVals[j] {
				fs[k] = find(i, col).f
			}
			for k, s := range formatFloatColumn(fs) {
				grid[colVals[j][k]][j].Text = s
			}
		case dtDate:
			ts := make([]value, len(colVals[j]))
			dateOnly := true
			for k, i := range colVals[j] {
				ts[k] = find(i, col)
				t := ts[k].time()
				if t.Hour() != 0 || t.Minute() != 0 || t.Second() != 0 || t.Nanosecond() != 0 {
					dateOnly = false
				}
			}
			for k, v := range ts {
				if dateOnly {
					grid[colVals[j][k]][j].Text = v.time().Format("2006-01-02")
				} else {
					grid[colVals[j][k]][j].Text = v.time().Format("2006-01-02 15:04:05")
				}
			}
		case dtDur:
			evenDays := true
			for _, i := range colVals[j] {
				evenDays = evenDays && int64(find(i, col).f)%86400e6 == 0
			}
			for _, i := range colVals[j] {
				grid[i][j].Text = pandasTimedelta(int64(find(i, col).f), evenDays)
			}
		default:
			for _, i := range colVals[j] {
				grid[i][j].Text = scalarString(find(i, col), dt)
			}
		}
	}
	for i := range grid {
		for j := range grid[i] {
			grid[i][j].Text = normalizeSpace(grid[i][j].Text)
		}
	}
	el := element.Element{Type: element.Table, Text: element.TableText(grid)}
	el.Metadata.TextAsHTML = element.TableHTML(grid)
	return el
}

func normalizeSpace(s string) string {
	start, n := -1, 0
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			if n > 0 {
				start = len(out)
			}
			continue
		}
		if start >= 0 && n > 0 {
			out = append(out, ' ')
		}
		start = -1
		out = append(out, c)
		n++
	}
	return string(out)
}

// scalarString is str() of a frame value of a column with dtype dt.
func scalarString(v value, dt dtype) string {
	switch v.k {
	case kStr, kTime:
		return v.s
	case kDur:
		if dt == dtDur { // a pandas Timedelta
			return pandasTimedelta(int64(v.f), false)
		}
		return pyTimedelta(int64(v.f))
	case kBool:
		if v.f != 0 {
			return "True"
		}
		return "False"
	case kDate:
		return v.time().Format("2006-01-02 15:04:05")
	case kInt:
		if dt == dtFloat {
			return pyFloat(v.f)
		}
		return strconv.FormatFloat(v.f, 'f', 0, 64)
	}
	return pyFloat(v.f)
}

// emitDrawings emits the text of a sheet's shapes and text boxes (its drawing part's
// xdr:txBody paragraphs) after the sheet's cells: notes and labels placed over the grid.
// pandas, and so the reference, reads cells only.
func emitDrawings(pkg *opc.Package, s sheetRef, page int, emit contract.Emit, damaged *[]string) error {
	rels, err := pkg.Rels(s.part)
	if err != nil {
		return nil // no relationships: no drawing
	}
	ids := make([]string, 0, len(rels))
	for id := range rels {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		rel := rels[id]
		if rel.External || !strings.HasSuffix(rel.Type, "/drawing") || !pkg.Has(rel.Target) {
			continue
		}
		data, err := pkg.ReadPart(rel.Target)
		if err != nil {
			*damaged = append(*damaged, fmt.Sprintf("%s (%v): shapes' text skipped", rel.Target, err))
			continue
		}
		texts := shapeTexts(data)
		// Charts' titles and axis titles: the words a chart adds to the sheet (its data are
		// the sheet's own cells, already read).
		if ids := chartIDs(data); len(ids) > 0 {
			if crels, err := pkg.Rels(rel.Target); err == nil {
				for _, cid := range ids {
					cr, ok := crels[cid]
					if !ok || cr.External || !pkg.Has(cr.Target) {
						continue
					}
					cdata, err := pkg.ReadPart(cr.Target)
					if err != nil {
						*damaged = append(*damaged, fmt.Sprintf("%s (%v): chart titles skipped", cr.Target, err))
						continue
					}
					texts = append(texts, opc.ReadChart(cdata).Titles...)
				}
			}
		}
		for _, text := range texts {
			typ, txt := classify.Text(text)
			el := element.Element{Type: typ, Text: txt}
			el.Metadata.PageNumber = element.Int(page)
			el.Metadata.PageName = s.name
			if err := emit(el); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxShapeParagraphs bounds the paragraphs read from one drawing part.
const maxShapeParagraphs = 100000

// shapeTexts returns the non-empty paragraphs of every text body (txBody) in a drawing part,
// in document order; what reads before any damage is kept.
// chartIDs lists the relationship IDs of the charts a drawing part places, in its order.
func chartIDs(data []byte) []string {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var ids []string
	for len(ids) < maxShapeParagraphs {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "chart" {
			if id, ok := opc.Attr(t, "id"); ok {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

func shapeTexts(data []byte) []string {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var out []string
	var para *strings.Builder
	body, inText := 0, false
	for {
		tok, err := dec.Token()
		if err != nil || len(out) >= maxShapeParagraphs {
			return out
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "txBody":
				body++
			case "p":
				if body > 0 {
					para = &strings.Builder{}
				}
			case "t":
				inText = para != nil
			case "br":
				if para != nil {
					para.WriteByte(' ')
				}
			}
		case xml.CharData:
			if inText {
				para.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "txBody":
				body--
			case "t":
				inText = false
			case "p":
				if para != nil {
					if text := strings.Join(strings.Fields(para.String()), " "); text != "" {
						out = append(out, text)
					}
					para = nil
				}
			}
		}
	}
}
