package vault_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// catalog lists the whole archive catalog as actor a sees it, from the index.
func catalog(t *testing.T, v *vault.Vault, a vault.Actor, q vault.ArchiveQuery) *vault.ArchiveCatalog {
	t.Helper()
	ctx := context.Background()
	c, err := v.Viewer(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := c.Archived(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Source != "index" {
		t.Fatalf("catalog source %q, want index", cat.Source)
	}
	return cat
}

// TestArchived_IncrementalEqualsRebuild: over random writes, edits, moves,
// archives (with each reason) and restores, the catalog the index keeps commit
// by commit is exactly the model's (path, reason, who, archive commit, last
// revision; a restored or rewritten path leaves it), and a full rebuild gives
// the same catalog.
func TestArchived_IncrementalEqualsRebuild(t *testing.T) {
	ctx := context.Background()
	v := testvault.Served(t, map[string]string{"start.md": "# Start\n"})
	all := vault.Actor{Private: true}
	rng := rand.New(rand.NewPCG(29, 1))
	live := map[note.Path]bool{"start.md": true}
	want := map[note.Path]ledger.Archived{}
	pick := func(m map[note.Path]bool) note.Path {
		keys := slices.Sorted(func(yield func(note.Path) bool) {
			for k := range m {
				if !yield(k) {
					return
				}
			}
		})
		return keys[rng.IntN(len(keys))]
	}
	reasons := []repo.Reason{repo.ReasonArchived, repo.ReasonSuperseded, repo.ReasonRetracted}
	archives, restores := 0, 0
	for i := range 200 {
		who := repo.Author{Name: fmt.Sprintf("agent-%d", i%3), Email: fmt.Sprintf("a%d@example.com", i%3)}
		p := note.Path(fmt.Sprintf("%s/n%d.md", []string{"a", "b", "c/d"}[rng.IntN(3)], rng.IntN(15)))
		var tx repo.Tx
		switch op := rng.IntN(10); {
		case op < 3 && !live[p]:
			tx = repo.Tx{Op: repo.OpWrite, Changes: []repo.Change{{Kind: repo.Put, Path: p, Content: fmt.Appendf(nil, "# N\n\nwrite %d\n", i)}}}
		case op < 5 && !live[p] && want[p].Revision != "":
			tx = repo.Tx{Op: repo.OpRestore, Changes: []repo.Change{{Kind: repo.Restore, Path: p, FromRevision: want[p].Revision}}}
		case op < 7:
			q := pick(live)
			tx = repo.Tx{Op: repo.OpArchive, Reason: reasons[rng.IntN(3)], Changes: []repo.Change{{Kind: repo.Archive, Path: q}}}
		case op < 8 && !live[p]:
			tx = repo.Tx{Op: repo.OpMove, Changes: []repo.Change{{Kind: repo.Move, From: pick(live), Path: p}}}
		default:
			q := pick(live)
			tx = repo.Tx{Op: repo.OpEdit, Changes: []repo.Change{{Kind: repo.Put, Path: q, Content: fmt.Appendf(nil, "# N\n\nedit %d\n", i), ExpectedRevision: v.Revision(q)}}}
		}
		if len(live) == 1 && tx.Op == repo.OpArchive {
			continue // keep a note to move and edit
		}
		ch := tx.Changes[0]
		old := v.Revision(ch.Path)
		if ch.Kind == repo.Move {
			old = v.Revision(ch.From)
		}
		tx.Author = who
		res, err := v.Apply(ctx, tx)
		if err != nil {
			t.Fatalf("op %d %s %s: %v", i, tx.Op, ch.Path, err)
		}
		switch ch.Kind {
		case repo.Archive:
			archives++
			delete(live, ch.Path)
			want[ch.Path] = ledger.Archived{Path: ch.Path, Reason: tx.Reason, Who: who.Name + " <" + who.Email + ">", Commit: res.Commit, Revision: old}
		case repo.Move:
			delete(live, ch.From)
			live[ch.Path] = true
			delete(want, ch.Path)
		case repo.Restore:
			restores++
			if res.Changes[0].Revision != want[ch.Path].Revision {
				t.Fatalf("op %d: restore of %s did not bring back its archived bytes", i, ch.Path)
			}
			fallthrough
		default:
			live[ch.Path] = true
			delete(want, ch.Path)
		}
		if i%10 == 0 || i == 199 {
			got := catalog(t, v, all, vault.ArchiveQuery{})
			var keys []note.Path
			for k := range want {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if len(got.Archived) != len(keys) || got.Total != len(keys) {
				t.Fatalf("op %d: catalog has %d entries, the model %d: %+v", i, len(got.Archived), len(keys), got.Archived)
			}
			for j, k := range keys {
				g, w := got.Archived[j], want[k]
				w.When = g.When
				if g != w || g.When.IsZero() {
					t.Fatalf("op %d: catalog entry %d:\n got %+v\nwant %+v", i, j, g, w)
				}
			}
		}
	}
	if archives < 20 || restores < 5 {
		t.Fatalf("%d archives, %d restores: the run shows less than the test says", archives, restores)
	}
	incremental := catalog(t, v, all, vault.ArchiveQuery{})
	if err := v.Index.Rebuild(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if rebuilt := catalog(t, v, all, vault.ArchiveQuery{}); !reflect.DeepEqual(incremental, rebuilt) {
		t.Fatalf("rebuilt catalog differs:\nincremental %+v\nrebuilt     %+v", incremental, rebuilt)
	}
}

// TestArchived_QueryAndPrivacy: folder and since select entries and limit cuts
// them (with the total); a caller without the private scope sees no entry of a
// private folder or of a note private by its frontmatter, not even in the count;
// a bad folder or date is ErrInvalid and writes nothing.
func TestArchived_QueryAndPrivacy(t *testing.T) {
	ctx := context.Background()
	v := testvault.Served(t, map[string]string{
		"tech/a.md":               "# A\n",
		"tech/deep/b.md":          "# B\n",
		"life/c.md":               "# C\n",
		"personal-notes/diary.md": "# Diary\n",
		"tech/plan.md":            "---\nprivate: true\n---\n# Plan\n",
	})
	for _, p := range []note.Path{"tech/a.md", "tech/deep/b.md", "life/c.md", "personal-notes/diary.md", "tech/plan.md"} {
		if _, err := v.Apply(ctx, repo.Tx{Author: testvault.Owner, Roles: []string{"owner"}, Op: repo.OpArchive, Reason: repo.ReasonSuperseded,
			Changes: []repo.Change{{Kind: repo.Archive, Path: p}}}); err != nil {
			t.Fatal(err)
		}
	}
	paths := func(c *vault.ArchiveCatalog) []note.Path {
		var out []note.Path
		for _, a := range c.Archived {
			out = append(out, a.Path)
		}
		return out
	}
	all, agent := vault.Actor{Private: true}, vault.Actor{}
	if got := paths(catalog(t, v, all, vault.ArchiveQuery{})); len(got) != 5 {
		t.Fatalf("trusted catalog: %v", got)
	}
	if got := paths(catalog(t, v, agent, vault.ArchiveQuery{})); !slices.Equal(got, []note.Path{"life/c.md", "tech/a.md", "tech/deep/b.md"}) {
		t.Fatalf("agent catalog: %v", got)
	}
	if got := paths(catalog(t, v, agent, vault.ArchiveQuery{Folder: "tech/"})); !slices.Equal(got, []note.Path{"tech/a.md", "tech/deep/b.md"}) {
		t.Fatalf("agent catalog of tech/: %v", got)
	}
	if got := paths(catalog(t, v, all, vault.ArchiveQuery{Folder: "tec"})); len(got) != 0 {
		t.Fatalf("folder tec matched %v: a folder is not a name prefix", got)
	}
	cut := catalog(t, v, agent, vault.ArchiveQuery{Limit: 2})
	if len(cut.Archived) != 2 || cut.Total != 3 || !cut.Truncated {
		t.Fatalf("limited catalog: %+v", cut)
	}
	when := testvault.Clock()
	if got := catalog(t, v, all, vault.ArchiveQuery{Since: when.Format("2006-01-02")}); len(got.Archived) != 5 {
		t.Fatalf("since the day of the archives: %v", paths(got))
	}
	if got := catalog(t, v, all, vault.ArchiveQuery{Since: when.AddDate(0, 0, 1).Format("2006-01-02")}); len(got.Archived) != 0 {
		t.Fatalf("since the next day: %v", paths(got))
	}
	head := v.Head()
	c, _ := v.Viewer(ctx, all)
	for _, q := range []vault.ArchiveQuery{{Folder: "../x"}, {Since: "2026-13-01"}, {Since: "yesterday"}} {
		if _, err := c.Archived(ctx, q); !errors.Is(err, repo.ErrInvalid) {
			t.Errorf("Archived(%+v): %v, want ErrInvalid", q, err)
		}
	}
	if v.Head() != head {
		t.Fatal("a bad query wrote a commit")
	}
}
