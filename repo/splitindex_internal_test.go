package repo

import (
	"bytes"
	"fmt"
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

// TestGitIndex_SplitDiffIncremental: the split index encoded from the difference
// kept up to date write by write equals the one encoded from scratch (every name
// compared with the shared index), over random puts, stat refreshes and removals.
func TestGitIndex_SplitDiffIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	name := func(i int) string { return fmt.Sprintf("f%02d/n%04d.md", i%13, i) }
	x := &gitIndex{split: true}
	for i := range 1200 {
		x.set(idxEntry{name: name(i), mode: 0o100644, size: uint32(i)})
	}
	sh := &sharedIndex{entries: append([]idxEntry(nil), x.entries...)}
	sh.id[0] = 1
	x.shared, x.stale = sh, nil
	for step := range 2000 {
		switch i := rng.IntN(1500); rng.IntN(4) {
		case 0:
			x.remove(name(i))
		case 1:
			if j, ok := x.find(name(i)); ok {
				x.entries[j].mtimeS = uint32(step)
				x.touch(name(i))
			}
		default:
			x.set(idxEntry{name: name(i), mode: 0o100644, size: uint32(rng.IntN(3))})
		}
		if rng.IntN(5) != 0 {
			continue
		}
		x.refreshDiff(sh)
		got := encodeSplit(nil, sh, x.diff, x.added)
		fresh := &gitIndex{split: true, entries: x.entries, stale: map[string]struct{}{}}
		for _, e := range x.entries {
			fresh.stale[e.name] = struct{}{}
		}
		for _, e := range sh.entries {
			fresh.stale[e.name] = struct{}{}
		}
		fresh.refreshDiff(sh)
		if want := encodeSplit(nil, sh, fresh.diff, fresh.added); !bytes.Equal(got, want) {
			t.Fatalf("step %d: incremental split index (%d bytes) differs from scratch (%d bytes)", step, len(got), len(want))
		}
	}
}
