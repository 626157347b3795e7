package note

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// conflictSummary renders conflicts as "kind:key@line+n" for table comparisons.
func conflictSummary(cs []Conflict) string {
	var parts []string
	for _, c := range cs {
		switch c.Kind {
		case ConflictField:
			parts = append(parts, fmt.Sprintf("field:%s", c.Key))
		case ConflictLines:
			parts = append(parts, fmt.Sprintf("lines@%d+%d", c.Line, c.Lines))
		default:
			parts = append(parts, string(c.Kind))
		}
	}
	return strings.Join(parts, " ")
}

// body is the base body most merge cases edit.
const body = "a\nb\nc\nd\ne\n"

// mergeCases are the table of TestMerge3 and the seeds of FuzzMerge3.
var mergeCases = []struct {
	name                string
	base, ours, theirs  string
	want, wantConflicts string
}{
	{"ours only", body, "a\nB\nc\nd\ne\n", body, "a\nB\nc\nd\ne\n", ""},
	{"theirs only", body, body, "a\nb\nc\nD\ne\n", "a\nb\nc\nD\ne\n", ""},
	{"identical changes", body, "a\nX\nc\nd\ne\n", "a\nX\nc\nd\ne\n", "a\nX\nc\nd\ne\n", ""},
	{"apart", body, "a\nB\nc\nd\ne\n", "a\nb\nc\nD\ne\n", "a\nB\nc\nD\ne\n", ""},
	{"adjacent lines", body, "a\nB\nc\nd\ne\n", "a\nb\nC\nd\ne\n", "a\nB\nC\nd\ne\n", ""},
	{"same change amid others", body, "A\nX\nc\nd\ne\n", "a\nX\nc\nd\nE\n", "A\nX\nc\nd\nE\n", ""},
	{"line-aligned edits", body, "A\nB\nC\nd\ne\n", "a\nb\nC\nD\ne\n", "A\nB\nC\nD\ne\n", ""},
	{"line-aligned, one line differs", body, "A\nB\nc\nd\ne\n", "a\nX\nC\nd\ne\n", "A\nB\nC\nd\ne\n", "lines@2+1"},
	{"delete honoured", body, "a\nb\nd\ne\n", "A\nb\nc\nd\ne\n", "A\nb\nd\ne\n", ""},
	{"delete on theirs", body, "a\nb\nc\nd\nE\n", "a\nc\nd\ne\n", "a\nc\nd\nE\n", ""},
	{"both delete same", body, "a\nc\nd\nE\n", "a\nc\nD\ne\n", "a\nc\nD\nE\n", ""},
	{"inserts apart", body, "a\nx\nb\nc\nd\ne\n", "a\nb\nc\nd\ny\ne\n", "a\nx\nb\nc\nd\ny\ne\n", ""},
	{"insert beside a change", body, "a\nx\nb\nc\nd\ne\n", "a\nB\nc\nd\ne\n", "a\nx\nB\nc\nd\ne\n", ""},
	{"same line differently", body, "a\nX\nc\nd\ne\n", "a\nY\nc\nd\ne\n", "a\nX\nc\nd\ne\n", "lines@2+1"},
	{"same line, apart change kept", body, "a\nX\nc\nd\ne\n", "a\nY\nc\nd\nE\n", "a\nX\nc\nd\nE\n", "lines@2+1"},
	{"inserts at one place", body, "a\nx\nb\nc\nd\ne\n", "a\ny\nb\nc\nd\ne\n", "a\nx\nb\nc\nd\ne\n", "lines@2+1"},
	{"edit against delete", body, "a\nb\nd\ne\n", "a\nb\nC\nd\ne\n", "a\nb\nd\ne\n", "lines@3+0"},
	{"appends at end", body, body + "x\n", body + "y\n", body + "x\n", "lines@6+1"},
	{"crlf ours", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", "a\nb\nC\n", "a\r\nB\r\nC\r\n", ""},
	{"crlf theirs", "a\nb\nc\n", "A\nb\nc\n", "a\r\nb\r\nc\r\nd\r\n", "A\nb\nc\nd\n", ""},
	{"no final newline kept", "a\nb", "A\nb", "a\nb\nc", "A\nb\nc", ""},
	{"final newline added by theirs", "a\nb", "A\nb", "a\nb\n", "A\nb\n", ""},
	{"final newline removed by ours", "a\nb\n", "a\nb", "A\nb\n", "A\nb", ""},
	{"empty base, same", "", "x\n", "x\n", "x\n", ""},
	{"empty base, different", "", "x\n", "y\n", "x\n", "lines@1+1"},
	{"empty base, common lines", "", "x\nsame\n", "same\ny\n", "x\nsame\n", "lines@1+2"},
	{"ours emptied", "a\nb\n", "", "a\nB\n", "", "lines@1+0"},
	{"theirs emptied, ours kept", "a\nb\n", "a\nb\nc\n", "", "c\n", ""},

	// Frontmatter.
	{"keys apart",
		"---\ntitle: A\nstatus: draft\n---\nbody\n",
		"---\ntitle: B\nstatus: draft\n---\nbody\n",
		"---\ntitle: A\nstatus: done\n---\nbody\n",
		"---\ntitle: B\nstatus: done\n---\nbody\n", ""},
	{"key both differently",
		"---\ntitle: A\nstatus: draft\n---\nbody\n",
		"---\ntitle: B\nstatus: draft\n---\nbody\n",
		"---\ntitle: C\nstatus: done\n---\nbody\n",
		"---\ntitle: B\nstatus: done\n---\nbody\n", "field:title"},
	{"updated: the later date",
		"---\nupdated: 2026-11-01\nx: 1\n---\nbody\n",
		"---\nupdated: 2026-11-03\nx: 2\n---\nbody\n",
		"---\nupdated: 2026-11-05\nx: 1\n---\nbody\n",
		"---\nupdated: 2026-11-05\nx: 2\n---\nbody\n", ""},
	{"updated: ours later",
		"---\nupdated: 2026-11-01\nx: 1\n---\nbody\n",
		"---\nupdated: 2026-11-05\nx: 1\n---\nbody\n",
		"---\nupdated: 2026-11-03\nx: 2\n---\nbody\n",
		"---\nupdated: 2026-11-05\nx: 2\n---\nbody\n", ""},
	{"updated: not a date",
		"---\nupdated: 2026-11-01\nx: 1\n---\nbody\n",
		"---\nupdated: soon\nx: 1\n---\nbody\n",
		"---\nupdated: 2026-11-03\nx: 2\n---\nbody\n",
		"---\nupdated: soon\nx: 2\n---\nbody\n", "field:updated"},
	{"key same both",
		"---\ntitle: A\nstatus: draft\n---\nbody\n",
		"---\ntitle: B\nstatus: draft\n---\nbody\n",
		"---\ntitle: B\nstatus: done\n---\nbody\n",
		"---\ntitle: B\nstatus: done\n---\nbody\n", ""},
	{"key added by theirs, formatting kept",
		"---\ntitle: A\n---\nbody\n",
		"---\ntitle:   'A'   # mine\nx: 1\n---\nbody\n",
		"---\ntitle: A\nsummary: >-\n  two\n  lines\n---\nbody\n",
		"---\ntitle:   'A'   # mine\nx: 1\nsummary: >-\n  two\n  lines\n---\nbody\n", ""},
	{"key deleted by theirs",
		"---\ntitle: A\ndraft: true\n---\nbody\n",
		"---\ntitle: B\ndraft: true\n---\nbody\n",
		"---\ntitle: A\n---\nbody\n",
		"---\ntitle: B\n---\nbody\n", ""},
	{"delete against change",
		"---\ntitle: A\ndraft: true\n---\nbody\n",
		"---\ntitle: B\ndraft: false\n---\nbody\n",
		"---\ntitle: A\n---\nbody\n",
		"---\ntitle: B\ndraft: false\n---\nbody\n", "field:draft"},
	{"tags as sets, flow",
		"---\ntags: [a, b]\nx: 1\n---\nbody\n",
		"---\ntags: [a, b, c]\nx: 1\n---\nbody\n",
		"---\ntags: [b, d]\nx: 2\n---\nbody\n",
		"---\ntags: [b, c, d]\nx: 2\n---\nbody\n", ""},
	{"aliases as sets, block",
		"---\naliases:\n  - one\nx: 1\n---\nbody\n",
		"---\naliases:\n  - one\n  - two\nx: 1\n---\nbody\n",
		"---\naliases:\n  - three\nx: 2\n---\nbody\n",
		"---\naliases:\n  - two\n  - three\nx: 2\n---\nbody\n", ""},
	{"edges as sets",
		"---\nedges:\n  - to: \"[[A]]\"\n    type: supports\n    why: because this is twenty chars\n---\nbody\n",
		"---\nedges:\n  - to: \"[[A]]\"\n    type: supports\n    why: because this is twenty chars\n  - to: \"[[B]]\"\n    type: refines\n    why: ours has its own reason here\n---\nbody\n",
		"---\nedges:\n  - to: \"[[C]]\"\n    type: part_of\n    why: theirs has another reason too\n---\nbody\n",
		"---\nedges:\n  - to: \"[[B]]\"\n    type: refines\n    why: ours has its own reason here\n  - to: \"[[C]]\"\n    type: part_of\n    why: theirs has another reason too\n---\nbody\n", ""},
	{"edges with other keys as sets",
		"---\nedges: []\n---\nbody\n",
		"---\nedges:\n  - {to: \"[[B]]\", type: refines, note: 1}\n---\nbody\n",
		"---\nedges:\n  - {to: \"[[C]]\", type: refines, why: 2}\n---\nbody\n",
		"---\nedges:\n  - note: 1\n    to: '[[B]]'\n    type: refines\n  - to: '[[C]]'\n    type: refines\n    why: 2\n---\nbody\n", ""},
	{"list against scalar",
		"---\ntags: [a]\n---\nbody\n",
		"---\ntags: [a, b]\n---\nbody\n",
		"---\ntags: c\n---\nbody\n",
		"---\ntags: [a, b]\n---\nbody\n", "field:tags"},
	{"frontmatter and body",
		"---\ntitle: A\n---\nbody\nmore\n",
		"---\ntitle: B\n---\nbody\nmore\n",
		"---\ntitle: A\n---\nbody\nMORE\n",
		"---\ntitle: B\n---\nbody\nMORE\n", ""},
	{"frontmatter only on theirs",
		"body\nmore\n",
		"BODY\nmore\n",
		"---\ntitle: T\n---\nbody\nmore\n",
		"---\ntitle: T\n---\nBODY\nmore\n", ""},
	{"frontmatter only on ours, crlf",
		"body\r\nmore\r\n",
		"---\r\ntitle: O\r\n---\r\nbody\r\nmore\r\n",
		"body\nMORE\n",
		"---\r\ntitle: O\r\n---\r\nbody\r\nMORE\r\n", ""},
	{"frontmatter added by both",
		"body\n",
		"---\ntitle: O\n---\nbody\n",
		"---\ntags: [t]\n---\nbody\nmore\n",
		"---\ntitle: O\ntags: [t]\n---\nbody\nmore\n", ""},
	{"tags added by both",
		"body\n",
		"---\ntags: [a, b]\n---\nbody\n",
		"---\ntags: [c, a]\n---\nbody\n",
		"---\ntags: [a, b, c]\n---\nbody\n", ""},
	{"frontmatter removed by ours, key changed by theirs",
		"---\ntitle: A\nx: 1\n---\nbody\n",
		"body\n",
		"---\ntitle: A\nx: 2\n---\nbody\nmore\n",
		"body\nmore\n", "field:x"},
	{"theirs frontmatter comment only",
		"---\n# note\ntitle: A\n---\nbody\n",
		"---\n# note\ntitle: A\n---\nBODY\n",
		"---\n# a better note\ntitle: A\n---\nbody\n",
		"---\n# a better note\ntitle: A\n---\nBODY\n", ""},
	{"crlf frontmatter, key from lf theirs",
		"---\r\ntitle: A\r\nx: 1\r\n---\r\nbody\r\n",
		"---\r\ntitle: B\r\nx: 1\r\n---\r\nbody\r\n",
		"---\ntitle: A\nx: 1\ny: 2\n---\nbody\n",
		"---\r\ntitle: B\r\nx: 1\r\ny: 2\r\n---\r\nbody\r\n", ""},
	{"indented keys",
		"---\n  title: A\n  x: 1\n---\nbody\n",
		"---\n  title: B\n  x: 1\n---\nbody\n",
		"---\n  title: A\n  x: 1\n  y:\n    - q\n---\nbody\n",
		"---\n  title: B\n  x: 1\n  y:\n    - q\n---\nbody\n", ""},
	{"invalid yaml on theirs",
		"---\ntitle: A\n---\nbody\n",
		"---\ntitle: B\n---\nbody\n",
		"---\ntitle: [unclosed\n---\nbody\n",
		"---\ntitle: B\n---\nbody\n", "note"},
	{"invalid yaml on ours",
		"---\ntitle: A\n---\nbody\n",
		"---\ntitle: {B\n---\nbody\n",
		"---\ntitle: C\n---\nbody\n",
		"---\ntitle: {B\n---\nbody\n", "note"},
	{"invalid yaml on base, fixed by ours, body by theirs",
		"---\ntitle: [A\n---\nbody\n",
		"---\ntitle: A\n---\nbody\n",
		"---\ntitle: [A\n---\nBODY\n",
		"---\ntitle: A\n---\nBODY\n", ""},
	{"invalid yaml on theirs, ours head untouched",
		"---\ntitle: A\n---\nbody\n",
		"---\ntitle: A\n---\nBODY\n",
		"---\ntitle: [A\n---\nbody\n",
		"---\ntitle: A\n---\nBODY\n", "note"},
	{"unterminated on base",
		"---\ntitle: A\nbody\n",
		"---\ntitle: B\n---\nbody\n",
		"---\ntitle: C\n---\nbody\n",
		"---\ntitle: B\n---\nbody\n", "note"},
	{"duplicate key on theirs",
		"---\ntitle: A\n---\nbody\n",
		"---\ntitle: B\n---\nbody\n",
		"---\ntitle: A\ntitle: C\n---\nbody\n",
		"---\ntitle: B\n---\nbody\n", "note"},
	{"flow top mapping",
		"---\n{title: A, x: 1}\n---\nbody\n",
		"---\n{title: B, x: 1}\n---\nbody\n",
		"---\n{title: A, x: 2}\n---\nbody\n",
		"---\n{title: B, x: 1}\n---\nbody\n", "field:x"},
	{"conflict line numbers count the frontmatter",
		"---\ntitle: A\n---\na\nb\n",
		"---\ntitle: B\n---\na\nX\n",
		"---\ntitle: A\n---\na\nY\n",
		"---\ntitle: B\n---\na\nX\n", "lines@5+1"},
}

func TestMerge3(t *testing.T) {
	for _, tc := range mergeCases {
		t.Run(tc.name, func(t *testing.T) {
			m := Merge3([]byte(tc.base), []byte(tc.ours), []byte(tc.theirs))
			if string(m.Bytes) != tc.want {
				t.Errorf("merged\n%q\nwant\n%q", m.Bytes, tc.want)
			}
			if got := conflictSummary(m.Conflicts); got != tc.wantConflicts {
				t.Errorf("conflicts %q, want %q (%+v)", got, tc.wantConflicts, m.Conflicts)
			}
			if m.Clean() != (tc.wantConflicts == "") {
				t.Errorf("Clean() = %v", m.Clean())
			}
			checkMergeInvariants(t, []byte(tc.base), []byte(tc.ours), []byte(tc.theirs), m)
		})
	}
}

// TestMerge3_conflictText checks what a conflict reports: theirs' lines or key
// entry as theirs wrote them, ours' as kept.
func TestMerge3_conflictText(t *testing.T) {
	m := Merge3([]byte("a\nb\nc\n"), []byte("a\nX\nX2\nc\n"), []byte("a\nY\nc\n"))
	if len(m.Conflicts) != 1 {
		t.Fatalf("conflicts %+v", m.Conflicts)
	}
	c := m.Conflicts[0]
	if string(c.Ours) != "X\nX2\n" || string(c.Theirs) != "Y\n" || c.Line != 2 || c.Lines != 2 {
		t.Errorf("conflict %+v", c)
	}
	m = Merge3([]byte("---\nx: 1\n---\n"), []byte("---\nx: 2\n---\n"), []byte("---\nx:\n  - 3\n---\n"))
	if len(m.Conflicts) != 1 {
		t.Fatalf("conflicts %+v", m.Conflicts)
	}
	c = m.Conflicts[0]
	if c.Kind != ConflictField || c.Key != "x" || string(c.Ours) != "x: 2\n" || string(c.Theirs) != "x:\n  - 3\n" {
		t.Errorf("conflict %+v", c)
	}
	m = Merge3([]byte("---\nx: 1\n---\n"), []byte("---\nx: 2\n---\n"), []byte("---\nx: [\n---\n"))
	if len(m.Conflicts) != 1 || m.Conflicts[0].Kind != ConflictWhole || m.Conflicts[0].Reason != "their frontmatter cannot be merged: line 3: yaml-syntax: did not find expected node content" {
		t.Errorf("conflicts %+v", m.Conflicts)
	}
}

// TestMerge3_inputsUntouched checks that Merge3 never writes into its arguments
// and that its result shares no memory with them.
func TestMerge3_inputsUntouched(t *testing.T) {
	base, ours, theirs := []byte("a\nb\n"), []byte("a\nb\n"), []byte("a\nB\n")
	m := Merge3(base, ours, theirs)
	m.Bytes[0] = 'z'
	if string(base) != "a\nb\n" || string(ours) != "a\nb\n" || string(theirs) != "a\nB\n" {
		t.Fatalf("inputs changed: %q %q %q", base, ours, theirs)
	}
}

// checkMergeInvariants checks what every merge must hold: no conflict markers
// that were not in an input, identity cases, a clean merge's frontmatter parses,
// and a conflicted merge reports theirs.
func checkMergeInvariants(t *testing.T, base, ours, theirs []byte, m Merge) {
	t.Helper()
	for _, marker := range []string{"<<<<<<<", ">>>>>>>", "|||||||"} {
		if bytes.Contains(m.Bytes, []byte(marker)) && !bytes.Contains(ours, []byte(marker)) && !bytes.Contains(theirs, []byte(marker)) {
			t.Fatalf("merge emitted conflict marker %q:\n%q", marker, m.Bytes)
		}
	}
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(base, theirs):
		if !bytes.Equal(m.Bytes, ours) || !m.Clean() {
			t.Fatalf("merge(base, ours, %s) = %q, want ours %q", "theirs", m.Bytes, ours)
		}
	case bytes.Equal(base, ours):
		if !bytes.Equal(m.Bytes, theirs) || !m.Clean() {
			t.Fatalf("merge(base, base, theirs) = %q, want theirs %q", m.Bytes, theirs)
		}
	}
	for _, c := range m.Conflicts {
		if c.Kind == ConflictWhole && !bytes.Equal(m.Bytes, ours) {
			t.Fatalf("a whole-note conflict must keep ours: %q", m.Bytes)
		}
	}
}
