package lang

import (
	"math"
	"math/big"
)

// CPython's random.gauss calls the C library's log, cos and sin, whose results are correctly
// rounded for practically every argument; Go's math package is accurate to about one ulp and
// differs from them on some 40% of the values gauss() sees. The smoothing jitter of every
// langdetect trial comes from these values, so they are computed here in high precision and
// rounded once.

const exactPrec = 160

var (
	bigPi  = mustBig("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798")
	bigLn2 = mustBig("0.69314718055994530941723212145817656807550013436025525412068000949339362196969471560586332699641868754")
)

func mustBig(s string) *big.Float {
	f, _, err := big.ParseFloat(s, 10, exactPrec, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return f
}

func newBig() *big.Float { return new(big.Float).SetPrec(exactPrec) }

// exactLog returns log(x), correctly rounded, for finite x > 0.
func exactLog(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return math.Log(x)
	}
	if x == 1 {
		return 0
	}
	// x = m·2^e with m in [1/√2, √2): log x = e·ln2 + 2·atanh((m-1)/(m+1)), |z| ≤ 0.172.
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	bm := newBig().SetFloat64(m)
	num := newBig().Sub(bm, big.NewFloat(1))
	den := newBig().Add(bm, big.NewFloat(1))
	z := newBig().Quo(num, den)
	z2 := newBig().Mul(z, z)
	sum := newBig().Set(z)
	term := newBig().Set(z)
	t := newBig()
	eps := newBig().SetMantExp(big.NewFloat(1), -exactPrec-8)
	for k := int64(3); ; k += 2 {
		term.Mul(term, z2)
		t.Quo(term, newBig().SetInt64(k))
		if t.Sign() == 0 || new(big.Float).Abs(t).Cmp(eps) < 0 {
			break
		}
		sum.Add(sum, t)
	}
	sum.Mul(sum, big.NewFloat(2))
	sum.Add(sum, newBig().Mul(bigLn2, newBig().SetInt64(int64(e))))
	f, _ := sum.Float64()
	return f
}

// exactSinCos returns sin(x) and cos(x), each correctly rounded, for 0 ≤ x < 8 (gauss only
// passes arguments in [0, 2π)).
func exactSinCos(x float64) (sin, cos float64) {
	if !(x >= 0 && x < 8) {
		return math.Sin(x), math.Cos(x)
	}
	if x == 0 {
		return 0, 1
	}
	// Reduce by the nearest multiple of π/2: t = x - q·π/2, |t| ≤ π/4.
	halfPi := newBig().Quo(bigPi, big.NewFloat(2))
	q := int64(math.Floor(x/(math.Pi/2) + 0.5))
	t := newBig().SetFloat64(x)
	t.Sub(t, newBig().Mul(halfPi, newBig().SetInt64(q)))
	t2 := newBig().Mul(t, t)
	eps := newBig().SetMantExp(big.NewFloat(1), -exactPrec-8)

	// Taylor series, alternating signs.
	s := newBig().Set(t)
	term := newBig().Set(t)
	for k := int64(2); ; k += 2 {
		term.Mul(term, t2)
		term.Quo(term, newBig().SetInt64(k*(k+1)))
		term.Neg(term)
		if term.Sign() == 0 || new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
		s.Add(s, term)
	}
	c := newBig().SetInt64(1)
	term.SetInt64(1)
	for k := int64(1); ; k += 2 {
		term.Mul(term, t2)
		term.Quo(term, newBig().SetInt64(k*(k+1)))
		term.Neg(term)
		if term.Sign() == 0 || new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
		c.Add(c, term)
	}
	switch q & 3 {
	case 1:
		s, c = c, s.Neg(s)
	case 2:
		s.Neg(s)
		c.Neg(c)
	case 3:
		s, c = c.Neg(c), s
	}
	sin, _ = s.Float64()
	cos, _ = c.Float64()
	return sin, cos
}
