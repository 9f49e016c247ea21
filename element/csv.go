package element

import (
	"bytes"
	"strings"
)

// MarshalCSV writes elements as the reference's CSV output (§6.9): metadata flattened into
// columns joined with "_", lists in Python repr, columns empty in every row dropped, columns in
// first-seen order after type, element_id and text.
func MarshalCSV(elems []Element) []byte {
	b, _ := MarshalCSVLimit(elems, 0)
	return b
}

// CSVOptions are the ways CSV output may depart from the reference's bytes.
type CSVOptions struct {
	// EscapeFormulas prefixes a single quote to every text cell that a spreadsheet would
	// evaluate as a formula: one beginning with =, +, -, @, a tab or a carriage return
	// (OWASP's CSV injection rule). The element text is the document author's: without it,
	// =HYPERLINK(…) or =cmd|' /C calc'!A0 in a paragraph is a live formula when the CSV is
	// opened in Excel or LibreOffice. Off by default: the reference writes the text as it is,
	// and programs parsing the CSV would read the quote as part of the text ("-5%" becomes
	// "'-5%"). Numbers (page_number, …) are never quoted.
	EscapeFormulas bool
}

// MarshalCSVLimit is MarshalCSV that stops with ErrTooLarge once the output passes limit bytes
// (limit <= 0: no limit).
func MarshalCSVLimit(elems []Element, limit int) ([]byte, error) {
	return MarshalCSVWith(elems, limit, CSVOptions{})
}

// MarshalCSVWith is MarshalCSVLimit with options.
func MarshalCSVWith(elems []Element, limit int, o CSVOptions) ([]byte, error) {
	cols := []string{"type", "element_id", "text"}
	seen := map[string]bool{"type": true, "element_id": true, "text": true}
	rows := make([]map[string]value, len(elems))
	oc := origCache{}
	for i := range elems {
		row := map[string]value{}
		obj := elems[i].toValue(false, oc)
		for _, m := range obj {
			if m.key == "metadata" {
				flatten(row, "", m.val.(object), &cols, seen)
				continue
			}
			row[m.key] = m.val
			if !seen[m.key] {
				seen[m.key] = true
				cols = append(cols, m.key)
			}
		}
		rows[i] = row
	}
	// Drop columns that are empty everywhere; columns of integers with gaps become floats,
	// as a pandas frame renders them.
	var kept []string
	floatCols := map[string]bool{}
	for _, c := range cols {
		present, missing, integral := false, false, true
		for _, r := range rows {
			v, ok := r[c]
			if !ok {
				missing = true
				continue
			}
			present = true
			if n, isNum := v.(number); !isNum || strings.ContainsAny(string(n), ".eE") {
				integral = false
			}
		}
		if present || c == "type" || c == "element_id" || c == "text" {
			kept = append(kept, c)
		}
		if present && missing && integral {
			floatCols[c] = true
		}
	}
	var b bytes.Buffer
	writeCSVRow(&b, kept)
	cells := make([]string, len(kept))
	for _, r := range rows {
		for j, c := range kept {
			v, ok := r[c]
			switch {
			case !ok:
				cells[j] = ""
			case floatCols[c]:
				cells[j] = string(v.(number)) + ".0"
			default:
				cells[j] = csvText(v)
				if _, isString := v.(string); isString && o.EscapeFormulas && IsFormula(cells[j]) {
					cells[j] = "'" + cells[j]
				}
			}
		}
		writeCSVRow(&b, cells)
		if limit > 0 && b.Len() > limit {
			return nil, ErrTooLarge
		}
	}
	return b.Bytes(), nil
}

func flatten(row map[string]value, prefix string, o object, cols *[]string, seen map[string]bool) {
	for _, m := range o {
		key := prefix + m.key
		if sub, ok := m.val.(object); ok {
			flatten(row, key+"_", sub, cols, seen)
			continue
		}
		row[key] = m.val
		if !seen[key] {
			seen[key] = true
			*cols = append(*cols, key)
		}
	}
}

// IsFormula reports whether a spreadsheet opening a CSV cell holding s would take it as a
// formula (or, for a leading tab or carriage return, a cell whose blanks it strips before
// taking it as one): s begins with =, +, -, @, a tab or a carriage return.
func IsFormula(s string) bool {
	return s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0
}

func csvText(v value) string {
	switch v := v.(type) {
	case string:
		return v
	case number:
		return string(v)
	default:
		return string(marshalValue(v, pythonRepr))
	}
}

// writeCSVRow quotes like Python's csv module with QUOTE_MINIMAL and "\n" line endings.
func writeCSVRow(b *bytes.Buffer, fields []string) {
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\r\n") || (len(fields) == 1 && f == "") {
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(f, `"`, `""`))
			b.WriteByte('"')
		} else {
			b.WriteString(f)
		}
	}
	b.WriteByte('\n')
}
