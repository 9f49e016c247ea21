package xlsx

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/formats/internal/opc"
)

// kind is the Python type a cell value has after openpyxl and pandas read it.
type kind uint8

const (
	kEmpty kind = iota // NaN: blank, "", pandas NA strings, error values
	kInt
	kFloat
	kBool
	kStr
	kDate
	kTime // a time of day (datetime.time): a date-formatted serial in [0, 1); s holds str()
	kDur  // an elapsed time (datetime.timedelta, formats like [h]:mm); f in microseconds
)

// value is one cell.
type value struct {
	k kind
	s string  // kStr text
	f float64 // kInt/kFloat/kBool (1/0); kDate: Unix time in microseconds; kDur: microseconds
}

func (v value) time() time.Time { return time.UnixMicro(int64(v.f)).UTC() }

func dateValue(t time.Time) value { return value{k: kDate, f: float64(t.UnixMicro())} }

// cell is a non-empty cell at a column of a row.
type cell struct {
	col int // 0-based
	v   value
}

// sheetData is a worksheet's non-empty cells, row by row (rows 0-based, ascending).
type sheetData struct {
	rows    []int
	cells   [][]cell // per entry of rows, ascending columns
	lastRow int      // last row holding a value, -1 when none
	width   int      // columns up to the last one holding a value
}

// maxCells bounds one sheet; beyond it a workbook is refused rather than exhausting memory.
const maxCells = 20_000_000

var errTooManyCells = errors.New("worksheet has too many cells")

// naStrings are pandas' default NA markers: string cells equal to one of them are missing.
var naStrings = map[string]bool{
	"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true, "-1.#QNAN": true,
	"-NaN": true, "-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true, "N/A": true,
	"NA": true, "NULL": true, "NaN": true, "None": true, "n/a": true, "nan": true, "null": true,
}

type workbook struct {
	pkg      *opc.Package
	strings  []string
	dateXf   []numStyle
	date1904 bool
}

type sheetRef struct {
	name, part string
}

// readWorkbook reads workbook.xml: sheet names and parts in order, and the 1904 flag.
func readWorkbook(pkg *opc.Package, part string) ([]sheetRef, bool, error) {
	rels, err := pkg.Rels(part)
	if err != nil {
		return nil, false, err
	}
	data, err := pkg.ReadPart(part)
	if err != nil {
		return nil, false, err
	}
	var doc struct {
		Pr struct {
			Date1904 string `xml:"date1904,attr"`
		} `xml:"workbookPr"`
		Sheets []struct {
			Name  string     `xml:"name,attr"`
			Attrs []xml.Attr `xml:",any,attr"`
		} `xml:"sheets>sheet"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, false, fmt.Errorf("parse workbook: %w", err)
	}
	var out []sheetRef
	for _, s := range doc.Sheets {
		var rid string
		for _, a := range s.Attrs {
			if a.Name.Local == "id" && a.Name.Space != "" {
				rid = a.Value
			}
		}
		rel, ok := rels[rid]
		if !ok || rel.External || !pkg.Has(rel.Target) || !strings.HasSuffix(rel.Type, "/worksheet") {
			continue
		}
		out = append(out, sheetRef{name: s.Name, part: rel.Target})
	}
	d1904 := doc.Pr.Date1904 != "" && opc.OnOff(doc.Pr.Date1904, true)
	return out, d1904, nil
}

// unescapeXString decodes SpreadsheetML's escapes for characters XML cannot carry
// (ST_Xstring: "_x000D_" for a carriage return, "_x0009_" for a tab, "_x005F_" for an underscore
// that would otherwise start one). openpyxl only drops "x005F_", so text pasted with line
// breaks read "Line one_x000D_ Line two"; here it reads as written.
func unescapeXString(s string) string {
	if !strings.Contains(s, "_x") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if i+7 <= len(s) && s[i] == '_' && s[i+1] == 'x' && s[i+6] == '_' {
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil {
				b.WriteRune(rune(v))
				i += 7
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// readSharedStrings streams sharedStrings.xml into a table.
func readSharedStrings(ctx context.Context, r io.Reader) ([]string, error) {
	dec := xml.NewDecoder(r)
	var out []string
	var b strings.Builder
	inSI, inT, skip := false, false, 0
	n := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if n++; n&8191 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Local == "si":
				inSI = true
				b.Reset()
			case t.Name.Local == "rPh" || t.Name.Local == "phoneticPr":
				skip++
			case t.Name.Local == "t" && inSI && skip == 0:
				inT = true
			}
		case xml.CharData:
			if inT {
				b.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "si":
				inSI = false
				if len(out) >= maxCells {
					return nil, errTooManyCells
				}
				out = append(out, unescapeXString(b.String()))
			case "rPh", "phoneticPr":
				skip--
			case "t":
				inT = false
			}
		}
	}
}

// numStyle is what a cell format makes of a number, as openpyxl reads it.
type numStyle uint8

const (
	styleNumber  numStyle = iota
	styleDate             // a datetime, or a time of day for a serial under one day
	styleElapsed          // a timedelta: the format starts with [h], [m] or [s] (durations, timesheets)
)

// builtinStyle is what openpyxl makes of the built-in number formats: 14-22 and 45-47 are dates
// and times, 46 ([h]:mm:ss) elapsed time.
func builtinStyle(id int) numStyle {
	switch {
	case id == 46:
		return styleElapsed
	case id >= 14 && id <= 22 || id >= 45 && id <= 47:
		return styleDate
	}
	return styleNumber
}

// isElapsedFormat is openpyxl's is_timedelta_format: the first section of the code starts with
// an elapsed-time bracket ([h], [hh], [m], [mm], [s], [ss]).
func isElapsedFormat(code string) bool {
	first, _, _ := strings.Cut(strings.ToLower(code), ";")
	for _, p := range []string{"[h]", "[hh]", "[m]", "[mm]", "[s]", "[ss]"} {
		if strings.HasPrefix(first, p) {
			return true
		}
	}
	return false
}

// isDateFormat is openpyxl's test for a custom format code: after removing quoted literals,
// escapes and bracketed sections (other than elapsed-time ones), any of d m y h s is a date.
func isDateFormat(code string) bool {
	var b strings.Builder
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch c {
		case '"':
			j := strings.IndexByte(code[i+1:], '"')
			if j < 0 {
				i = len(code)
			} else {
				i += j + 1
			}
			continue
		case '\\', '_', '*':
			i++
			continue
		case '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				i = len(code)
				continue
			}
			inner := strings.ToLower(code[i+1 : i+j])
			if inner != "" && strings.Trim(inner, "hms") == "" {
				b.WriteString(inner)
			}
			i += j
			continue
		}
		b.WriteByte(c)
	}
	return strings.ContainsAny(strings.ToLower(b.String()), "dmyhs") &&
		!strings.EqualFold(strings.TrimSpace(code), "general")
}

// readStyles returns, per cell format index, what it makes of numbers.
func readStyles(data []byte) []numStyle {
	var doc struct {
		NumFmts []struct {
			ID   int    `xml:"numFmtId,attr"`
			Code string `xml:"formatCode,attr"`
		} `xml:"numFmts>numFmt"`
		Xfs []struct {
			NumFmtID int `xml:"numFmtId,attr"`
		} `xml:"cellXfs>xf"`
	}
	if xml.Unmarshal(data, &doc) != nil {
		return nil
	}
	custom := map[int]string{}
	for _, f := range doc.NumFmts {
		custom[f.ID] = f.Code
	}
	out := make([]numStyle, len(doc.Xfs))
	for i, xf := range doc.Xfs {
		code, ok := custom[xf.NumFmtID]
		switch {
		case !ok:
			out[i] = builtinStyle(xf.NumFmtID)
		case isDateFormat(code) && isElapsedFormat(code):
			out[i] = styleElapsed
		case isDateFormat(code):
			out[i] = styleDate
		}
	}
	return out
}

// colIndex converts the letters of a cell reference ("BC12") to a 0-based column.
func colIndex(ref string) (int, bool) {
	col := 0
	i := 0
	for ; i < len(ref); i++ {
		c := ref[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c < 'A' || c > 'Z' {
			break
		}
		col = col*26 + int(c-'A'+1)
		if col > 16384 {
			return 0, false
		}
	}
	if i == 0 {
		return 0, false
	}
	return col - 1, true
}

// excelTime converts a date serial to a time as openpyxl does (1900 system with its leap-year
// bug, or 1904), rounded to the microsecond.
func excelTime(serial float64, date1904 bool) (time.Time, bool) {
	if math.IsNaN(serial) || math.IsInf(serial, 0) || serial < 0 || serial > 2958466 {
		return time.Time{}, false
	}
	var base time.Time
	if date1904 {
		base = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	} else {
		base = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
		if serial < 60 {
			base = base.AddDate(0, 0, 1)
		}
	}
	days := math.Floor(serial)
	frac := serial - days
	us := math.Round(frac * 86400e6)
	return base.AddDate(0, 0, int(days)).Add(time.Duration(us) * time.Microsecond), true
}

// readSheet streams one worksheet into its non-empty cells with pandas' typing.
func (wb *workbook) readSheet(ctx context.Context, r io.Reader, progress func(rows int)) (*sheetData, error) {
	dec := xml.NewDecoder(r)
	sd := &sheetData{lastRow: -1}
	row, nextRow := -1, 0
	var cur []cell
	nextCol := 0
	total := 0
	flush := func() {
		if len(cur) > 0 {
			sd.rows = append(sd.rows, row)
			sd.cells = append(sd.cells, cur)
			sd.lastRow = row
			sd.width = max(sd.width, cur[len(cur)-1].col+1)
		}
		cur = nil
	}
	n := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if n++; n&8191 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "row":
			flush()
			row = nextRow
			if v, ok := opc.Attr(se, "r"); ok {
				if ri, err := strconv.Atoi(v); err == nil && ri >= 1 && ri <= 1<<20 {
					row = ri - 1
				}
			}
			if len(sd.rows) > 0 && row <= sd.rows[len(sd.rows)-1] {
				row = sd.rows[len(sd.rows)-1] + 1 // rows out of order: keep them ascending
			}
			nextRow = row + 1
			nextCol = 0
			if progress != nil && row%100000 == 0 && row > 0 {
				progress(row)
			}
		case "c":
			col := nextCol
			if ref, ok := opc.Attr(se, "r"); ok {
				if c, ok := colIndex(ref); ok {
					col = c
				}
			}
			if len(cur) > 0 && col <= cur[len(cur)-1].col {
				col = cur[len(cur)-1].col + 1
			}
			nextCol = col + 1
			typ, _ := opc.Attr(se, "t")
			style := 0
			if s, ok := opc.Attr(se, "s"); ok {
				style, _ = strconv.Atoi(s)
			}
			raw, inline, err := cellContent(dec)
			if err != nil {
				return nil, err
			}
			v := wb.typed(typ, style, raw, inline)
			if v.k == kEmpty || col >= 16384 {
				continue
			}
			if total++; total > maxCells {
				return nil, errTooManyCells
			}
			cur = append(cur, cell{col: col, v: v})
		}
	}
	flush()
	return sd, nil
}

// cellContent reads a c element: its v text and its inline-string text.
func cellContent(dec *xml.Decoder) (v, inline string, err error) {
	var vb, ib strings.Builder
	depth := 1
	in := ""
	skip := 0
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			return "", "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "v":
				in = "v"
			case "t":
				if skip == 0 {
					in = "t"
				}
			case "rPh":
				skip++
			}
		case xml.CharData:
			switch in {
			case "v":
				vb.Write(t)
			case "t":
				ib.Write(t)
			}
		case xml.EndElement:
			depth--
			if t.Name.Local == "rPh" {
				skip--
			}
			in = ""
		}
	}
	return vb.String(), ib.String(), nil
}

// typed converts a raw cell to the value pandas ends up with (openpyxl types, integral
// numbers as int, NA strings and errors missing).
func (wb *workbook) typed(typ string, style int, raw, inline string) value {
	switch typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || i < 0 || i >= len(wb.strings) {
			return value{}
		}
		return strValue(wb.strings[i])
	case "inlineStr":
		return strValue(unescapeXString(inline))
	case "str":
		return strValue(unescapeXString(raw))
	case "b":
		if strings.TrimSpace(raw) == "" {
			return value{}
		}
		if strings.TrimSpace(raw) == "0" || strings.EqualFold(strings.TrimSpace(raw), "false") {
			return value{k: kBool, f: 0}
		}
		return value{k: kBool, f: 1}
	case "e":
		return value{}
	case "d":
		for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05Z", "2006-01-02", "15:04:05"} {
			if t, err := time.Parse(layout, strings.TrimSpace(raw)); err == nil {
				return dateValue(t)
			}
		}
		return strValue(raw)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return value{}
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return strValue(raw)
	}
	if style >= 0 && style < len(wb.dateXf) {
		switch wb.dateXf[style] {
		case styleElapsed:
			if v, ok := elapsedValue(f); ok {
				return v
			}
		case styleDate:
			if v, ok := timeOfDay(f); ok {
				return v
			}
			if t, ok := excelTime(f, wb.date1904); ok {
				return dateValue(t)
			}
		}
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return value{k: kInt, f: f}
	}
	return value{k: kFloat, f: f}
}

// timeOfDay is openpyxl's reading of a date-formatted serial in [0, 1) that stays under a
// day once rounded to the millisecond: a datetime.time, whose str() pandas shows ("10:30:00";
// a time column was shown as 1899-12-31 10:30:00).
func timeOfDay(serial float64) (value, bool) {
	if !(serial >= 0 && serial < 1) {
		return value{}, false
	}
	ms := int64(math.RoundToEven(serial * 86400e3))
	if ms >= 86400e3 {
		return value{}, false
	}
	s := fmt.Sprintf("%02d:%02d:%02d", ms/3600e3, ms/60e3%60, ms/1e3%60)
	if ms%1000 != 0 {
		s += fmt.Sprintf(".%06d", ms%1000*1000)
	}
	return value{k: kTime, s: s}, true
}

// elapsedValue is openpyxl's timedelta for an elapsed-time format: whole seconds, the rest
// rounded to the millisecond. Negative and absurd serials stay numbers.
func elapsedValue(serial float64) (value, bool) {
	if !(serial >= 0 && serial <= 2958466) {
		return value{}, false
	}
	us := math.RoundToEven(serial * 86400e6)
	sec := math.Floor(us / 1e6)
	frac := math.RoundToEven((us-sec*1e6)/1e3) * 1e3
	return value{k: kDur, f: sec*1e6 + frac}, true
}

// pyTimedelta is str() of a datetime.timedelta of us microseconds (≥ 0): "1 day, 18:00:00",
// "0:30:57.500000", as an object column shows it.
func pyTimedelta(us int64) string {
	days, rest := us/86400e6, us%86400e6
	s := fmt.Sprintf("%d:%02d:%02d", rest/3600e6, rest/60e6%60, rest/1e6%60)
	if days == 1 {
		s = "1 day, " + s
	} else if days != 0 {
		s = fmt.Sprintf("%d days, %s", days, s)
	}
	if rest%1e6 != 0 {
		s += fmt.Sprintf(".%06d", rest%1e6)
	}
	return s
}

// pandasTimedelta is how pandas shows a value of a timedelta64 column: "1 days" when every value
// of the column is whole days, else "1 days 18:00:00" (sub-second digits where the value has
// them).
func pandasTimedelta(us int64, evenDays bool) string {
	days, rest := us/86400e6, us%86400e6
	if evenDays {
		return fmt.Sprintf("%d days", days)
	}
	s := fmt.Sprintf("%d days %02d:%02d:%02d", days, rest/3600e6, rest/60e6%60, rest/1e6%60)
	if rest%1e6 != 0 {
		s += fmt.Sprintf(".%06d", rest%1e6)
	}
	return s
}

func strValue(s string) value {
	if naStrings[s] {
		return value{}
	}
	return value{k: kStr, s: s}
}
