package note

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var conflictDay = time.Date(2026, 12, 7, 23, 30, 0, 0, time.UTC)

func TestConflictPath(t *testing.T) {
	cases := []struct {
		path    Path
		machine string
		n       int
		want    Path
	}{
		{"tech/Bloom filters.md", "laptop", 0, "tech/Bloom filters (conflict 2026-12-07 laptop).md"},
		{"a.md", "Kim's desktop", 1, "a (conflict 2026-12-07 Kim's desktop).md"},
		{"a/b.MD", "srv", 2, "a/b (conflict 2026-12-07 srv 2).MD"},
		{"img/x.tar.gz", "srv", 0, "img/x.tar (conflict 2026-12-07 srv).gz"},
		{"notes/README", "srv", 0, "notes/README (conflict 2026-12-07 srv)"},
		{"a/.hidden", "srv", 0, "a/.hidden (conflict 2026-12-07 srv)"},
	}
	for _, tc := range cases {
		got, err := ConflictPath(tc.path, conflictDay, tc.machine, tc.n)
		if err != nil || got != tc.want {
			t.Errorf("ConflictPath(%q, %q, %d) = %q, %v; want %q", tc.path, tc.machine, tc.n, got, err, tc.want)
		}
		if orig, ok := ConflictOrigin(got); !ok || orig != tc.path {
			t.Errorf("ConflictOrigin(%q) = %q, %v; want %q", got, orig, ok, tc.path)
		}
		wantMachine := tc.machine
		if tc.n > 1 {
			wantMachine += fmt.Sprintf(" %d", tc.n)
		}
		if d, m, ok := ConflictTag(got); !ok || d != "2026-12-07" || m != wantMachine {
			t.Errorf("ConflictTag(%q) = %q, %q, %v; want 2026-12-07, %q", got, d, m, ok, wantMachine)
		}
	}
	for _, p := range []Path{"a.md", "a (conflict)/b.md", "notes (conflict 2026-12-07 srv)/b.md"} {
		if orig, ok := ConflictOrigin(p); ok {
			t.Errorf("ConflictOrigin(%q) = %q, true; want false (not a sibling's name)", p, orig)
		}
		if d, m, ok := ConflictTag(p); ok {
			t.Errorf("ConflictTag(%q) = %q, %q, true; want false", p, d, m)
		}
	}
	for _, p := range []Path{"a (conflict 2026-13-07 srv).md", "a (conflict srv).md", "a (conflict 2026-12-07 ).md"} {
		if d, m, ok := ConflictTag(p); ok {
			t.Errorf("ConflictTag(%q) = %q, %q, true; want false (no date, or no machine)", p, d, m)
		}
	}
}

func TestConflictPath_badMachine(t *testing.T) {
	for _, m := range []string{"", " lead", "trail ", "a/b", `a\b`, "a|b", "[[x]]", "a#b", "a\nb", "a\x00b", "\xff", strings.Repeat("m", 65)} {
		if p, err := ConflictPath("a.md", conflictDay, m, 0); !errors.Is(err, ErrMachineName) || p != "" {
			t.Errorf("ConflictPath(machine %q) = %q, %v; want ErrMachineName", m, p, err)
		}
		if b, err := ConflictNote("a.md", []byte("x\n"), conflictDay, m); !errors.Is(err, ErrMachineName) || b != nil {
			t.Errorf("ConflictNote(machine %q) = %q, %v; want ErrMachineName", m, b, err)
		}
	}
}

func TestConflictNote(t *testing.T) {
	const keys = "conflict_of: '[[tech/a]]'\nconflict_machine: laptop\nconflict_date: \"2026-12-07\"\n"
	cases := []struct {
		name, theirs, want string
	}{
		{"keys added to theirs' block",
			"---\ntitle: A  # kept\ntags: [x]\n---\nbody\n",
			"---\ntitle: A  # kept\ntags: [x]\n" + keys + "---\nbody\n"},
		{"no frontmatter",
			"body\nno newline",
			"---\n" + keys + "---\nbody\nno newline"},
		{"crlf",
			"body\r\n",
			"---\r\n" + strings.ReplaceAll(keys, "\n", "\r\n") + "---\r\nbody\r\n"},
		{"invalid frontmatter kept as written",
			"---\ntitle: [x\n---\nbody\n",
			"---\n" + keys + "---\n---\ntitle: [x\n---\nbody\n"},
		{"a key already there",
			"---\nconflict_of: '[[older]]'\n---\nbody\n",
			"---\n" + keys + "---\n---\nconflict_of: '[[older]]'\n---\nbody\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConflictNote("tech/a.md", []byte(tc.theirs), conflictDay, "laptop")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got\n%q\nwant\n%q", got, tc.want)
			}
			n, err := Parse("tech/a (conflict 2026-12-07 laptop).md", got)
			if err != nil {
				t.Fatalf("sibling does not parse: %v", err)
			}
			if v := n.Frontmatter.Fields[ConflictOfKey]; v != "[[tech/a]]" {
				t.Errorf("%s = %v", ConflictOfKey, v)
			}
			if !strings.HasSuffix(string(got), tc.theirs[strings.Index(tc.theirs, "body"):]) {
				t.Errorf("theirs' body lost: %q", got)
			}
		})
	}
}

func TestConflictTrailer(t *testing.T) {
	cs := []Conflict{
		{Kind: ConflictField, Key: "status"},
		{Kind: ConflictLines, Line: 12, Lines: 3},
		{Kind: ConflictLines, Line: 20, Lines: 1},
		{Kind: ConflictLines, Line: 25, Lines: 0},
	}
	got := ConflictTrailer("tech/a.md", "tech/a (conflict 2026-12-07 laptop).md", cs)
	want := "tech/a.md: field status, lines 12-14, line 20, line 25; theirs at tech/a (conflict 2026-12-07 laptop).md"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	got = ConflictTrailer("a\nb.md", "s.md", []Conflict{{Kind: ConflictWhole}})
	if got != "a?b.md: whole note; theirs at s.md" {
		t.Errorf("got %q", got)
	}
	many := make([]Conflict, 10)
	for i := range many {
		many[i] = Conflict{Kind: ConflictField, Key: "k"}
	}
	if got := ConflictTrailer("a.md", "s.md", many); !strings.Contains(got, "and 2 more") || strings.Contains(got, "\n") {
		t.Errorf("got %q", got)
	}
}
