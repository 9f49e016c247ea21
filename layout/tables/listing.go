package tables

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// listing reports whether a table without drawn columns is preformatted text — a code
// listing, a terminal session, a verbatim block — rather than a table: at least half of its
// rows with words that tell are lines of code. A line of code is set in one fixed pitch (four fifths of the
// characters of its words that tell, Word.pitch; figures and one-letter words do not), its
// words start on the block's character grid (at a whole number of advances from one
// another, as text laid out with spaces in a fixed-pitch face is), and no figure off that
// grid follows its text (an identifier with its value is a table's row). Its "columns" are runs of spaces,
// its "rows" lines. A table whose cells hold fixed-pitch text (commands, identifiers) places
// each column where the widest cell before it ends, off that grid, and stays a table; line
// numbers beside the code in another face, margin notes and the prose around the code break
// the block's lines without making it a table. rows are the words of each row.
func listing(rows [][]int, ws []Word) bool {
	var pitches []float64
	var cand []int // rows set in one fixed pitch
	text := 0
	for r, row := range rows {
		mono, prop := 0, 0
		for _, w := range row {
			wd := ws[w]
			if numeric(wd.Text) {
				continue
			}
			n := utf8.RuneCountInString(wd.Text)
			switch {
			case wd.pitch > 0:
				mono += n
			case wd.pitch < 0:
				prop += n
			}
		}
		if mono+prop > 0 {
			text++ // rows of figures and lone marks ("}") tell neither way
		}
		if mono > 0 && mono >= 4*prop {
			cand = append(cand, r)
			for _, w := range row {
				if ws[w].pitch > 0 && !numeric(ws[w].Text) {
					pitches = append(pitches, ws[w].pitch)
				}
			}
		}
	}
	if len(cand) < 2 || 2*len(cand) < text {
		return false
	}
	// Pitch classes (a listing may set its comments in another size), each with its grid:
	// the residue of the word starts, in advances, with the most others within a twentieth
	// of a character (on a circle).
	sort.Float64s(pitches)
	type class struct{ p, at float64 }
	var classes []class
	for _, p := range pitches {
		if n := len(classes); n == 0 || p > 1.02*classes[n-1].p {
			classes = append(classes, class{p: p})
		}
	}
	classOf := func(pitch float64) int {
		for k, c := range classes {
			if math.Abs(pitch-c.p) <= 0.02*c.p {
				return k
			}
		}
		return -1
	}
	residue := func(w int, p float64) float64 {
		x := ws[w].Box.X0 / p
		return x - math.Floor(x)
	}
	const tol = 0.05
	for k := range classes {
		var res []float64
		for _, r := range cand {
			for _, w := range rows[r] {
				if wd := ws[w]; wd.pitch > 0 && !numeric(wd.Text) && classOf(wd.pitch) == k {
					res = append(res, residue(w, classes[k].p))
				}
			}
		}
		sort.Float64s(res)
		best, j := 0, 0
		for i := range res {
			j = max(j, i)
			for j+1 < i+len(res) && wrapped(res, j+1)-res[i] <= 2*tol {
				j++
			}
			if j-i+1 > best {
				best, classes[k].at = j-i+1, res[i]+tol
			}
		}
	}
	onGrid := func(w, k int) bool {
		d := math.Abs(residue(w, classes[k].p) - classes[k].at)
		d -= math.Floor(d)
		return math.Min(d, 1-d) <= tol+1e-9
	}
	code := 0
	for _, r := range cand {
		ok, right, rowClass := true, math.Inf(-1), -1
		for _, w := range rows[r] {
			if wd := ws[w]; wd.pitch > 0 && !numeric(wd.Text) {
				k := classOf(wd.pitch)
				if k < 0 {
					continue
				}
				ok = ok && onGrid(w, k)
				right = math.Max(right, wd.Box.X1)
				if rowClass < 0 {
					rowClass = k
				}
			}
		}
		for _, w := range rows[r] {
			if rowClass >= 0 && numeric(ws[w].Text) && ws[w].Box.X0 > right && !onGrid(w, rowClass) {
				ok = false // a value after an identifier, not code going on
			}
		}
		if ok {
			code++
		}
	}
	return 2*code >= text
}

// wrapped is res[k] for k < len(res) and res[k-len(res)]+1 beyond: the residues read twice
// around the circle.
func wrapped(res []float64, k int) float64 {
	if k < len(res) {
		return res[k]
	}
	return res[k-len(res)] + 1
}

// leaderRunes are the characters of leaders, which lead the eye from an entry to its page
// number across empty space.
const leaderRunes = ".·…_ \u00a0\u2009"

// contents reports whether a table is a table of contents (or a list of figures): two thirds
// of its rows are entries whose last cell is a page number (a figure of up to four digits or
// a roman numeral); half of them at least (two or more) are marked as entries, by leaders
// (a cell of leader dots, or text ending in three or more) or by a title that starts with
// its section number in the same cell ("1.2 The Terminal"; a table gives a number a column
// of its own); and the page numbers do not go down, save one in ten (a contents set in two
// columns). Financial statements with leaders end their rows in amounts, not in rising
// page numbers.
func contents(t Table) bool {
	type row struct {
		first, last string
		leader      bool
		text        bool
	}
	rows := make([]row, t.Rows)
	for _, c := range t.Cells {
		txt := strings.TrimSpace(c.Text)
		if txt == "" {
			continue
		}
		r := &rows[c.Row]
		if !r.text {
			r.first = txt
		}
		r.text = true
		if leaderText(txt) {
			r.leader = true
		}
		if strings.Trim(txt, leaderRunes) != "" {
			r.last = txt // cells are in row-major order: the last one seen is the row's last
		}
	}
	withText, numbered, marked, down := 0, 0, 0, 0
	prev := -1
	for _, r := range rows {
		if !r.text {
			continue
		}
		withText++
		pg, ok := pageNumber(r.last)
		if !ok {
			continue
		}
		numbered++
		if f := strings.Fields(r.first); r.leader || (len(f) >= 2 && r.first != r.last && sectionNumber(f[0])) {
			marked++
		}
		if pg < prev {
			down++
		}
		prev = pg
	}
	return marked >= 2 && 2*marked >= withText && 3*numbered >= 2*withText && 10*down <= numbered
}

// index reports whether a table is a back-of-book index set in columns: half of its cells
// with text or more are entries, words followed by their page numbers in the same cell
// ("break statement 24, 46"), six or more, and a quarter of those at least list two pages
// or more. A table's figures stand in cells of their own; a year ends a date ("July 1,
// 2023", "FY 2019"), not a list of pages.
func index(t Table) bool {
	text, entries, lists := 0, 0, 0
	for _, c := range t.Cells {
		f := strings.Fields(c.Text)
		if len(f) == 0 {
			continue
		}
		letters := false
		for _, r := range c.Text {
			if unicode.IsLetter(r) {
				letters = true
				break
			}
		}
		if !letters {
			continue
		}
		text++
		pages := 0
		for k := len(f) - 1; k >= 0; k-- {
			if _, ok := pageNumber(strings.TrimRight(f[k], ",;")); !ok || strings.Trim(f[k], leaderRunes+",;") == "" {
				break
			}
			v, err := strconv.Atoi(strings.TrimRight(f[k], ",;"))
			if err != nil || (v >= 1800 && v <= 2100) {
				break // a roman numeral (a word as likely), a year (a date: "July 1, 2023")
			}
			pages++
		}
		if pages == 0 || pages == len(f) {
			continue
		}
		entries++
		if pages >= 2 {
			lists++
		}
	}
	return entries >= 6 && 2*entries >= text && 4*lists >= entries
}

// leaderText reports whether a cell's text is or ends in a leader: three or more leader dots,
// spaced or not.
func leaderText(s string) bool {
	dots := 0
	for _, r := range reverseRunes(s) {
		switch {
		case r == '.' || r == '·' || r == '_':
			dots++
		case r == '…':
			dots += 3
		case strings.ContainsRune(leaderRunes, r):
		default:
			return dots >= 3
		}
	}
	return dots >= 3 || (dots >= 1 && strings.Trim(s, leaderRunes) == "")
}

func reverseRunes(s string) []rune {
	rs := []rune(s)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return rs
}

// pageNumber reads a page number: one to four digits, or a roman numeral (front matter).
func pageNumber(s string) (int, bool) {
	s = strings.Trim(s, leaderRunes)
	if n := len(s); n >= 1 && n <= 4 && strings.TrimFunc(s, unicode.IsDigit) == "" {
		v, err := strconv.Atoi(s)
		return v, err == nil
	}
	if s != "" && len(s) <= 8 && strings.Trim(strings.ToLower(s), "ivxlc") == "" {
		return 0, true // front matter comes first: as low as a page number goes
	}
	return 0, false
}
