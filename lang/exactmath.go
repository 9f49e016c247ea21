package lang

import (
	"math"
	"math/big"
)

// CPython's random.gauss calls the C library's log, cos and sin, whose results are correctly
// rounded for practically every argument; Go's math package is accurate to about one ulp and
// differs from them on some 40% of the values gauss() sees. The smoothing jitter of every
// langdetect trial comes from these values, so they are computed here in high precision and
// rounded once. The fast path evaluates them in double-double arithmetic (about 100 bits) and
// keeps the result when that error bound cannot change the rounding (Ziv's strategy); the rare
// undecided cases are recomputed with math/big.

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

// bigLog returns log(x), correctly rounded, for finite x > 0, in multi-precision arithmetic.
func bigLog(x float64) float64 {
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

// bigSinCos returns sin(x) and cos(x), each correctly rounded, for 0 ≤ x < 8, in
// multi-precision arithmetic.
func bigSinCos(x float64) (sin, cos float64) {
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

// dd is an unevaluated sum hi+lo of two doubles with |lo| ≤ ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func ddAdd(a, b dd) dd {
	s1, s2 := twoSum(a.hi, b.hi)
	t1, t2 := twoSum(a.lo, b.lo)
	s2 += t1
	r := quickTwoSum(s1, s2)
	r.lo += t2
	return quickTwoSum(r.hi, r.lo)
}

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	e += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p, e)
}

func ddMulF(a dd, b float64) dd {
	p := a.hi * b
	e := math.FMA(a.hi, b, -p)
	e += a.lo * b
	return quickTwoSum(p, e)
}

func ddDiv(a, b dd) dd {
	q1 := a.hi / b.hi
	r := ddAdd(a, ddMulF(b, -q1))
	q2 := r.hi / b.hi
	r = ddAdd(r, ddMulF(b, -q2))
	q3 := r.hi / b.hi
	q := quickTwoSum(q1, q2)
	return ddAdd(q, dd{q3, 0})
}

// ddConst rounds a multi-precision constant to double-double.
func ddConst(f *big.Float) dd {
	hi, _ := f.Float64()
	lo, _ := new(big.Float).SetPrec(exactPrec).Sub(f, new(big.Float).SetFloat64(hi)).Float64()
	return dd{hi, lo}
}

// Series coefficients: 1/(2k+1) for atanh, ±1/n! for sin and cos, and π/2 in three parts for
// the argument reduction.
var (
	ddLn2      = ddConst(bigLn2)
	ddOddInv   [24]dd
	ddSinCoef  [16]dd // (-1)^k / (2k+1)!
	ddCosCoef  [16]dd // (-1)^k / (2k)!
	halfPiPart [3]float64
)

func init() {
	for k := range ddOddInv {
		ddOddInv[k] = ddConst(newBig().Quo(big.NewFloat(1), newBig().SetInt64(int64(2*k+1))))
	}
	fact := newBig().SetInt64(1)
	for n := int64(0); n < 2*int64(len(ddSinCoef)); n++ {
		if n > 0 {
			fact.Mul(fact, newBig().SetInt64(n))
		}
		c := newBig().Quo(big.NewFloat(1), fact)
		if (n/2)%2 == 1 {
			c.Neg(c)
		}
		if n%2 == 0 {
			ddCosCoef[n/2] = ddConst(c)
		} else {
			ddSinCoef[n/2] = ddConst(c)
		}
	}
	rest := newBig().Quo(bigPi, big.NewFloat(2))
	for i := range halfPiPart {
		halfPiPart[i], _ = rest.Float64()
		rest.Sub(rest, newBig().SetFloat64(halfPiPart[i]))
	}
}

// roundDD returns the double nearest to a value known to lie within err of v.hi+v.lo, and false
// when that interval holds a rounding boundary.
func roundDD(v dd, err float64) (float64, bool) {
	a := v.hi + (v.lo - 2*err)
	b := v.hi + (v.lo + 2*err)
	return a, a == b
}

// exactLog returns log(x), correctly rounded, for finite x > 0.
func exactLog(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return math.Log(x)
	}
	if x == 1 {
		return 0
	}
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	num := dd{m - 1, 0} // exact: m and 1 are within a factor of two
	den := quickTwoSum(twoSum(m, 1))
	z := ddDiv(num, den)
	z2 := ddMul(z, z)
	// 2·atanh(z) = 2·Σ z^(2k+1)/(2k+1), |z| ≤ 0.1716: 22 terms reach 2^-112.
	sum := ddOddInv[len(ddOddInv)-1]
	for k := len(ddOddInv) - 2; k >= 0; k-- {
		sum = ddAdd(ddMul(sum, z2), ddOddInv[k])
	}
	v := ddMulF(ddMul(sum, z), 2)
	v = ddAdd(v, ddMulF(ddLn2, float64(e)))
	if r, ok := roundDD(v, math.Abs(v.hi)*0x1p-95); ok {
		return r
	}
	return bigLog(x)
}

// exactSinCos returns sin(x) and cos(x), each correctly rounded, for 0 ≤ x < 8 (gauss only
// passes arguments in [0, 2π)).
func exactSinCos(x float64) (sin, cos float64) {
	if !(x > 0 && x < 8) {
		return bigSinCos(x)
	}
	q := math.Floor(x/(math.Pi/2) + 0.5)
	// t = x - q·π/2; q ≤ 5, so each q·part is exact in two doubles.
	t := dd{x, 0}
	for _, p := range halfPiPart {
		hi := q * p
		lo := math.FMA(q, p, -hi)
		t = ddAdd(t, dd{-hi, -lo})
	}
	t2 := ddMul(t, t)
	s := ddSinCoef[len(ddSinCoef)-1]
	c := ddCosCoef[len(ddCosCoef)-1]
	for k := len(ddSinCoef) - 2; k >= 0; k-- {
		s = ddAdd(ddMul(s, t2), ddSinCoef[k])
		c = ddAdd(ddMul(c, t2), ddCosCoef[k])
	}
	s = ddMul(s, t)
	switch int(q) & 3 {
	case 1:
		s, c = c, dd{-s.hi, -s.lo}
	case 2:
		s, c = dd{-s.hi, -s.lo}, dd{-c.hi, -c.lo}
	case 3:
		s, c = dd{-c.hi, -c.lo}, s
	}
	// The reduction leaves an absolute error near 2^-155 (π/2 to 159 bits, times q).
	rs, ok1 := roundDD(s, math.Abs(s.hi)*0x1p-95+0x1p-150)
	rc, ok2 := roundDD(c, math.Abs(c.hi)*0x1p-95+0x1p-150)
	if ok1 && ok2 {
		return rs, rc
	}
	return bigSinCos(x)
}
