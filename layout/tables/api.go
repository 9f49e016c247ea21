// Package tables finds tables on one born-digital page from its geometry alone: the words of
// the text layer with their boxes and fonts, the ruling segments and filled rectangles of its
// vector graphics. It needs no rendering and no model. Three kinds are recognised: ruled tables
// (a grid of drawn rules, spanning cells where interior rules are missing), partly ruled tables
// (horizontal rules only, as in financial statements and papers) and borderless tables (columns
// from text alignment and gutters shared by several rows, rows from baselines).
//
// All coordinates are PDF page space: points, origin at the bottom left, y growing upwards,
// after the page's /Rotate has been applied (the space pdf.Glyph uses). The package reads
// only its own input types, so the caller adapts whatever reader it uses.
package tables

import (
	"math"
	"strings"
)

// Rect is an axis-aligned box in page space with X0 <= X1 and Y0 <= Y1.
type Rect struct{ X0, Y0, X1, Y1 float64 }

// W is the width, H the height.
func (r Rect) W() float64 { return r.X1 - r.X0 }

// H is the height.
func (r Rect) H() float64 { return r.Y1 - r.Y0 }

// Union is the smallest box holding both; an empty receiver (all zero) yields o.
func (r Rect) Union(o Rect) Rect {
	if r == (Rect{}) {
		return o
	}
	return Rect{math.Min(r.X0, o.X0), math.Min(r.Y0, o.Y0), math.Max(r.X1, o.X1), math.Max(r.Y1, o.Y1)}
}

// Overlaps reports whether the boxes share an area (touching edges do not count).
func (r Rect) Overlaps(o Rect) bool {
	return r.X0 < o.X1 && o.X0 < r.X1 && r.Y0 < o.Y1 && o.Y0 < r.Y1
}

// Inside reports whether r lies within o (edges included).
func (r Rect) Inside(o Rect) bool {
	return r.X0 >= o.X0 && r.Y0 >= o.Y0 && r.X1 <= o.X1 && r.Y1 <= o.Y1
}

// Contains reports whether the point lies inside or on the box.
func (r Rect) Contains(x, y float64) bool { return x >= r.X0 && x <= r.X1 && y >= r.Y0 && y <= r.Y1 }

// Word is a run of glyphs without a word gap, on one baseline, as the text layer draws it.
// Glyphs that the caller has not split into words can go through Words.
type Word struct {
	Text string
	Box  Rect
	// Size is the font size in points (the glyph box height for upright text).
	Size float64
	// Bold is set for a bold face (font name or weight); header rows are found with it.
	Bold bool
	// Dir is the text direction in degrees counter-clockwise: 0 for ordinary upright text,
	// 90 for text reading bottom to top (a table turned on its side), 270 for top to bottom,
	// 180 upside down.
	Dir int
	// Math is set when most of the word's glyphs are of a math font (Glyph.Math).
	Math bool
	// mathGlyphs counts the word's glyphs of a math font (Words sets it; a caller's own
	// words count by Math).
	mathGlyphs int
	// pitch is the advance every glyph of the word shares when it has two or more letters
	// (not digits, which are of one width in most fonts) all of one advance: the mark of a
	// fixed-pitch face, code and preformatted text. 0 when the word does not tell (too few
	// letters, or a caller's own words), -1 when its letters differ in advance.
	pitch float64
}

// Segment is a stroked line from (X0, Y0) to (X1, Y1) with its line width. Zero-length and
// slanted segments are accepted and ignored; a rectangle stroked as a path arrives as its four
// sides.
type Segment struct {
	X0, Y0, X1, Y1 float64
	Width          float64
}

// Page is everything the detector reads from one page.
type Page struct {
	Width, Height float64
	Words         []Word
	Segments      []Segment
	// Rects are filled rectangles: very thin ones are rules (many producers draw rules as
	// fills), larger ones are cell shading, which can separate rows.
	Rects []Rect
	// Drawing holds the boxes of the page's other graphics: slanted strokes, curves, edges of
	// filled polygons, images. A table candidate over many of them is a chart or a diagram
	// whose labels happen to align, and is dropped.
	Drawing []Rect
	// Regions, when not empty, are areas where a table is expected (from a layout model or
	// the caller's own detection): tables are then only sought inside them, and a region with
	// tabular content yields a table even without rules.
	Regions []Rect
}

// Kind says how a table's structure was found.
type Kind int

const (
	// Ruled tables have drawn rules in both directions.
	Ruled Kind = iota + 1
	// PartlyRuled tables have horizontal rules only; columns come from text alignment.
	PartlyRuled
	// Borderless tables have no rules; rows and columns come from text alignment.
	Borderless
)

func (k Kind) String() string {
	switch k {
	case Ruled:
		return "ruled"
	case PartlyRuled:
		return "partly-ruled"
	case Borderless:
		return "borderless"
	}
	return "unknown"
}

// Cell is one cell of a table: rows [Row, Row+RowSpan) and columns [Col, Col+ColSpan).
type Cell struct {
	Row, Col         int
	RowSpan, ColSpan int
	// Text is the cell's words in reading order; lines of a multi-line cell are joined with
	// "\n".
	Text string
	// Box is the area between the cell's rules in a ruled table, else the box of its words
	// (zero for an empty cell).
	Box Rect
	// Header is set for cells in the table's header rows.
	Header bool
	// bold is set when all the cell's words are bold.
	bold bool
	// runes counts the cell's characters (spaces left out), math those of a math font
	// (Word.Math) or mathematical in themselves (mathRune).
	runes, math int
}

// Table is one table found on the page.
type Table struct {
	Box  Rect
	Kind Kind
	// Rows and Cols are the grid's size; every grid position is covered by exactly one cell.
	Rows, Cols int
	// Cells are in row-major order of their top-left position.
	Cells []Cell
	// HeaderRows is the number of leading rows that form the header (0 when none is found).
	HeaderRows int
	// Words are the indices into Page.Words of the words inside the table, which the caller
	// drops from the page's text flow.
	Words []int
	// Dir is the text direction of the table (Word.Dir): 90 or 270 for a table turned on its
	// side. Rows and columns are those of the table as read, not of the page.
	Dir int
}

// Options tunes detection; the zero value is the default everywhere.
type Options struct {
	// MinRows and MinCols are the smallest borderless table accepted (defaults 3 and 2).
	// Ruled tables need only two cells.
	MinRows, MinCols int
	// MaxSegments bounds the rules considered on one page (default 200,000): a page with more
	// (maps, charts) keeps only the longest ones, so work stays bounded.
	MaxSegments int
}

// LabelRow reports whether the table's first row labels every column: one cell per column,
// each a few words not ending a sentence (Question | Passage | Answer). A grid ruled in both
// directions under such a row is a table even when its cells hold sentences (a table of
// definitions, of passages), not prose boxed in columns.
func (t *Table) LabelRow() bool {
	if t.Rows < 2 || t.Cols < 2 {
		return false
	}
	n := 0
	for _, c := range t.Cells {
		if c.Row != 0 {
			continue
		}
		txt := strings.TrimSpace(c.Text)
		if c.ColSpan != 1 || c.RowSpan != 1 || txt == "" || len(strings.Fields(txt)) > 8 || strings.HasSuffix(txt, ".") {
			return false
		}
		n++
	}
	return n == t.Cols
}
