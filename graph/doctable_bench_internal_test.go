package graph

import (
	"fmt"
	"testing"

	"github.com/norn-vault/norn/note"
)

// BenchmarkDocTableRefresh measures what every Update pays after writing: the
// norms of every doc (private docs cost nothing more: the public view works its
// norms out for the postings it reads).
func BenchmarkDocTableRefresh(b *testing.B) {
	w := DefaultWeights()
	for _, private := range []int{0, 10} {
		b.Run(fmt.Sprintf("notes=100000/private=%d%%", private), func(b *testing.B) {
			t := newDocTable(nil)
			for i := range 100000 {
				r := docRecord{path: note.Path(fmt.Sprintf("f%d/n%d.md", i%10, i)), private: private > 0 && i%100 < private}
				for f := range r.lens {
					r.lens[f] = uint32(1 + (i*7+f*13)%500)
				}
				t.set(uint32(i), r)
				t.stats.docs++
				for f := range r.lens {
					t.stats.total[f] += uint64(r.lens[f])
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				t.refresh(&w)
			}
			b.ReportMetric(float64(4*len(t.norm))/(1<<20), "norm-MiB")
		})
	}
}
