package graph

import (
	"iter"
	"maps"
	"slices"
)

// keyIDs maps string keys to the ids (resolver entries, graph nodes) that have
// them, for the lookup tables the link graph keeps for its whole life. Most keys
// have exactly one id, which the map holds itself; a key with more holds the
// place of its list in lists. No slice per key: at 100,000 notes that is some
// 10 MB less than a map[string][]int32.
//
// A key's ids keep the order they were added in. The zero keyIDs is not usable:
// make one with newKeyIDs.
type keyIDs struct {
	m     map[string]int32 // an id, or ^i for lists[i]
	lists [][]int32        // at least two ids each; nil when free
	free  []int32          // places in lists that are free
}

func newKeyIDs(size int) keyIDs { return keyIDs{m: make(map[string]int32, size)} }

// add appends id to key's ids.
func (k *keyIDs) add(key string, id int32) {
	v, ok := k.m[key]
	switch {
	case !ok:
		k.m[key] = id
	case v >= 0:
		k.m[key] = ^k.newList([]int32{v, id})
	default:
		k.lists[^v] = append(k.lists[^v], id)
	}
}

func (k *keyIDs) newList(s []int32) int32 {
	if n := len(k.free); n > 0 {
		i := k.free[n-1]
		k.free = k.free[:n-1]
		k.lists[i] = s
		return i
	}
	k.lists = append(k.lists, s)
	return int32(len(k.lists) - 1)
}

// remove takes every occurrence of id out of key's ids.
func (k *keyIDs) remove(key string, id int32) {
	v, ok := k.m[key]
	switch {
	case !ok:
	case v >= 0:
		if v == id {
			delete(k.m, key)
		}
	default:
		s := slices.DeleteFunc(k.lists[^v], func(x int32) bool { return x == id })
		if len(s) > 1 {
			k.lists[^v] = s
			return
		}
		k.lists[^v] = nil
		k.free = append(k.free, ^v)
		if len(s) == 1 {
			k.m[key] = s[0]
		} else {
			delete(k.m, key)
		}
	}
}

// get returns key's ids, nil when it has none. A single id is returned in one's
// room; the answer is read-only and good until the next change.
func (k *keyIDs) get(key string, one *[1]int32) []int32 {
	v, ok := k.m[key]
	switch {
	case !ok:
		return nil
	case v >= 0:
		one[0] = v
		return one[:]
	}
	return k.lists[^v]
}

// ids yields key's ids (get, for a range loop).
func (k *keyIDs) ids(key string) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		var one [1]int32
		for _, id := range k.get(key, &one) {
			if !yield(id) {
				return
			}
		}
	}
}

// clone copies k so that changing either leaves the other as it was: the lists
// are copied into one shared array, each capped at its length so that appending
// to one reallocates it.
func (k *keyIDs) clone() keyIDs {
	n := 0
	for _, s := range k.lists {
		n += len(s)
	}
	flat := make([]int32, 0, n)
	lists := make([][]int32, len(k.lists))
	for i, s := range k.lists {
		if s != nil {
			start := len(flat)
			flat = append(flat, s...)
			lists[i] = flat[start:len(flat):len(flat)]
		}
	}
	return keyIDs{m: maps.Clone(k.m), lists: lists, free: slices.Clone(k.free)}
}
