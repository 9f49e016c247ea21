package lang

import "math"

// pyRandom reproduces the parts of CPython's random.Random that langdetect uses, bit for bit:
// the reference seeds it with 0 before every detection, so the n-grams it samples and the
// smoothing jitter it draws are fixed, and matching its answers on borderline texts needs the
// same stream (MT19937 seeded by init_by_array, random(), gauss() with its cached second value,
// and choice() through _randbelow/getrandbits).
type pyRandom struct {
	mt        [624]uint32
	index     int
	gaussNext float64
	hasGauss  bool
}

const (
	mtN       = 624
	mtM       = 397
	mtMatrixA = 0x9908b0df
	mtUpper   = 0x80000000
	mtLower   = 0x7fffffff
)

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.index = mtN
}

// initByArray is MT19937's init_by_array, which CPython uses for every integer seed (the seed's
// 32-bit words, least significant first; 0 is the one-word key [0]).
func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(mtN, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = mtN - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
	r.index = mtN
}

// seed is random.seed(n) for a non-negative integer n that fits in 64 bits.
func (r *pyRandom) seed(n uint64) {
	key := []uint32{uint32(n)}
	if n>>32 != 0 {
		key = append(key, uint32(n>>32))
	}
	r.initByArray(key)
	r.hasGauss = false
}

func (r *pyRandom) uint32() uint32 {
	if r.index >= mtN {
		for k := 0; k < mtN; k++ {
			y := r.mt[k]&mtUpper | r.mt[(k+1)%mtN]&mtLower
			v := r.mt[(k+mtM)%mtN] ^ y>>1
			if y&1 != 0 {
				v ^= mtMatrixA
			}
			r.mt[k] = v
		}
		r.index = 0
	}
	y := r.mt[r.index]
	r.index++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// random is random.random(): 53 bits from two draws.
func (r *pyRandom) random() float64 {
	a := r.uint32() >> 5
	b := r.uint32() >> 6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// gauss is random.gauss(0, 1): Box–Muller with the sine half kept for the next call.
func (r *pyRandom) gauss() float64 {
	if r.hasGauss {
		r.hasGauss = false
		return r.gaussNext
	}
	x2pi := r.random() * (2.0 * math.Pi)
	g2rad := math.Sqrt(-2.0 * exactLog(1.0-r.random()))
	sin, cos := exactSinCos(x2pi)
	r.gaussNext = sin * g2rad
	r.hasGauss = true
	return cos * g2rad
}

// randBelow is _randbelow_with_getrandbits(n) for 0 < n < 2^32: rejection sampling on
// getrandbits(n.bit_length()), one 32-bit draw per attempt.
func (r *pyRandom) randBelow(n int) int {
	k := 0
	for v := uint32(n); v != 0; v >>= 1 {
		k++
	}
	for {
		v := int(r.uint32() >> (32 - k))
		if v < n {
			return v
		}
	}
}
