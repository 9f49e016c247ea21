package pdf

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// fastDecimal must give exactly what strconv.ParseFloat gives whenever it answers: coordinates
// feed the layout analysis, whose groupings compare floats for equality.
func TestFastDecimalIsParseFloat(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	fixed := []string{"0", "0.0", "5.", ".5", "123456789012345", "0.1", "0.3", "612", "792.000001",
		"1.0000000000000000000001", "9007199254740993", "1234567890123456"}
	for i := 0; i < 200000; i++ {
		var s string
		switch i % 4 {
		case 0:
			s = strconv.Itoa(r.Intn(100000))
		case 1:
			s = strconv.FormatFloat(r.Float64()*1000, 'f', r.Intn(8), 64)
		case 2:
			s = strconv.Itoa(r.Intn(1000)) + "." + strconv.Itoa(r.Intn(1000000))
		default:
			s = "0." + strconv.Itoa(r.Intn(1e9))
		}
		fixed = append(fixed, s)
	}
	for _, s := range fixed {
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := fastDecimal([]byte(s)); ok && got != want {
			t.Fatalf("%s: %v, ParseFloat %v", s, got, want)
		}
		if got := parseNumber([]byte(s)); got != want {
			t.Fatalf("parseNumber(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestBoxedNumbersAndOperators(t *testing.T) {
	for _, v := range []float64{0, 1, -1, 1024, -1024, 1025, 0.5, math.Copysign(0, -1)} {
		b, ok := boxNumber(v).(float64)
		if !ok || b != v || math.Signbit(b) != math.Signbit(v) {
			t.Errorf("boxNumber(%v) = %v", v, b)
		}
	}
	for _, w := range []string{"Tj", "TJ", "re", "scn", "BDC", "sh", "d0", "xyz"} {
		if got := operator([]byte(w)); got != pop(w) {
			t.Errorf("operator(%q) = %v", w, got)
		}
	}
}
