// Package icdar reads the ICDAR 2013 Table Competition ground truth and scores table
// extraction with the metrics peers publish for it: Camelot's benchmark (detection F1 from
// per-page table counts, a "TEDS proxy", exact row and column counts) and the competition's
// own adjacency-relation F1. It is shared by layout/tables' regression test and bench/.
package icdar

import (
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

// Cell is one ground-truth or predicted cell: rows [Row, EndRow], columns [Col, EndCol]
// (inclusive, as the competition's XML writes them).
type Cell struct {
	Row, Col, EndRow, EndCol int
	Text                     string
}

// Table is one table region on one page (1-based).
type Table struct {
	Page  int
	Cells []Cell
	// Box is the region's bounding box in PDF points (from -reg.xml; zero if unknown).
	X0, Y0, X1, Y1 float64
}

type xmlDoc struct {
	Tables []struct {
		Regions []struct {
			Page  int `xml:"page,attr"`
			Cells []struct {
				StartRow int     `xml:"start-row,attr"`
				StartCol int     `xml:"start-col,attr"`
				EndRow   *int    `xml:"end-row,attr"`
				EndCol   *int    `xml:"end-col,attr"`
				Content  string  `xml:"content"`
				Box      *xmlBox `xml:"bounding-box"`
			} `xml:"cell"`
			Box *xmlBox `xml:"bounding-box"`
		} `xml:"region"`
	} `xml:"table"`
}

type xmlBox struct {
	X1 float64 `xml:"x1,attr"`
	Y1 float64 `xml:"y1,attr"`
	X2 float64 `xml:"x2,attr"`
	Y2 float64 `xml:"y2,attr"`
}

// ReadStructure parses an -str.xml file: one Table per region, in file order.
func ReadStructure(path string) ([]Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("icdar: %w", err)
	}
	var d xmlDoc
	if err := xml.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("icdar: parse %s: %w", path, err)
	}
	var out []Table
	for _, t := range d.Tables {
		for _, r := range t.Regions {
			tab := Table{Page: r.Page}
			if r.Page == 0 {
				tab.Page = 1
			}
			first := true
			for _, c := range r.Cells {
				cell := Cell{Row: c.StartRow, Col: c.StartCol, EndRow: c.StartRow, EndCol: c.StartCol, Text: c.Content}
				if c.EndRow != nil && *c.EndRow >= c.StartRow {
					cell.EndRow = *c.EndRow
				}
				if c.EndCol != nil && *c.EndCol >= c.StartCol {
					cell.EndCol = *c.EndCol
				}
				tab.Cells = append(tab.Cells, cell)
				if b := c.Box; b != nil {
					x0, x1 := math.Min(b.X1, b.X2), math.Max(b.X1, b.X2)
					y0, y1 := math.Min(b.Y1, b.Y2), math.Max(b.Y1, b.Y2)
					if first {
						tab.X0, tab.Y0, tab.X1, tab.Y1, first = x0, y0, x1, y1, false
					} else {
						tab.X0, tab.Y0 = math.Min(tab.X0, x0), math.Min(tab.Y0, y0)
						tab.X1, tab.Y1 = math.Max(tab.X1, x1), math.Max(tab.Y1, y1)
					}
				}
			}
			out = append(out, tab)
		}
	}
	return out, nil
}

// Norm is Camelot's cell normalisation: whitespace runs collapsed, lower case.
func Norm(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Grid places each cell's text at its top-left position, span positions left blank, as
// Camelot's benchmark builds its ground-truth grid: the size is the largest start row and
// start column plus one.
func Grid(cells []Cell) [][]string {
	rows, cols := 0, 0
	for _, c := range cells {
		rows, cols = max(rows, c.Row+1), max(cols, c.Col+1)
	}
	g := make([][]string, rows)
	for i := range g {
		g[i] = make([]string, cols)
	}
	for _, c := range cells {
		g[c.Row][c.Col] = strings.Join(strings.Fields(c.Text), " ")
	}
	return g
}

// TEDSProxy is Camelot's simple_teds: difflib's ratio over the row-major normalised cell texts
// of pred and gt, times the shape penalty 1 − (|Δrows| + |Δcols|) / (rows + cols + rows' +
// cols' + 1).
func TEDSProxy(pred, gt [][]string) float64 {
	p, g := seq(pred), seq(gt)
	if len(p) == 0 && len(g) == 0 {
		return 1
	}
	content := Ratio(p, g)
	pr, pc := len(pred), width(pred)
	gr, gc := len(gt), width(gt)
	shape := 1 - float64(abs(pr-gr)+abs(pc-gc))/float64(pr+pc+gr+gc+1)
	return content * shape
}

func seq(g [][]string) []string {
	var out []string
	for _, r := range g {
		for _, c := range r {
			out = append(out, Norm(c))
		}
	}
	return out
}

func width(g [][]string) int {
	w := 0
	for _, r := range g {
		w = max(w, len(r))
	}
	return w
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Relation is one adjacency relation of the competition's structure metric: the texts of a
// cell and of its nearest non-empty neighbour to the right (Dir 'H') or below (Dir 'V').
type Relation struct {
	From, To string
	Dir      byte
}

// Relations lists a table's adjacency relations. A cell spanning several rows (columns) has
// a right (lower) neighbour per row (column) it spans; duplicates are kept once. Texts are
// compared with whitespace collapsed, as the competition does.
func Relations(cells []Cell) []Relation {
	rows, cols := 0, 0
	for _, c := range cells {
		rows, cols = max(rows, c.EndRow+1), max(cols, c.EndCol+1)
	}
	at := make([]int, rows*cols)
	for i := range at {
		at[i] = -1
	}
	text := make([]string, len(cells))
	for i, c := range cells {
		text[i] = strings.Join(strings.Fields(c.Text), " ")
		if text[i] == "" {
			continue
		}
		for r := c.Row; r <= c.EndRow; r++ {
			for k := c.Col; k <= c.EndCol; k++ {
				at[r*cols+k] = i
			}
		}
	}
	seen := map[Relation]bool{}
	var out []Relation
	add := func(a, b int, dir byte) {
		rel := Relation{text[a], text[b], dir}
		if !seen[rel] {
			seen[rel] = true
			out = append(out, rel)
		}
	}
	for i, c := range cells {
		if text[i] == "" {
			continue
		}
		for r := c.Row; r <= c.EndRow; r++ {
			for k := c.EndCol + 1; k < cols; k++ {
				if j := at[r*cols+k]; j >= 0 && j != i {
					add(i, j, 'H')
					break
				}
			}
		}
		for k := c.Col; k <= c.EndCol; k++ {
			for r := c.EndRow + 1; r < rows; r++ {
				if j := at[r*cols+k]; j >= 0 && j != i {
					add(i, j, 'V')
					break
				}
			}
		}
	}
	return out
}

// Counts are the tallies behind a score, summed over pages or documents.
type Counts struct {
	// Detection: tables matched (min of the counts per page), predicted and ground truth.
	TP, FP, FN int
	// Per matched table pair: the TEDS proxy sum, exact row and column counts.
	Matched        int
	TEDS           float64
	RowsOK, ColsOK int
	// Adjacency relations: correct, predicted, ground truth.
	RelOK, RelPred, RelGT int
}

// Add accumulates o into c.
func (c *Counts) Add(o Counts) {
	c.TP += o.TP
	c.FP += o.FP
	c.FN += o.FN
	c.Matched += o.Matched
	c.TEDS += o.TEDS
	c.RowsOK += o.RowsOK
	c.ColsOK += o.ColsOK
	c.RelOK += o.RelOK
	c.RelPred += o.RelPred
	c.RelGT += o.RelGT
}

// Score is the metrics derived from Counts.
type Score struct {
	F1, TEDS, Rows, Cols, AdjF1 float64
}

// Score computes the ratios: Camelot's detection F1, mean TEDS proxy and row/column accuracy
// over matched tables, and the adjacency-relation F1 (micro-averaged: precision and recall over
// all relations).
func (c Counts) Score() Score {
	var s Score
	s.F1 = f1(c.TP, c.TP+c.FP, c.TP+c.FN)
	if c.Matched > 0 {
		s.TEDS = c.TEDS / float64(c.Matched)
		s.Rows = float64(c.RowsOK) / float64(c.Matched)
		s.Cols = float64(c.ColsOK) / float64(c.Matched)
	}
	s.AdjF1 = f1(c.RelOK, c.RelPred, c.RelGT)
	return s
}

func f1(ok, pred, gt int) float64 {
	if pred == 0 || gt == 0 || ok == 0 {
		return 0
	}
	p, r := float64(ok)/float64(pred), float64(ok)/float64(gt)
	return 2 * p * r / (p + r)
}

// Compare scores one document: pred and gt are its tables; tables on a page are matched in
// order (the order of the slices, which for predictions should be reading order), as
// Camelot's benchmark does. Adjacency relations are pooled per page, so a table split or
// merged differently from the ground truth still earns the relations it gets right.
func Compare(pred, gt []Table) Counts {
	var c Counts
	byPage := func(ts []Table) map[int][]Table {
		m := map[int][]Table{}
		for _, t := range ts {
			m[t.Page] = append(m[t.Page], t)
		}
		return m
	}
	pp, gp := byPage(pred), byPage(gt)
	pages := map[int]bool{}
	for p := range pp {
		pages[p] = true
	}
	for p := range gp {
		pages[p] = true
	}
	keys := make([]int, 0, len(pages))
	for p := range pages {
		keys = append(keys, p)
	}
	sort.Ints(keys)
	for _, p := range keys {
		ps, gs := pp[p], gp[p]
		n := min(len(ps), len(gs))
		c.TP += n
		c.FP += len(ps) - n
		c.FN += len(gs) - n
		for i := 0; i < n; i++ {
			pg, gg := Grid(ps[i].Cells), Grid(gs[i].Cells)
			c.Matched++
			c.TEDS += TEDSProxy(pg, gg)
			if len(pg) == len(gg) {
				c.RowsOK++
			}
			if width(pg) == width(gg) {
				c.ColsOK++
			}
		}
		want := map[Relation]int{}
		for _, t := range gs {
			for _, r := range Relations(t.Cells) {
				want[r]++
				c.RelGT++
			}
		}
		for _, t := range ps {
			for _, r := range Relations(t.Cells) {
				c.RelPred++
				if want[r] > 0 {
					want[r]--
					c.RelOK++
				}
			}
		}
	}
	return c
}
