package server_test

import (
	"context"
	"errors"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
)

func TestNoteLinks(t *testing.T) {
	v, _ := openVault(t)
	for p, c := range map[string]string{
		"a/x.md":   "---\ntags: [one]\n---\n# X\nSee [[y#Y]] and [[Missing]], [[dup]].\n`[[in code]]`\n",
		"b/y.md":   "# Y\nBack to [[X]] here.\n#one\n",
		"c/dup.md": "# Dup one\n[[x|the x note]]\n",
		"d/dup.md": "# Dup two\n",
		"e/z.md":   "---\ntags: [one, two]\n---\n# Z\n",
	} {
		writeFile(t, v, p, c)
	}
	if _, err := v.CommitExternal(context.Background(), "", ""); err != nil {
		t.Fatal(err)
	}
	l, err := server.NoteLinks(context.Background(), v, "a/x.md", 10)
	if err != nil {
		t.Fatal(err)
	}
	if l.OutgoingTotal != 3 || len(l.Outgoing) != 3 {
		t.Fatalf("outgoing: %+v", l.Outgoing)
	}
	y, missing, dup := l.Outgoing[0], l.Outgoing[1], l.Outgoing[2]
	if y.Status != "resolved" || y.To != "b/y.md" || y.HeadingMissing || y.Line != 5 {
		t.Fatalf("[[y#Y]]: %+v", y)
	}
	if missing.Status != "broken" || dup.Status != "ambiguous" || len(dup.Candidates) != 2 {
		t.Fatalf("broken/ambiguous: %+v %+v", missing, dup)
	}
	if l.BacklinksTotal != 2 || l.Backlinks[0].From != "b/y.md" || l.Backlinks[0].Context != "Back to [[X]] here." || l.Backlinks[1].From != "c/dup.md" {
		t.Fatalf("backlinks: %+v", l.Backlinks)
	}
	if l.SameTagsTotal != 2 || l.SameTags[0] != "b/y.md" || l.SameTags[1] != "e/z.md" {
		t.Fatalf("same tags: %+v", l.SameTags)
	}
	short, err := server.NoteLinks(context.Background(), v, "a/x.md", 1)
	if err != nil || len(short.Outgoing) != 1 || !short.Truncated || short.OutgoingTotal != 3 {
		t.Fatalf("limit: %+v %v", short, err)
	}
	if _, err := server.NoteLinks(context.Background(), v, "nope.md", 10); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("unknown note: %v", err)
	}
}
