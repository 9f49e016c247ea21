package tables

import (
	"strings"
	"testing"
)

// mathRow sets the cells of one row at the given x positions on baseline y; a cell written
// "$…" is set in a math font (its words Math), others in a text font.
func mathRow(y float64, xs []float64, cells ...string) []Word {
	var out []Word
	for i, c := range cells {
		if c == "" {
			continue
		}
		m := strings.HasPrefix(c, "$")
		ws := phrase(strings.TrimPrefix(c, "$"), xs[i], y)
		for k := range ws {
			ws[k].Math = m
		}
		out = append(out, ws...)
	}
	return out
}

func tablesOf(t *testing.T, rows [][]string, xs []float64) []Table {
	t.Helper()
	var ws []Word
	for r, cells := range rows {
		ws = append(ws, mathRow(700-14*float64(r), xs, cells...)...)
	}
	return find(t, &Page{Words: ws})
}

// Displayed equations, which TeX sets as aligned columns of short pieces, are not tables:
// aligned at "=" with equation numbers at the right margin, in a math font or in math
// characters, a matrix between the pieces of its delimiters (a math font's glyphs without
// Unicode read as letters, as old TeX fonts do). Each is found as a table without the check.
func TestEquationsAreNotTables(t *testing.T) {
	xs := []float64{150, 220, 250, 480}
	for _, c := range []struct {
		name string
		xs   []float64
		rows [][]string
	}{
		{"aligned, math font, numbered", xs, [][]string{
			{"$f₁(x)", "$=", "$2x + 1", "(1)"},
			{"$g₂(x)", "$=", "$3x₂ − 4", "(2)"},
			{"$h₃(x)", "$=", "$f₁(g₂(x))", "(3)"},
		}},
		{"aligned, math characters, numbered", xs, [][]string{
			{"α₁(t)", "=", "2β + γt", "(2.1)"},
			{"∂α₂/∂t", "≤", "3γ", "(2.2)"},
			{"Σ αᵢ", "=", "∫ β₀ dt", "(2.3)"},
		}},
		{"matrix between delimiter pieces", []float64{150, 180, 220, 260, 290}, [][]string{
			{"$B", "1", "0", "0", "$C"},
			{"$B", "0", "1", "0", "$C"},
			{"$@", "0", "0", "1", "$A"},
		}},
	} {
		if ts := tablesOf(t, c.rows, c.xs); len(ts) != 0 {
			t.Errorf("%s: %d tables: %q", c.name, len(ts), gridOf(ts[0]))
		}
	}
}

// Real tables stay tables: figures in a text font, with a header row, with a column of
// symbols beside figures, with negative amounts in parentheses at the right (as equation
// numbers are), a table of notation under a header.
func TestNumericTablesStayTables(t *testing.T) {
	xs := []float64{100, 250, 350, 450}
	for name, rows := range map[string][][]string{
		"figures under a header": {
			{"Year", "Revenue", "Cost", "Margin"},
			{"2021", "1,200", "800", "400"},
			{"2022", "1,450", "900", "550"},
			{"2023", "1,610", "1,020", "590"},
		},
		"symbols beside figures": {
			{"$α", "0.10", "0.25", "0.40"},
			{"$β", "0.20", "0.35", "0.50"},
			{"$γ", "0.30", "0.45", "0.60"},
		},
		"amounts in parentheses": {
			{"Net income", "1,234", "987", "(12)"},
			{"Other items", "456", "321", "(45)"},
			{"Taxes paid", "789", "654", "(78)"},
		},
		"notation under a header": {
			{"Symbol", "Meaning", "", ""},
			{"$α", "learning rate", "", ""},
			{"$λ", "weight decay", "", ""},
			{"$ε", "tolerance of the solver", "", ""},
		},
		"figures with ± and ≤": {
			{"Model A", "47.0 ± 0.3", "≤ 0.01", "12"},
			{"Model B", "52.1 ± 0.2", "≤ 0.05", "15"},
			{"Model C", "58.4 ± 0.4", "≤ 0.02", "17"},
		},
	} {
		if ts := tablesOf(t, rows, xs); len(ts) != 1 {
			t.Errorf("%s: %d tables, want 1", name, len(ts))
		}
	}
}

func TestMathFont(t *testing.T) {
	for name, want := range map[string]bool{
		"BKSOJG+CMMI10": true, "CMSY10": true, "CMEX10": true, "MSBM10": true, "EUFM10": true, "CambriaMath": true,
		"Cambria-Math": true, "STIXTwoMath-Regular": true, "LatinModernMath-Regular": true, "LMMathItalic10-Regular": true,
		"CMR10": false, "Helvetica": false, "NimbusRomNo9L-Regu": false, "SFRM1095": false, "Cambria": false,
	} {
		if MathFont(name) != want {
			t.Errorf("MathFont(%q) = %v", name, !want)
		}
	}
}
