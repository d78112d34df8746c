package optimizer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStdRngVectors checks the generator against rand 0.10's own test
// vectors (src/rngs/std.rs): the key stream of the zero seed, and the
// first u64 (two words, low first) of a given seed.
func TestStdRngVectors(t *testing.T) {
	t.Parallel()
	r := &stdRng{next: 64}
	r.state[0], r.state[1], r.state[2], r.state[3] = 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574
	require.Equal(t, []uint32{0x6a9af49b, 0x53f95507, 0x12ce1f81, 0xd583265f, 0xbbc32904, 0x1474e049, 0xa589007e, 0x5f15ae2e},
		[]uint32{r.u32(), r.u32(), r.u32(), r.u32(), r.u32(), r.u32(), r.u32(), r.u32()})

	seeded := &stdRng{next: 64, state: r.state}
	seeded.state[12], seeded.state[13] = 0, 0
	for i, w := range []uint32{1, 23, 456, 7890, 0, 0, 0, 0} {
		seeded.state[4+i] = w
	}
	lo := uint64(seeded.u32())
	require.Equal(t, uint64(10719222850664546238), uint64(seeded.u32())<<32|lo)
}

func TestShuffleIsAPermutation(t *testing.T) {
	t.Parallel()
	r := newStdRng(DefaultSeed)
	for n := range 40 {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		r.shuffle(s)
		seen := make([]bool, n)
		for _, v := range s {
			require.False(t, seen[v])
			seen[v] = true
		}
	}
	require.Equal(t, uint32(479001600), func() uint32 { b, k := chunkBound(1); require.Equal(t, 12, k); return b }())
}
