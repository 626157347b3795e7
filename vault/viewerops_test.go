package vault_test

import (
	"context"
	"errors"
	"testing"

	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// TestViewer_VisibleLog: the history an actor sees. To one without the private
// role a commit of private notes only does not exist, and one that also changed a
// visible note lists that note alone under a subject that names no other; the
// owner sees every commit as it is. Paging by skip and n follows the visible list.
func TestViewer_VisibleLog(t *testing.T) {
	ctx := context.Background()
	v := testvault.Served(t, map[string]string{"pub.md": "# Pub\n"})
	owner := repo.Author{Name: "o", Email: "o@x"}
	apply := func(msg string, files map[string]string) {
		t.Helper()
		var chs []repo.Change
		for p, c := range files {
			chs = append(chs, repo.Change{Kind: repo.Put, Path: note.Path(p), Content: []byte(c)})
		}
		if _, err := v.Apply(ctx, repo.Tx{Author: owner, Roles: []string{"owner"}, Op: repo.OpWrite, Message: msg, Changes: chs}); err != nil {
			t.Fatal(err)
		}
	}
	apply("secret only", map[string]string{"personal-notes/a.md": "# A\n"})
	apply("both", map[string]string{"personal-notes/b.md": "# B\n", "pub2.md": "# Pub2\n"})
	apply("public", map[string]string{"pub3.md": "# Pub3\n"})

	agent, err := v.Viewer(ctx, vault.Actor{Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	all, err := v.Viewer(ctx, vault.Actor{Author: owner, Roles: []string{"owner"}, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	seen, more, err := agent.VisibleLog(ctx, "", 0, 10)
	if err != nil || more {
		t.Fatalf("agent log: more %v, %v", more, err)
	}
	var subjects []string
	for _, ci := range seen {
		subjects = append(subjects, ci.Subject)
		for _, p := range ci.Paths {
			if p == "personal-notes/a.md" || p == "personal-notes/b.md" {
				t.Errorf("agent sees %s in %s", p, ci.Commit)
			}
		}
	}
	if len(seen) < 2 || subjects[0] != "public" || subjects[1] != "write pub2.md" || seen[1].PathsTotal != 1 {
		t.Fatalf("agent log subjects %q, %+v", subjects, seen)
	}
	full, _, err := all.VisibleLog(ctx, "", 0, 10)
	if err != nil || len(full) != len(seen)+1 || full[1].Subject != "both" || full[1].PathsTotal != 2 {
		t.Fatalf("owner log: %+v, %v", full, err)
	}
	page, more, err := agent.VisibleLog(ctx, "", 1, 1)
	if err != nil || more != (len(seen) > 2) || len(page) != 1 || page[0].Commit != seen[1].Commit {
		t.Fatalf("agent page 2: %+v more %v, %v", page, more, err)
	}
}

// TestViewer_ListNotes: the notes an actor sees under a folder, paged by path.
// A folder of private notes only does not exist for an actor without the private
// role (repo.ErrNotFound); Norn's own files are never listed.
func TestViewer_ListNotes(t *testing.T) {
	ctx := context.Background()
	v := testvault.Served(t, map[string]string{
		"a.md": "# A\n", "b.md": "---\ntitle: Bee\n---\nbody\n", "c.md": "# C\n",
		"secret.md": "---\nprivate: true\n---\n# S\n", "personal-notes/d.md": "# D\n",
	})
	agent, err := v.Viewer(ctx, vault.Actor{Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	page, err := agent.ListNotes(ctx, vault.ListRequest{Limit: 2, Titles: true})
	if err != nil || page.Total != 3 || !page.More || len(page.Notes) != 2 || page.Notes[0].Path != "a.md" || page.Notes[1].Title != "Bee" || page.Commit != v.Head() {
		t.Fatalf("page 1: %+v, %v", page, err)
	}
	page, err = agent.ListNotes(ctx, vault.ListRequest{After: "b.md", Limit: 2})
	if err != nil || page.More || len(page.Notes) != 1 || page.Notes[0].Path != "c.md" || page.Notes[0].Title != "" {
		t.Fatalf("page 2: %+v, %v", page, err)
	}
	if _, err := agent.ListNotes(ctx, vault.ListRequest{Folder: "personal-notes", Limit: 10}); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("a folder of private notes: %v", err)
	}
	all, err := v.Viewer(ctx, vault.Actor{Author: testvault.Owner, Roles: []string{"owner"}, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	page, err = all.ListNotes(ctx, vault.ListRequest{Limit: 100})
	if err != nil || page.Total != 5 {
		t.Fatalf("owner: %+v, %v", page, err)
	}
	for _, n := range page.Notes {
		if vault.IsNornPath(n.Path) {
			t.Errorf("listed %s", n.Path)
		}
	}
}

// TestViewer_Map: the overview an actor sees leaves out the notes hidden from it,
// their folders and tags, and the commits of them alone.
func TestViewer_Map(t *testing.T) {
	ctx := context.Background()
	v := testvault.Served(t, map[string]string{
		"README.md": "# Read me\n", "a.md": "---\ntags: [pub]\n---\n# A\n",
		"personal-notes/d.md": "---\ntags: [diary]\n---\n# D\n",
	})
	agent, err := v.Viewer(ctx, vault.Actor{Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := agent.Map(ctx, vault.MapRequest{Recent: 10, Tags: 10, Folders: 10})
	if err != nil || m.Notes != 2 || m.FoldersTotal != 0 || m.TagsTotal != 1 || m.Tags[0].Name != "pub" || m.RootDocs[0].Path != "README.md" || m.HeadCommit != string(v.Head()) {
		t.Fatalf("agent map: %+v, %v", m, err)
	}
	all, err := v.Viewer(ctx, vault.Actor{Author: testvault.Owner, Roles: []string{"owner"}, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := all.Map(ctx, vault.MapRequest{Recent: 10, Tags: 10, Folders: 10}); err != nil || m.Notes != 3 || m.FoldersTotal != 1 || m.TagsTotal != 2 {
		t.Fatalf("owner map: %+v, %v", m, err)
	}
}

// TestViewer_VisibleDiff: the changes between two commits an actor sees, with the
// bytes of the note asked for; a private note's change does not exist for an
// actor without the private role.
func TestViewer_VisibleDiff(t *testing.T) {
	ctx := context.Background()
	v := testvault.Served(t, map[string]string{"a.md": "# A\n", "personal-notes/d.md": "# D\n"})
	before := string(v.Head())
	for p, c := range map[string]string{"a.md": "# A\nmore\n", "personal-notes/d.md": "# D\nmore\n"} {
		if err := testvault.Write(v, p, c, "owner"); err != nil {
			t.Fatal(err)
		}
	}
	agent, err := v.Viewer(ctx, vault.Actor{Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := agent.VisibleDiff(ctx, vault.DiffRequest{From: before, To: "HEAD", Path: "a.md", Limit: 10})
	if err != nil || d.Total != 1 || len(d.Changes) != 1 || d.Changes[0].Path != "a.md" || !d.PathChanged || string(d.Before) != "# A\n" || string(d.After) != "# A\nmore\n" {
		t.Fatalf("agent diff: %+v, %v", d, err)
	}
	d, err = agent.VisibleDiff(ctx, vault.DiffRequest{From: before, To: "HEAD", Path: "personal-notes/d.md", Limit: 10})
	if err != nil || d.PathChanged || d.Before != nil {
		t.Fatalf("agent diff of a private note: %+v, %v", d, err)
	}
	all, err := v.Viewer(ctx, vault.Actor{Author: testvault.Owner, Roles: []string{"owner"}, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := all.VisibleDiff(ctx, vault.DiffRequest{From: before, To: "HEAD", Limit: 1}); err != nil || d.Total != 2 || len(d.Changes) != 1 || !d.Truncated {
		t.Fatalf("owner diff: %+v, %v", d, err)
	}
	if _, err := all.VisibleDiff(ctx, vault.DiffRequest{From: "nope", To: "HEAD", Limit: 1}); err == nil {
		t.Fatal("a diff from no commit")
	}
}
