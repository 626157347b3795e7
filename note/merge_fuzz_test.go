package note

import (
	"bytes"
	"testing"
)

// FuzzMerge3 checks the properties every merge has, whatever the input: no panic,
// no conflict markers, the identity cases, a frontmatter that parses, and no line
// lost: every line ours added (against base) is in the merge, and every line
// theirs added is in the merge or in a reported conflict.
func FuzzMerge3(f *testing.F) {
	for _, tc := range mergeCases {
		f.Add([]byte(tc.base), []byte(tc.ours), []byte(tc.theirs))
	}
	f.Add([]byte("a\nb\n"), []byte("<<<<<<< x\n"), []byte("a\n>>>>>>> y\n"))
	f.Add([]byte("\xef\xbb\xbf---\nt: 1\n---\nx\n"), []byte("---\nt: 2\n---\nx\r\n"), []byte("\xef\xbb\xbf---\nt: 1\nu: [a]\n---\ny"))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		m := Merge3(base, ours, theirs)
		checkMergeInvariants(t, base, ours, theirs, m)
		if again := Merge3(base, ours, theirs); !bytes.Equal(again.Bytes, m.Bytes) || len(again.Conflicts) != len(m.Conflicts) {
			t.Fatalf("merge is not deterministic: %q then %q", m.Bytes, again.Bytes)
		}
		if x := Merge3(base, theirs, theirs); !bytes.Equal(x.Bytes, theirs) {
			t.Fatalf("merge(base, x, x) = %q, want %q", x.Bytes, theirs)
		}
		if x := Merge3(base, base, theirs); !bytes.Equal(x.Bytes, theirs) {
			t.Fatalf("merge(base, base, x) = %q, want %q", x.Bytes, theirs)
		}
		if x := Merge3(base, ours, base); !bytes.Equal(x.Bytes, ours) {
			t.Fatalf("merge(base, x, base) = %q, want %q", x.Bytes, ours)
		}
		_, errO := checkEdit(ours)
		_, errT := checkEdit(theirs)
		if _, perr := checkEdit(m.Bytes); perr != nil && errO == nil && errT == nil {
			t.Fatalf("merged frontmatter does not parse: %v\n%q", perr, m.Bytes)
		}
		if hasConflict(m, ConflictWhole) {
			return
		}
		if hasBlock(base) || hasBlock(ours) || hasBlock(theirs) {
			checkFieldMerge(t, base, ours, theirs, m)
			return // frontmatter merges by value, not by line
		}
		merged := lineCounts(m.Bytes)
		b, o, th := lineCounts(base), lineCounts(ours), lineCounts(theirs)
		var reported []byte
		for _, c := range m.Conflicts {
			reported = append(reported, c.Theirs...)
		}
		rep := lineCounts(reported)
		for x, n := range o {
			if n-b[x] > merged[x] {
				t.Fatalf("ours added %q %d times, the merge has it %d times\n%q", x, n-b[x], merged[x], m.Bytes)
			}
		}
		for x, n := range th {
			if n-b[x] > merged[x] && rep[x] == 0 {
				t.Fatalf("theirs added %q, the merge lost it\nmerge %q\nconflicts %+v", x, m.Bytes, m.Conflicts)
			}
		}
	})
}

func hasConflict(m Merge, k ConflictKind) bool {
	for _, c := range m.Conflicts {
		if c.Kind == k {
			return true
		}
	}
	return false
}

func hasBlock(raw []byte) bool {
	b, perr := findBlock("", raw)
	return perr != nil || b.found
}

// lineCounts counts each line's text (line breaks aside).
func lineCounts(b []byte) map[string]int {
	out := map[string]int{}
	for _, l := range splitLines(b) {
		out[l.text]++
	}
	return out
}

// checkFieldMerge checks every frontmatter key of a merge against the three-way
// rule: unchanged on theirs (or the same on both) → ours' value; unchanged on ours
// → theirs'; changed differently → ours' value and a field conflict, unless both
// are lists (then the merged list holds what both added and not what either
// removed).
func checkFieldMerge(t *testing.T, base, ours, theirs []byte, m Merge) {
	t.Helper()
	sb, so, st, sm := splitNote(base, "b"), splitNote(ours, "o"), splitNote(theirs, "t"), splitNote(m.Bytes, "m")
	for _, s := range []*side{sb, so, st} {
		if s.err != nil || s.fmErr != nil {
			return // merged only when the broken block was left alone
		}
	}
	if sm.err != nil || sm.fmErr != nil {
		t.Fatalf("merged note's frontmatter: %v %v", sm.err, sm.fmErr)
	}
	conflicted := map[string]bool{}
	for _, c := range m.Conflicts {
		if c.Kind == ConflictField {
			conflicted[c.Key] = true
		}
	}
	for _, k := range unionKeys(so.fm, st.fm) {
		bv, bok := sb.fm.get(k)
		ov, ook := so.fm.get(k)
		tv, tok := st.fm.get(k)
		mv, mok := sm.fm.get(k)
		eq := func(x any, xok bool, y any, yok bool) bool { return xok == yok && (!xok || sameValue(x, y)) }
		switch {
		case eq(ov, ook, tv, tok), eq(tv, tok, bv, bok), conflicted[k]:
			if !eq(mv, mok, ov, ook) {
				t.Fatalf("key %q: merged %v, want ours %v", k, mv, ov)
			}
		case eq(ov, ook, bv, bok):
			if !eq(mv, mok, tv, tok) {
				t.Fatalf("key %q: merged %v, want theirs %v", k, mv, tv)
			}
		case k == updatedKey && (isLater(ov, tv) || isLater(tv, ov)):
			if !isLater(mv, ov) || !isLater(mv, tv) {
				t.Fatalf("key %q: merged %v, want the later of %v and %v", k, mv, ov, tv)
			}
		default:
			ml, ok := mv.([]any)
			if !ok {
				t.Fatalf("key %q changed on both sides: merged %v and no conflict", k, mv)
			}
			bl, _ := bv.([]any)
			for _, side := range [][]any{ov.([]any), tv.([]any)} {
				for _, x := range side {
					if !slicesHas(bl, x) && !slicesHas(ml, x) {
						t.Fatalf("key %q: added item %v lost: %v", k, x, ml)
					}
				}
				for _, x := range bl {
					if !slicesHas(side, x) && slicesHas(ml, x) {
						t.Fatalf("key %q: removed item %v kept: %v", k, x, ml)
					}
				}
			}
		}
	}
}

func slicesHas(l []any, x any) bool {
	for _, y := range l {
		if sameValue(x, y) {
			return true
		}
	}
	return false
}
