package engine

// rng is splitmix64: tiny, fast, allocation-free, and defined by this code
// alone, so a seed gives the same numbers on every machine and Go release.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// upTo returns a number in [0, n]; n <= 0 gives 0 and draws nothing, so a
// scenario without jitter consumes no randomness.
func (r *rng) upTo(n int64) int64 {
	if n <= 0 {
		return 0
	}
	return int64(r.next() % uint64(n+1))
}

// chance reports true with probability ppm/1e6; 0 draws nothing.
func (r *rng) chance(ppm int64) bool {
	if ppm <= 0 {
		return false
	}
	return int64(r.next()%1_000_000) < ppm
}
