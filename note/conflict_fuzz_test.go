package note

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzConflictNote checks the sibling note for any theirs and machine name: a
// refused name is ErrMachineName and nothing else; an accepted one gives a note
// whose frontmatter parses, links the conflicted note and keeps theirs' body
// bytes (or all of theirs) at its end; the path stays in the note's folder.
func FuzzConflictNote(f *testing.F) {
	f.Add([]byte("---\ntitle: A\n---\nbody\n"), "laptop")
	f.Add([]byte("---\ntitle: [x\n---\nbody\n"), "Kim's desktop")
	f.Add([]byte("---\n{a: 1}\n---\n"), "srv 2")
	f.Add([]byte("body\r\nonly"), "a/b")
	f.Fuzz(func(t *testing.T, theirs []byte, machine string) {
		p, perr := ConflictPath("dir/n.md", conflictDay, machine, 0)
		out, err := ConflictNote("dir/n.md", theirs, conflictDay, machine)
		if (err == nil) != (perr == nil) {
			t.Fatalf("ConflictPath %v, ConflictNote %v", perr, err)
		}
		if err != nil {
			if !errors.Is(err, ErrMachineName) || out != nil {
				t.Fatalf("error %v (out %q)", err, out)
			}
			return
		}
		if p.Folder() != "dir" || !IsNote(p) {
			t.Fatalf("sibling path %q", p)
		}
		if d, m, ok := ConflictTag(p); !ok || d != conflictDay.Format("2006-01-02") || m != machine {
			t.Fatalf("ConflictTag(%q) = %q, %q, %v; want the day and %q", p, d, m, ok, machine)
		}
		s := splitNote(out, "")
		if s.err != nil || s.fmErr != nil {
			t.Fatalf("sibling frontmatter: %v %v\n%q", s.err, s.fmErr, out)
		}
		if v, _ := s.fm.get(ConflictOfKey); v != "[[dir/n]]" {
			t.Fatalf("%s = %v", ConflictOfKey, v)
		}
		tail := theirs
		if ts := splitNote(theirs, ""); ts.err == nil {
			tail = ts.body
		}
		if !bytes.HasSuffix(out, tail) {
			t.Fatalf("theirs' body lost:\n%q\n%q", out, theirs)
		}
	})
}
