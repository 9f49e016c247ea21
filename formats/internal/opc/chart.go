package opc

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"
)

// Chart is what a DrawingML chart part (c:chartSpace, shared by PresentationML,
// WordprocessingML and SpreadsheetML) shows in words and numbers: its titles and the data
// cached with it.
type Chart struct {
	// Titles are the chart's title, then its axes' titles, as shown.
	Titles []string
	// Rows is the data as a table: a header row (an empty corner, then each series' name),
	// then one row per category (its label, then each series' value there). Scatter and
	// bubble series give their x values as categories. Empty when the chart caches no data.
	Rows [][]string
}

// Bounds against hostile parts: points per series and series per chart.
const (
	maxChartPoints = 100000
	maxChartSeries = 1000
)

type chartSeries struct {
	name   string
	cats   map[int]string
	vals   map[int]string
	maxIdx int
}

// ReadChart reads a chart part. What was read before damage in the part is returned.
func ReadChart(data []byte) Chart {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var (
		ch      Chart
		stack   []string // local names of open elements
		series  []*chartSeries
		cur     *chartSeries
		title   *strings.Builder // rich text of the title being read
		titleAt int              // depth of its c:title
		ptIdx   = -1
		text    strings.Builder
	)
	// where reports the innermost of names among the open elements.
	where := func(names ...string) string {
		for i := len(stack) - 1; i >= 0; i-- {
			for _, n := range names {
				if stack[i] == n {
					return n
				}
			}
		}
		return ""
	}
	finish := func() {
		if cur != nil && (cur.name != "" || len(cur.vals) > 0 || len(cur.cats) > 0) && len(series) < maxChartSeries {
			series = append(series, cur)
		}
		cur = nil
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name.Local)
			switch t.Name.Local {
			case "title":
				if title == nil {
					title, titleAt = &strings.Builder{}, len(stack)
				}
			case "ser":
				finish()
				cur = &chartSeries{cats: map[int]string{}, vals: map[int]string{}, maxIdx: -1}
			case "pt":
				ptIdx = -1
				if v, ok := Attr(t, "idx"); ok {
					if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < maxChartPoints {
						ptIdx = n
					}
				}
			case "v", "t":
				text.Reset()
			}
		case xml.CharData:
			if n := len(stack); n > 0 && (stack[n-1] == "v" || stack[n-1] == "t") {
				text.Write(t)
			}
		case xml.EndElement:
			n := len(stack)
			if n == 0 {
				break
			}
			name := stack[n-1]
			switch {
			case name == "t" && title != nil:
				title.WriteString(text.String())
			case name == "p" && title != nil && title.Len() > 0:
				title.WriteByte('\n')
			case name == "v" && title != nil:
				title.WriteString(text.String())
			case name == "v" && cur != nil:
				v := strings.TrimSpace(text.String())
				switch where("tx", "cat", "xVal", "val", "yVal") {
				case "tx":
					cur.name = v
				case "cat", "xVal":
					if ptIdx >= 0 && where("lvl") == "" {
						cur.cats[ptIdx] = v
						cur.maxIdx = max(cur.maxIdx, ptIdx)
					} else if ptIdx >= 0 && cur.cats[ptIdx] == "" {
						// Multi-level categories: the innermost level's label, first seen.
						cur.cats[ptIdx] = v
						cur.maxIdx = max(cur.maxIdx, ptIdx)
					}
				case "val", "yVal":
					if ptIdx >= 0 {
						cur.vals[ptIdx] = v
						cur.maxIdx = max(cur.maxIdx, ptIdx)
					}
				}
			case name == "title" && title != nil && n == titleAt:
				var lines []string
				for _, l := range strings.Split(title.String(), "\n") {
					if l = strings.Join(strings.Fields(l), " "); l != "" {
						lines = append(lines, l)
					}
				}
				if len(lines) > 0 {
					ch.Titles = append(ch.Titles, strings.Join(lines, "\n"))
				}
				title = nil
			case name == "ser":
				finish()
			}
			stack = stack[:n-1]
		}
	}
	finish()
	ch.Rows = chartRows(series)
	return ch
}

// chartRows lays the series out as a table (see Chart.Rows).
func chartRows(series []*chartSeries) [][]string {
	if len(series) == 0 {
		return nil
	}
	last := -1
	for _, s := range series {
		last = max(last, s.maxIdx)
	}
	if last < 0 {
		return nil
	}
	header := make([]string, len(series)+1)
	for i, s := range series {
		header[i+1] = s.name
	}
	rows := [][]string{header}
	for idx := 0; idx <= last; idx++ {
		row := make([]string, len(series)+1)
		for _, s := range series {
			if c := s.cats[idx]; c != "" && row[0] == "" {
				row[0] = c
			}
		}
		empty := row[0] == ""
		for i, s := range series {
			row[i+1] = s.vals[idx]
			empty = empty && row[i+1] == ""
		}
		if !empty {
			rows = append(rows, row)
		}
	}
	if len(rows) == 1 {
		return nil
	}
	return rows
}
