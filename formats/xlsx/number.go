package xlsx

import (
	"math"
	"strconv"
	"strings"
)

// pyFloat is Python's repr of a float: the shortest round-trip digits, fixed notation with a
// trailing ".0" between 1e-4 and 1e16, scientific otherwise.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	a := math.Abs(f)
	if a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// formatFloatColumn formats a float column's values as pandas' to_html does: six decimals,
// then trailing zeros trimmed equally from every value (keeping one decimal), switching to
// scientific notation for tiny values or long large ones.
func formatFloatColumn(fs []float64) []string {
	const digits = 6
	fixed := func(verb byte) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = strconv.FormatFloat(f, verb, digits, 64)
		}
		if verb == 'f' {
			trimZeros(out)
		}
		return out
	}
	out := fixed('f')
	maxLen := 0
	large, small := false, false
	for i, f := range fs {
		// pandas formats with a leading space for the sign, which counts in the width.
		maxLen = max(maxLen, len(out[i])+1)
		a := math.Abs(f)
		large = large || a > 1e6
		small = small || (a > 0 && a < 1e-6)
	}
	if small || (maxLen > digits+6 && large) {
		out = fixed('e')
	}
	return out
}

func trimZeros(vals []string) {
	isDec := func(s string) bool {
		i := strings.IndexByte(s, '.')
		if i < 0 {
			return false
		}
		for _, c := range s[i+1:] {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	for {
		any, all := false, true
		for _, v := range vals {
			if isDec(v) {
				any = true
				if !strings.HasSuffix(v, "0") {
					all = false
				}
			}
		}
		if !any || !all {
			break
		}
		for i, v := range vals {
			if isDec(v) {
				vals[i] = v[:len(v)-1]
			}
		}
	}
	for i, v := range vals {
		if isDec(v) && strings.HasSuffix(v, ".") {
			vals[i] = v + "0"
		}
	}
}
