package note

import (
	"fmt"
	"strings"
	"testing"
)

// TestTooFar checks the bound on a line diff's work: small or similar texts are
// diffed, a long text rewritten entirely is taken as one hunk.
func TestTooFar(t *testing.T) {
	seq := func(n int, from rune) []rune {
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = from + rune(i)
		}
		return rs
	}
	cases := []struct {
		name       string
		base, side []rune
		p, q       int
		ok         bool
	}{
		{"equal", seq(10, 0), seq(10, 0), 10, 0, true},
		{"insertion", seq(3, 0), append(seq(3, 0), 'x'), 3, 0, true},
		{"small rewrite", seq(100, 0), seq(100, 1000), 0, 0, true},
		{"long rewrite", seq(10000, 0), seq(10000, 20000), 0, 0, false},
		{"long rewrite between a prefix and suffix",
			append(append([]rune{'a'}, seq(10000, 100)...), 'z'),
			append(append([]rune{'a'}, seq(10000, 20000)...), 'z'), 1, 1, false},
		{"long, few changes", seq(10000, 0), append(append(seq(5000, 0), 0x10000), seq(4999, 5001)...), 5000, 4999, true},
	}
	for _, tc := range cases {
		p, q, ok := tooFar(tc.base, tc.side)
		if p != tc.p || q != tc.q || ok != tc.ok {
			t.Errorf("%s: tooFar = %d, %d, %v; want %d, %d, %v", tc.name, p, q, ok, tc.p, tc.q, tc.ok)
		}
	}
}

// TestMerge3_longRewrite checks that a long body rewritten on one side (too far
// apart to diff) merges cleanly with a frontmatter change on the other, and that
// rewritten on both sides it is one conflict keeping ours.
func TestMerge3_longRewrite(t *testing.T) {
	body := func(prefix string) string {
		var b strings.Builder
		for i := range 10000 {
			fmt.Fprintf(&b, "%s line %d\n", prefix, i)
		}
		return b.String()
	}
	base := "---\ntitle: A\n---\n" + body("base")
	ours := "---\ntitle: B\n---\n" + body("base")
	theirs := "---\ntitle: A\n---\n" + body("theirs")
	m := Merge3([]byte(base), []byte(ours), []byte(theirs))
	if want := "---\ntitle: B\n---\n" + body("theirs"); string(m.Bytes) != want || !m.Clean() {
		t.Fatalf("merge: clean %v, %d bytes, want %d", m.Clean(), len(m.Bytes), len(want))
	}
	ours = "---\ntitle: A\n---\n" + body("ours")
	m = Merge3([]byte(base), []byte(ours), []byte(theirs))
	if string(m.Bytes) != ours || len(m.Conflicts) != 1 || m.Conflicts[0].Line != 4 || m.Conflicts[0].Lines != 10000 {
		t.Fatalf("merge: %d conflicts %v", len(m.Conflicts), conflictSummary(m.Conflicts))
	}
}

// TestWithinDistance checks the bounded edit distance against the diff library's
// (insertions plus deletions of a minimal line diff).
func TestWithinDistance(t *testing.T) {
	texts := [][]rune{nil, []rune("a"), []rune("ab"), []rune("abc"), []rune("acb"), []rune("xaybzc"),
		[]rune("abababab"), []rune("babababa"), []rune("aaaa"), []rune("cba"), []rune("abcabcabc")}
	for _, a := range texts {
		for _, b := range texts {
			d := 0
			for _, h := range lineHunks(a, b, false) {
				d += (h.be - h.bs) + (h.se - h.ss)
			}
			for dmax := 0; dmax <= len(a)+len(b); dmax++ {
				if got := withinDistance(a, b, dmax); got != (d <= dmax) {
					t.Errorf("withinDistance(%q, %q, %d) = %v; the distance is %d", string(a), string(b), dmax, got, d)
				}
			}
		}
	}
}

// TestTooFar_fewDistinctLines: a long text rewritten with few distinct lines (a
// small lower bound, a large distance) is too far to diff.
func TestTooFar_fewDistinctLines(t *testing.T) {
	a, b := make([]rune, 30000), make([]rune, 30000)
	for i := range a {
		a[i] = rune('a' + i%2)
		b[i] = rune('a' + (i/2)%2)
	}
	if _, _, ok := tooFar(a, b); ok {
		t.Fatal("tooFar says ok for a 30,000-line rewrite")
	}
}
