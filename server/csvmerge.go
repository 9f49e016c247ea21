package server

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/element"
)

// table is a parsed CSV: columns and rows of cells ("" is a missing value, as pandas' NaN).
type table struct {
	cols []string
	rows [][]string
}

// mergeCSV is the reference's several-files CSV answer: each file's CSV is outer-merged into
// the previous result on their common columns (pandas DataFrame.merge(how="outer"), which
// joins equal key tuples and sorts the keys), then written with a leading unnamed index column.
func mergeCSV(results [][]element.Element, limit int, co element.CSVOptions) ([]byte, error) {
	var acc table
	for i, elems := range results {
		data, err := element.MarshalCSVWith(elems, limit, co)
		if err != nil {
			return nil, err
		}
		t := parseCSV(data)
		if i == 0 {
			acc = t
			continue
		}
		acc = outerMerge(acc, t)
	}
	floatify(&acc)
	var b bytes.Buffer
	header := append([]string{""}, acc.cols...)
	writeRow(&b, header)
	for i, r := range acc.rows {
		writeRow(&b, append([]string{strconv.Itoa(i)}, r...))
		if limit > 0 && b.Len() > limit {
			return nil, element.ErrTooLarge
		}
	}
	return b.Bytes(), nil
}

func parseCSV(data []byte) table {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil || len(recs) == 0 {
		return table{}
	}
	t := table{cols: recs[0]}
	for _, r := range recs[1:] {
		row := make([]string, len(t.cols))
		copy(row, r)
		t.rows = append(t.rows, row)
	}
	return t
}

func outerMerge(a, b table) table {
	bIndex := map[string]int{}
	for i, c := range b.cols {
		bIndex[c] = i
	}
	var keys []int // positions in a.cols of the common columns
	common := map[string]bool{}
	for i, c := range a.cols {
		if _, ok := bIndex[c]; ok {
			keys = append(keys, i)
			common[c] = true
		}
	}
	out := table{cols: append([]string(nil), a.cols...)}
	var bExtra []int
	for i, c := range b.cols {
		if !common[c] {
			out.cols = append(out.cols, c)
			bExtra = append(bExtra, i)
		}
	}
	keyOfA := func(r []string) []string {
		k := make([]string, len(keys))
		for j, p := range keys {
			k[j] = r[p]
		}
		return k
	}
	keyOfB := func(r []string) []string {
		k := make([]string, len(keys))
		for j, p := range keys {
			k[j] = r[bIndex[a.cols[p]]]
		}
		return k
	}
	bByKey := map[string][]int{}
	for i, r := range b.rows {
		k := strings.Join(keyOfB(r), "\x00")
		bByKey[k] = append(bByKey[k], i)
	}
	used := make([]bool, len(b.rows))
	type keyed struct {
		key []string
		row []string
	}
	var rows []keyed
	for _, ar := range a.rows {
		k := keyOfA(ar)
		matches := bByKey[strings.Join(k, "\x00")]
		if len(matches) == 0 {
			row := append(append([]string(nil), ar...), make([]string, len(bExtra))...)
			rows = append(rows, keyed{k, row})
			continue
		}
		for _, bi := range matches {
			used[bi] = true
			row := append([]string(nil), ar...)
			for _, p := range bExtra {
				row = append(row, b.rows[bi][p])
			}
			rows = append(rows, keyed{k, row})
		}
	}
	for bi, br := range b.rows {
		if used[bi] {
			continue
		}
		row := make([]string, len(out.cols))
		for j, c := range a.cols {
			if p, ok := bIndex[c]; ok {
				row[j] = br[p]
			}
		}
		for j, p := range bExtra {
			row[len(a.cols)+j] = br[p]
		}
		rows = append(rows, keyed{keyOfB(br), row})
	}
	sort.SliceStable(rows, func(i, j int) bool { return lessKey(rows[i].key, rows[j].key) })
	for _, r := range rows {
		out.rows = append(out.rows, r.row)
	}
	return out
}

// lessKey orders key tuples as pandas sorts merge keys: numbers numerically, text
// lexicographically, missing values last.
func lessKey(a, b []string) bool {
	for i := range a {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x == "" || y == "" {
			return y == ""
		}
		fx, errX := strconv.ParseFloat(x, 64)
		fy, errY := strconv.ParseFloat(y, 64)
		if errX == nil && errY == nil && fx != fy {
			return fx < fy
		}
		return x < y
	}
	return false
}

var intCell = regexp.MustCompile(`^-?[0-9]+$`)

// floatify renders integer columns that gained missing values as floats ("3.0"), as pandas does.
func floatify(t *table) {
	for j := range t.cols {
		hasMissing, allInt, any := false, true, false
		for _, r := range t.rows {
			switch {
			case r[j] == "":
				hasMissing = true
			case intCell.MatchString(r[j]):
				any = true
			default:
				allInt = false
			}
		}
		if !hasMissing || !allInt || !any {
			continue
		}
		for _, r := range t.rows {
			if r[j] != "" {
				r[j] += ".0"
			}
		}
	}
}

// writeRow quotes like Python's csv module (QUOTE_MINIMAL, "\n" line ends).
func writeRow(b *bytes.Buffer, fields []string) {
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\r\n") {
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(f, `"`, `""`))
			b.WriteByte('"')
		} else {
			b.WriteString(f)
		}
	}
	b.WriteByte('\n')
}
