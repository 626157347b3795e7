package vault_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// commitFiles writes files into v's working tree and commits them as a person
// would (norn commit): no gates.
func commitFiles(t *testing.T, v *vault.Vault, files map[string]string) {
	t.Helper()
	for p, c := range files {
		writeFile(t, v.Repo(), p, c)
	}
	if _, err := v.CommitExternal(context.Background(), "", ""); err != nil {
		t.Fatal(err)
	}
}

// withoutIndex is v as a second process sees it while v holds the index: the
// index is locked, so the link queries read the notes at HEAD.
func withoutIndex(t *testing.T, v *vault.Vault) *vault.Vault {
	t.Helper()
	x := vault.OpenIndexer(context.Background(), v.Repo(), graph.Options{}, nil)
	t.Cleanup(func() { x.Close() })
	if _, err := x.Graph(context.Background()); !errors.Is(err, vault.ErrIndexUnavailable) {
		t.Fatalf("a second handle got the index: %v", err)
	}
	return vault.Assemble(v.Repo(), v.Settings, x)
}

func TestNoteLinks(t *testing.T) {
	v := openServed(t, nil)
	commitFiles(t, v, map[string]string{
		"a/x.md":   "---\ntags: [one]\n---\n# X\nSee [[y#Y]] and [[Missing]], [[dup]].\n`[[in code]]`\n",
		"b/y.md":   "# Y\nBack to [[X]] here.\n#one\n",
		"c/dup.md": "# Dup one\n[[x|the x note]]\n",
		"d/dup.md": "# Dup two\n",
		"e/z.md":   "---\ntags: [one, two]\n---\n# Z\n",
	})
	for name, v := range map[string]*vault.Vault{"index": v, "scan": withoutIndex(t, v)} {
		l, err := vault.NoteLinks(context.Background(), v, "a/x.md", 10)
		if err != nil {
			t.Fatal(err)
		}
		if l.OutgoingTotal != 3 || len(l.Outgoing) != 3 {
			t.Fatalf("%s: outgoing: %+v", name, l.Outgoing)
		}
		y, missing, dup := l.Outgoing[0], l.Outgoing[1], l.Outgoing[2]
		if y.Status != "resolved" || y.To != "b/y.md" || y.HeadingMissing || y.Line != 5 {
			t.Fatalf("%s: [[y#Y]]: %+v", name, y)
		}
		if missing.Status != "broken" || dup.Status != "ambiguous" || len(dup.Candidates) != 2 {
			t.Fatalf("%s: broken/ambiguous: %+v %+v", name, missing, dup)
		}
		if l.BacklinksTotal != 2 || l.Backlinks[0].From != "b/y.md" || l.Backlinks[0].Context != "Back to [[X]] here." || l.Backlinks[1].From != "c/dup.md" {
			t.Fatalf("%s: backlinks: %+v", name, l.Backlinks)
		}
		if l.SameTagsTotal != 2 || l.SameTags[0] != "b/y.md" || l.SameTags[1] != "e/z.md" {
			t.Fatalf("%s: same tags: %+v", name, l.SameTags)
		}
		short, err := vault.NoteLinks(context.Background(), v, "a/x.md", 1)
		if err != nil || len(short.Outgoing) != 1 || !short.Truncated || short.OutgoingTotal != 3 {
			t.Fatalf("%s: limit: %+v %v", name, short, err)
		}
		if _, err := vault.NoteLinks(context.Background(), v, "nope.md", 10); !errors.Is(err, repo.ErrNotFound) {
			t.Fatalf("%s: unknown note: %v", name, err)
		}
	}
}

// linkFixture has every kind of link: typed edges, headings, embeds of
// attachments, ambiguous and broken names, a note whose frontmatter does not
// parse, and tags.
var linkFixture = map[string]string{
	"a/x.md": "---\ntags: [one]\nedges:\n  - to: \"[[b/y]]\"\n    type: supports\n    why: Because the second note gives the evidence for it.\n---\n" +
		"# X\n## Part\n[[y]] [[Missing]] ![[x#X]] [[dup]] `[[in code]]` [md](../b/y.md) ![[pic.png]] [[#Part]] [[y#Nope]]\n",
	"b/y.md":   "# Y\n#one #two [[X]] [[x#Part]]\n",
	"c/dup.md": "# Dup one\n[[X]]\n",
	"d/dup.md": "# Dup two\n",
	"bad.md":   "---\ntitle: a\ntitle: b\n---\n# Bad\n[[X]]\n",
	"pic.png":  "not really a picture\n",
	"lone.md":  "# Lone\n",
}

// TestNoteLinks_IndexEqualsScan: with the index and without it (locked by
// another process), links, stats, neighborhoods, paths, hubs and orphans answer
// the same, for every note.
func TestNoteLinks_IndexEqualsScan(t *testing.T) {
	ctx := context.Background()
	v := openServed(t, nil)
	commitFiles(t, v, linkFixture)
	scan := withoutIndex(t, v)
	for p := range linkFixture {
		a, aerr := vault.NoteLinks(ctx, v, note.Path(p), 3)
		b, berr := vault.NoteLinks(ctx, scan, note.Path(p), 3)
		if !reflect.DeepEqual(a, b) || (aerr == nil) != (berr == nil) {
			t.Errorf("links %s:\nindex %+v %v\nscan  %+v %v", p, a, aerr, b, berr)
		}
	}
	x, err := vault.NoteLinks(ctx, v, "a/x.md", 50)
	if err != nil {
		t.Fatal(err)
	}
	last := x.Outgoing[len(x.Outgoing)-1]
	if x.OutgoingTotal != 9 || last.Kind != graph.EdgeKindTyped || last.Type != "supports" || last.To != "b/y.md" {
		t.Errorf("typed edge in outgoing: %+v", x.Outgoing)
	}
	for _, off := range []int{0, 1, 3} {
		a, err := vault.VaultStats(ctx, v, 2, off)
		if err != nil {
			t.Fatal(err)
		}
		b, err := vault.VaultStats(ctx, scan, 2, off)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("stats offset %d:\nindex %+v\nscan  %+v", off, a, b)
		}
	}
	// The graph queries answer from the notes too, and the same.
	same := func(what string, q func(v *vault.Vault) (any, error)) {
		t.Helper()
		a, aerr := q(v)
		b, berr := q(scan)
		if fmt.Sprint(aerr) != fmt.Sprint(berr) || !reflect.DeepEqual(a, b) {
			t.Errorf("%s:\nindex %+v %v\nscan  %+v %v", what, a, aerr, b, berr)
		}
	}
	for p := range linkFixture {
		same("neighborhood "+p, func(v *vault.Vault) (any, error) {
			return v.Neighborhood(ctx, note.Path(p), graph.NeighborhoodOptions{Depth: 2, MaxNodes: 4})
		})
		same("path "+p, func(v *vault.Vault) (any, error) { return v.ShortestPath(ctx, "a/x.md", note.Path(p), 0) })
	}
	same("hubs", func(v *vault.Vault) (any, error) { return v.Hubs(ctx, 2, 1) })
	same("orphans", func(v *vault.Vault) (any, error) { return v.Orphans(ctx, 5, 0) })
	if h, err := scan.Hubs(ctx, 20, 0); err != nil || h.Total == 0 {
		t.Errorf("hubs without the index: %+v %v", h, err)
	}
}

// TestNoteLinks_DamagedLinkRecord: a link record that no longer decodes is found
// when the link graph is first read; that query is answered from the notes at HEAD
// and the index is rebuilt, after which it answers again.
func TestNoteLinks_DamagedLinkRecord(t *testing.T) {
	ctx := context.Background()
	v := openServed(t, nil)
	commitFiles(t, v, map[string]string{"a.md": "# A\nSee [[b]].\n", "b.md": "# B\nstripes\n"})
	if err := v.Index.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := pebble.Open(vault.IndexDir(v.Repo()), &pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set([]byte("g/n/a.md"), bytes.Repeat([]byte{0xff}, 11), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	cfg, _, _ := v.Settings.Current(ctx)
	x := vault.OpenIndexer(ctx, v.Repo(), vault.SearchOptionsFrom(cfg, nil), nil)
	t.Cleanup(func() { x.Close() })
	sv := vault.Assemble(v.Repo(), v.Settings, x)
	r, err := x.Search(ctx, vault.SearchRequest{Query: "stripes"})
	if err != nil || r.Engine != vault.EngineBM25 || r.Total != 1 {
		t.Fatalf("search with a damaged link record: %+v, %v", r, err)
	}
	if _, err := x.Graph(ctx); !errors.Is(err, vault.ErrIndexUnavailable) || !errors.Is(err, graph.ErrCorrupt) {
		t.Fatalf("graph with a damaged link record: %v, want ErrIndexUnavailable and ErrCorrupt", err)
	}
	check := func(when string) {
		l, err := vault.NoteLinks(ctx, sv, "b.md", 10)
		if err != nil || l.BacklinksTotal != 1 || l.Backlinks[0].From != "a.md" {
			t.Fatalf("%s: backlinks of b.md: %+v, %v", when, l, err)
		}
	}
	check("while rebuilding")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := x.Graph(ctx); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_, problem := x.Status()
			t.Fatalf("damaged index never rebuilt: %s", problem)
		}
		time.Sleep(20 * time.Millisecond)
	}
	check("after the rebuild")
}
