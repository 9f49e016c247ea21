package wordproc

import "github.com/quarrydocs/quarry/element"

// Document is a parsed word-processing document.
type Document struct {
	// Sections in order; empty for a section-less document (then Body holds every block).
	Sections []Section
	Body     []Block
	// Styles maps paragraph style IDs to their user-interface names ("Heading 1").
	Styles map[string]string
	// DefaultStyle is the name of the default paragraph style ("Normal").
	DefaultStyle string
	// EvenAndOddHeaders is settings.xml's w:evenAndOddHeaders.
	EvenAndOddHeaders bool
	// HasRenderedPageBreaks is true when the body holds w:lastRenderedPageBreak markers;
	// only then do elements carry page numbers.
	HasRenderedPageBreaks bool
	// Damaged names the parts that could not be read whole (a corrupt stream, broken markup):
	// what was read is kept, and the partitioner warns once.
	Damaged []string
}

// Section is a run of body blocks with its page setup.
type Section struct {
	Blocks []Block
	// StartType is w:type of the section properties ("nextPage" when absent).
	StartType string
	// TitlePage is w:titlePg: a distinct first-page header and footer.
	TitlePage bool
	// Headers and Footers by kind ("default", "first", "even"); a missing kind is linked to
	// the previous section and produces nothing.
	Headers map[string]*HeaderFooter
	Footers map[string]*HeaderFooter
}

// HeaderFooter is the content of one header or footer part.
type HeaderFooter struct {
	Blocks []Block
}

// Block is a paragraph, a table or imported content; exactly one field is set.
type Block struct {
	P *Paragraph
	T *Table
	// Imported are the elements of content the document imports in another format (a DOCX
	// w:altChunk: HTML, a web archive, text, RTF, another DOCX), partitioned by that format's
	// partitioner. They are emitted as they are, with the document's page number.
	Imported []element.Element
}

// Paragraph is one w:p.
type Paragraph struct {
	StyleID string
	// HasNumPr: the paragraph carries its own numbering properties (a list paragraph).
	HasNumPr bool
	// ILvl is the list level (w:numPr/w:ilvl) when HasILvl.
	ILvl    int
	HasILvl bool
	Items   []Inline
}

// InlineKind tells what an Inline is.
type InlineKind uint8

// Inline kinds.
const (
	KindRun InlineKind = iota
	KindHyperlink
)

// Inline is a run or a hyperlink in a paragraph.
type Inline struct {
	Kind InlineKind
	// Text is the run's (or the whole hyperlink's) text with tabs and line breaks translated.
	Text   string
	Bold   bool
	Italic bool
	// URL of an external hyperlink ("" for internal jumps).
	URL string
	// PageBreakAt holds the offsets (in bytes of Text) of rendered page breaks in a run;
	// a hyperlink holding one has PageBreakAt = [len(Text)] (the break follows the link).
	PageBreakAt []int
}

// Table is one w:tbl.
type Table struct {
	Rows []Row
}

// Row is one w:tr.
type Row struct {
	GridBefore int
	Cells      []Cell
}

// Cell is one w:tc.
type Cell struct {
	GridSpan int
	// VMerge is "restart", "continue" or "" (not vertically merged).
	VMerge string
	Blocks []Block
}
