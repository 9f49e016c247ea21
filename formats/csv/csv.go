// Package csv partitions CSV and TSV files into one Table element, as the reference does
// through a pandas data frame: every row (the first included) becomes a row of compact
// text_as_html, numeric columns are rendered as pandas renders them, and the text is every
// non-empty cell joined by spaces.
package csv

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/textenc"
)

func init() {
	contract.RegisterFormat(contract.Format{Name: "csv", MIME: "text/csv",
		Aliases:    []string{"application/csv", "application/x-csv", "text/comma-separated-values", "text/x-comma-separated-values", "text/x-csv"},
		Extensions: []string{".csv"}, TrustExtension: true, SniffText: sniffCSV, SniffOrder: 20,
		Partitioner: contract.Func(partitionCSV)})
	contract.RegisterFormat(contract.Format{Name: "tsv", MIME: "text/tsv", Aliases: []string{"text/tab-separated-values"},
		Extensions: []string{".tab", ".tsv"}, TrustExtension: true,
		Partitioner: contract.Func(partitionTSV)})
}

// maxField is the reference's limit for one cell.
const maxField = 10 << 20

func partitionCSV(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	return partition(ctx, doc, opts, 0, emit)
}

func partitionTSV(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	return partition(ctx, doc, opts, '\t', emit)
}

func partition(ctx context.Context, doc *contract.Document, opts contract.Options, delim rune, emit contract.Emit) error {
	data, err := doc.Bytes()
	if err != nil {
		return fmt.Errorf("csv: read: %w", err)
	}
	text, err := textenc.Decode(data, opts.Get(contract.KeyEncoding))
	if err != nil {
		return err
	}
	if delim == 0 {
		delim = Sniff(text)
	}
	rows, err := readRows(ctx, text, delim)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	formatColumns(rows)
	for _, row := range rows {
		for i, c := range row {
			row[i] = pandasEscaper.Replace(c)
		}
	}
	cells := element.TextRows(rows)
	e := element.Element{Type: element.Table, Text: element.TableText(cells)}
	if !skipTables(opts, delim) {
		e.Metadata.TextAsHTML = element.TableHTML(cells)
	}
	return emit(e)
}

// pandasEscaper writes control whitespace inside cells as pandas' HTML writer does: as the
// two-character escapes \t, \n and \r, which therefore also appear in the element text.
var pandasEscaper = strings.NewReplacer("\t", `\t`, "\n", `\n`, "\r", `\r`)

func skipTables(opts contract.Options, delim rune) bool {
	name := "csv"
	if delim == '\t' {
		name = "tsv"
	}
	for _, t := range opts.Values(contract.KeySkipInferTableTypes) {
		if strings.EqualFold(t, name) {
			return true
		}
	}
	return false
}

// readRows parses the records as pandas' C parser does: quoted fields keep their content
// verbatim (line breaks included, "" for a quote), records end at \n, \r\n or \r, blank lines
// are skipped, and short rows are padded to the widest.
func readRows(ctx context.Context, text string, delim rune) ([][]string, error) {
	var rows [][]string
	var row []string
	var field strings.Builder
	width := 0
	quoted, inQuotes, fieldStarted := false, false, false
	endField := func() error {
		if field.Len() > maxField {
			return fmt.Errorf("csv: field larger than field limit (%d)", maxField)
		}
		row = append(row, field.String())
		field.Reset()
		quoted, fieldStarted = false, false
		return nil
	}
	endRow := func() error {
		if err := endField(); err != nil {
			return err
		}
		if !(len(row) == 1 && strings.TrimSpace(row[0]) == "") {
			rows = append(rows, row)
			width = max(width, len(row))
			if len(rows)%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
		}
		row = nil
		return nil
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if inQuotes {
			if c == '"' {
				if i+1 < len(text) && text[i+1] == '"' {
					field.WriteByte('"')
					i++
				} else {
					inQuotes = false
				}
				continue
			}
			field.WriteByte(c)
			continue
		}
		switch {
		case c == '"' && !fieldStarted:
			inQuotes, quoted, fieldStarted = true, true, true
		case rune(c) == delim:
			if err := endField(); err != nil {
				return nil, err
			}
		case c == '\n' || c == '\r':
			if c == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			if err := endRow(); err != nil {
				return nil, err
			}
		default:
			fieldStarted = true
			field.WriteByte(c)
		}
	}
	if field.Len() > 0 || len(row) > 0 || quoted {
		if err := endRow(); err != nil {
			return nil, err
		}
	}
	for i, r := range rows {
		for len(r) < width {
			r = append(r, "")
		}
		rows[i] = r
	}
	return rows, nil
}

// Sniff picks the delimiter among ',', tab, ';' and '|' that splits the first lines (up to 64
// KiB of whole lines) most consistently; ',' when none does, and on a tie the earlier one. The
// reference sniffs only ',' ';' '|', which turns a tab-separated file named .csv into one
// column holding literal "\t" escapes; tab is sniffed too so its columns are kept.
func Sniff(text string) rune {
	sample := text
	if len(sample) > 64<<10 {
		sample = sample[:64<<10]
		if i := strings.LastIndexByte(sample, '\n'); i > 0 {
			sample = sample[:i]
		}
	}
	lines := strings.Split(sample, "\n")
	best, bestScore := ',', 0
	for _, d := range []rune{',', '\t', ';', '|'} {
		counts := map[int]int{}
		nonEmpty := 0
		for _, l := range lines {
			if strings.TrimSpace(l) == "" {
				continue
			}
			nonEmpty++
			counts[countOutsideQuotes(l, d)]++
		}
		// Score: how many lines share the most common non-zero count.
		score := 0
		for c, n := range counts {
			if c > 0 && n > score {
				score = n
			}
		}
		if nonEmpty > 0 && score > bestScore {
			best, bestScore = d, score
		}
	}
	return best
}

func countOutsideQuotes(line string, d rune) int {
	n, quoted := 0, false
	for _, c := range line {
		switch {
		case c == '"':
			quoted = !quoted
		case c == d && !quoted:
			n++
		}
	}
	return n
}

// formatColumns renders each column as a pandas frame read with header=None would: a column
// whose non-empty cells are all integers stays integer unless it has gaps (then floats), a
// numeric column with any decimal renders as floats with a common number of decimals.
func formatColumns(rows [][]string) {
	if len(rows) == 0 {
		return
	}
	for c := range rows[0] {
		kind, hasGap := columnKind(rows, c)
		switch {
		case kind == kindInt && !hasGap:
			for _, row := range rows {
				n, _ := strconv.ParseInt(strings.TrimSpace(row[c]), 10, 64)
				row[c] = strconv.FormatInt(n, 10)
			}
		case kind == kindInt || kind == kindFloat:
			formatFloats(rows, c)
		case kind == kindBool:
			for _, row := range rows {
				if v := strings.TrimSpace(row[c]); v != "" {
					row[c] = map[bool]string{true: "True", false: "False"}[strings.EqualFold(v, "true")]
				}
			}
		}
	}
}

type kind int

const (
	kindText kind = iota
	kindInt
	kindFloat
	kindBool
)

func columnKind(rows [][]string, c int) (kind, bool) {
	k := kind(-1)
	gap := false
	for _, row := range rows {
		v := strings.TrimSpace(row[c])
		if v == "" {
			gap = true
			continue
		}
		var vk kind
		if _, err := strconv.ParseInt(v, 10, 64); err == nil {
			vk = kindInt
		} else if _, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(strings.ToLower(v), "xp_") {
			vk = kindFloat
		} else if strings.EqualFold(v, "true") || strings.EqualFold(v, "false") {
			vk = kindBool
		} else {
			return kindText, gap
		}
		switch {
		case k == -1:
			k = vk
		case k == vk:
		case (k == kindInt && vk == kindFloat) || (k == kindFloat && vk == kindInt):
			k = kindFloat
		default:
			return kindText, gap
		}
	}
	if k == -1 {
		return kindText, gap // an all-empty column stays empty
	}
	return k, gap
}

// formatFloats writes the column with six decimals and then trims trailing zeros equally from
// every value, keeping at least one decimal, as pandas' float formatter does.
func formatFloats(rows [][]string, c int) {
	var vals []string
	var idx []int
	for i, row := range rows {
		v := strings.TrimSpace(row[c])
		if v == "" {
			continue
		}
		f, _ := strconv.ParseFloat(v, 64)
		if math.IsNaN(f) {
			row[c] = ""
			continue
		}
		vals = append(vals, strconv.FormatFloat(f, 'f', 6, 64))
		idx = append(idx, i)
	}
	for {
		allZero := len(vals) > 0
		for _, v := range vals {
			if !strings.HasSuffix(v, "0") || strings.HasSuffix(v, ".0") {
				allZero = false
				break
			}
		}
		if !allZero {
			break
		}
		for i := range vals {
			vals[i] = vals[i][:len(vals[i])-1]
		}
	}
	for i, v := range vals {
		rows[idx[i]][c] = v
	}
}

// sniffCSV is the reference's heuristic for text without a telling extension: at least two of
// the first ten non-empty lines, all with the same non-zero count of commas outside quotes.
func sniffCSV(_ *contract.Document, head []byte, _ string) (string, bool) {
	lines := bytes.Split(head, []byte("\n"))
	if len(head) == 8192 && len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last line may be cut
	}
	count := -1
	seen := 0
	for _, l := range lines {
		l = bytes.TrimRight(l, "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		c := commasOutsideQuotes(l)
		if c == 0 || (count >= 0 && c != count) {
			return "", false
		}
		count = c
		seen++
		if seen == 10 {
			break
		}
	}
	return "text/csv", seen >= 2
}

func commasOutsideQuotes(line []byte) int {
	n, quoted := 0, false
	for _, c := range line {
		switch c {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				n++
			}
		}
	}
	return n
}
