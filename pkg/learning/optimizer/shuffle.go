package optimizer

import "math/bits"

// stdRng is the random generator fsrs-rs orders its batches with: Rust
// rand 0.10's StdRng, ChaCha with 12 rounds (RustCrypto chacha20 0.10,
// 64-bit block counter, zero nonce), seeded by rand_core's seed_from_u64
// (PCG32 output words as the key). With it [Fit] visits the batches of each
// epoch in the order fsrs-rs does for the same seed.
type stdRng struct {
	state [16]uint32
	buf   [64]uint32 // four blocks, as rand's BlockRng buffers them
	next  int
}

func newStdRng(seed uint64) *stdRng {
	r := &stdRng{next: 64}
	r.state[0], r.state[1], r.state[2], r.state[3] = 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574
	for i := 4; i < 12; i++ {
		seed = seed*0x5851f42d4c957f2d + 0xa17654e46fbe17f3
		x := uint32(((seed >> 18) ^ seed) >> 27)
		r.state[i] = bits.RotateLeft32(x, -int(seed>>59))
	}
	return r
}

// u32 returns the next 32-bit word of the key stream.
func (r *stdRng) u32() uint32 {
	if r.next == len(r.buf) {
		for b := range 4 {
			r.block(r.buf[b*16 : (b+1)*16])
		}
		r.next = 0
	}
	r.next++
	return r.buf[r.next-1]
}

// block writes the ChaCha12 block of the current counter to out and
// advances the counter.
func (r *stdRng) block(out []uint32) {
	x := r.state
	qr := func(a, b, c, d int) {
		x[a] += x[b]
		x[d] = bits.RotateLeft32(x[d]^x[a], 16)
		x[c] += x[d]
		x[b] = bits.RotateLeft32(x[b]^x[c], 12)
		x[a] += x[b]
		x[d] = bits.RotateLeft32(x[d]^x[a], 8)
		x[c] += x[d]
		x[b] = bits.RotateLeft32(x[b]^x[c], 7)
	}
	for range 6 {
		qr(0, 4, 8, 12)
		qr(1, 5, 9, 13)
		qr(2, 6, 10, 14)
		qr(3, 7, 11, 15)
		qr(0, 5, 10, 15)
		qr(1, 6, 11, 12)
		qr(2, 7, 8, 13)
		qr(3, 4, 9, 14)
	}
	for i := range out {
		out[i] = x[i] + r.state[i]
	}
	ctr := uint64(r.state[13])<<32 | uint64(r.state[12]) + 1
	r.state[12], r.state[13] = uint32(ctr), uint32(ctr>>32)
}

// below returns a number in [0, bound) as rand's random_range(..bound) for
// u32 does (Canon's method: one widening multiply, a second word only when
// the first's low half could carry).
func (r *stdRng) below(bound uint32) uint32 {
	hi, lo := bits.Mul32(r.u32(), bound)
	if lo > -bound {
		newHi, _ := bits.Mul32(r.u32(), bound)
		if _, carry := bits.Add32(lo, newHi, 0); carry != 0 {
			hi++
		}
	}
	return hi
}

// shuffle permutes s as rand's SliceRandom::shuffle does: Fisher-Yates
// from the front, element i swapped with one drawn from [0, i], the draws
// taken several at a time from one word (rand's IncreasingUniform).
func (r *stdRng) shuffle(s []int) {
	if len(s) <= 1 {
		return
	}
	var n, chunk uint32
	remaining := 1 // the first draw, from [0, 0], needs no word
	for i := range s {
		next := n + 1
		if remaining == 0 {
			var bound uint32
			bound, remaining = chunkBound(next)
			chunk = r.below(bound)
		}
		remaining--
		var j uint32
		if remaining == 0 {
			j = chunk
		} else {
			j = chunk % next
			chunk /= next
		}
		n = next
		s[i], s[j] = s[j], s[i]
	}
}

// chunkBound returns m (m+1) ... (m+k-1), the longest such product that
// fits in 32 bits, and k.
func chunkBound(m uint32) (uint32, int) {
	product, current := m, m+1
	for {
		hi, lo := bits.Mul32(product, current)
		if hi != 0 {
			return product, int(current - m)
		}
		product, current = lo, current+1
	}
}
