package graph

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
)

// linkScaleSizes are the vault sizes of the link graph's scale benchmarks:
// 10,000 notes, and 100,000 with NORN_BENCH_100K set (building it takes minutes).
func linkScaleSizes() []int {
	if os.Getenv("NORN_BENCH_100K") != "" {
		return []int{10000, 100000}
	}
	return []int{10000}
}

// scaleIndex is an index rebuilt from n generated notes (scaleNotes), closed
// when b ends.
func scaleIndex(b *testing.B, n int) *Index {
	ix, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if err := ix.Rebuild(context.Background(), "c0", DocRecords(parsedSeq(scaleNotes(b, n))), nil); err != nil {
		b.Fatal(err)
	}
	return ix
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkLinkGraph_Heap reports the heap the loaded link graph holds
// (heap-MB, after a full collection) and the time to read it from its records,
// at 10,000 notes and (NORN_BENCH_100K) 100,000: what a server keeps for its
// link queries. With NORN_BENCH_LINK_INDEX set to a copy of a vault's index
// (.git/norn/index of a vault with the default settings, e.g. one made by
// ../shared/bench/scale_vault.py and norn init), it measures that index too.
func BenchmarkLinkGraph_Heap(b *testing.B) {
	for _, n := range linkScaleSizes() {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) { benchLinkHeap(b, scaleIndex(b, n)) })
	}
	if dir := os.Getenv("NORN_BENCH_LINK_INDEX"); dir != "" {
		b.Run("index", func(b *testing.B) {
			ix, err := Open(dir, Options{PrivateFolders: []string{"personal-notes/"}})
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			benchLinkHeap(b, ix)
		})
	}
}

func benchLinkHeap(b *testing.B, ix *Index) {
	var held uint64
	nodes := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		before := heapInUse()
		b.StartTimer()
		g, err := ix.loadLinks()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		held = heapInUse() - before
		nodes = len(g.nodes)
		runtime.KeepAlive(g)
		b.StartTimer()
	}
	b.ReportMetric(float64(held)/(1<<20), "heap-MB")
	b.ReportMetric(float64(held)/float64(nodes), "heap-B/node")
}
