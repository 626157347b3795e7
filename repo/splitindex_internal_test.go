package repo

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEWAH_RoundTrip: bitmaps of random positions (dense runs, long gaps, none)
// decode to the positions encoded.
func TestEWAH_RoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := [][]uint32{nil, {0}, {63}, {64}, {0, 1, 2, 3, 64, 65, 200000}, {5, 1 << 30}}
	for range 200 {
		var ps []uint32
		p := uint32(0)
		for range rng.IntN(300) {
			switch rng.IntN(3) {
			case 0:
				p += 1
			case 1:
				p += uint32(rng.IntN(64))
			default:
				p += uint32(rng.IntN(100000))
			}
			if len(ps) == 0 || ps[len(ps)-1] != p {
				ps = append(ps, p)
			}
		}
		cases = append(cases, ps)
	}
	for _, want := range cases {
		b := appendEWAH(nil, want)
		got, n, err := readEWAH(b)
		if err != nil || n != len(b) || !slices.Equal(got, want) {
			t.Fatalf("round trip of %v: %v (%d of %d bytes, %v)", want, got, n, len(b), err)
		}
	}
}
