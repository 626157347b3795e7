package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeyIDs_MatchesMapOfSlices: random adds and removes over a few keys leave
// keyIDs holding, for every key, what a map[string][]int32 holds (ids in order,
// absent keys nil), and a clone taken midway stays as it was while the original
// changes (and the other way round).
func TestKeyIDs_MatchesMapOfSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	k := newKeyIDs(0)
	ref := map[string][]int32{}
	var frozen keyIDs
	var frozenRef map[string][]int32
	check := func(step int, k *keyIDs, ref map[string][]int32) {
		t.Helper()
		var one [1]int32
		for i := range 8 {
			key := fmt.Sprint("k", i)
			got := k.get(key, &one)
			if !slices.Equal(got, ref[key]) || (got == nil) != (ref[key] == nil) {
				t.Fatalf("step %d: %s = %v, want %v", step, key, got, ref[key])
			}
			var seq []int32
			for id := range k.ids(key) {
				seq = append(seq, id)
			}
			if !slices.Equal(seq, ref[key]) {
				t.Fatalf("step %d: ids(%s) = %v, want %v", step, key, seq, ref[key])
			}
		}
		if len(k.m) != len(ref) {
			t.Fatalf("step %d: %d keys, want %d", step, len(k.m), len(ref))
		}
	}
	for step := range 5000 {
		key, id := fmt.Sprint("k", rng.IntN(8)), int32(rng.IntN(6))
		if rng.IntN(3) == 0 {
			k.remove(key, id)
			s := slices.DeleteFunc(ref[key], func(x int32) bool { return x == id })
			if len(s) == 0 {
				delete(ref, key)
			} else {
				ref[key] = s
			}
		} else {
			k.add(key, id)
			ref[key] = append(ref[key], id)
		}
		check(step, &k, ref)
		if step == 2500 {
			frozen = k.clone()
			frozenRef = map[string][]int32{}
			for key, s := range ref {
				frozenRef[key] = slices.Clone(s)
			}
			frozen.add("k0", 99)
			frozenRef["k0"] = append(frozenRef["k0"], 99)
		}
		if step > 2500 {
			check(step, &frozen, frozenRef)
		}
	}
	if len(k.lists) > 8 {
		t.Errorf("%d lists for 8 keys: free places are not reused", len(k.lists))
	}
}
