package note

import (
	"fmt"
	"strings"
	"testing"
)

// mergeBenchNote returns a note of n body lines, with line i replaced by edit(i)
// where edit returns a non-empty string.
func mergeBenchNote(n int, edit func(i int) string) []byte {
	var b strings.Builder
	b.WriteString("---\ntitle: Bench\ntags: [a, b]\nstatus: draft\n---\n# Bench\n")
	for i := range n {
		if e := edit(i); e != "" {
			b.WriteString(e)
		} else {
			fmt.Fprintf(&b, "Line %d of the note, with a few words of text.", i)
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// BenchmarkMerge3 merges notes where both sides edit every 10th line (ours the
// lines ending in 0, theirs those ending in 5), and notes both sides rewrote
// entirely (the diff's worst case, a whole-body conflict).
func BenchmarkMerge3(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		base := mergeBenchNote(n, func(int) string { return "" })
		ours := mergeBenchNote(n, func(i int) string {
			if i%10 == 0 {
				return fmt.Sprintf("ours changed line %d", i)
			}
			return ""
		})
		theirs := mergeBenchNote(n, func(i int) string {
			if i%10 == 5 {
				return fmt.Sprintf("theirs changed line %d", i)
			}
			return ""
		})
		b.Run(fmt.Sprintf("apart/lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if m := Merge3(base, ours, theirs); !m.Clean() {
					b.Fatal(m.Conflicts)
				}
			}
		})
		oursAll := mergeBenchNote(n, func(i int) string { return fmt.Sprintf("ours %d", i) })
		theirsAll := mergeBenchNote(n, func(i int) string { return fmt.Sprintf("theirs %d", i) })
		b.Run(fmt.Sprintf("rewritten/lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if m := Merge3(base, oursAll, theirsAll); m.Clean() {
					b.Fatal("clean")
				}
			}
		})
	}
}
