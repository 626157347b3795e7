package vault_test

import (
	"context"
	"errors"
	"testing"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// TestVault_Viewer: the one privacy rule, asked through a Viewer. An actor without
// the private role sees neither a note under a private folder nor one private by
// its frontmatter, at HEAD or by revision; one with it sees both; a revision that
// was never the path's blob is not read for the first.
func TestVault_Viewer(t *testing.T) {
	ctx := context.Background()
	v := testvault.Served(t, map[string]string{
		"pub.md":                  "# Pub\n",
		"secret.md":               "---\nprivate: true\n---\n# Secret\n",
		"personal-notes/diary.md": "# Diary\n",
	})
	agent, err := v.Viewer(ctx, vault.Actor{Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	owner, err := v.Viewer(ctx, vault.Actor{Author: testvault.Owner, Roles: []string{"owner"}, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	for p, public := range map[note.Path]bool{"pub.md": true, "secret.md": false, "personal-notes/diary.md": false, "missing.md": true} {
		if got := agent.Visible(ctx, p); got != public {
			t.Errorf("agent sees %s: %v, want %v", p, got, public)
		}
		if !owner.Visible(ctx, p) {
			t.Errorf("owner does not see %s", p)
		}
		if rev := v.Revision(p); rev != "" && agent.VisibleAt(ctx, p, rev) != public {
			t.Errorf("agent sees %s at %s: %v, want %v", p, rev, !public, public)
		}
	}
	if agent.SeesAll() || !owner.SeesAll() || agent.Hidden(ctx) == nil || owner.Hidden(ctx) != nil {
		t.Fatal("SeesAll or Hidden disagree with the actors")
	}
	// A blob id read at a public path: only when it was that path's blob.
	secretRev := string(v.Revision("secret.md"))
	if _, err := agent.ReadAt(ctx, "pub.md", secretRev); err == nil {
		t.Fatal("the agent read a private note's blob through a public path")
	}
	if b, err := owner.ReadAt(ctx, "pub.md", secretRev); err != nil || string(b.Content) != "---\nprivate: true\n---\n# Secret\n" {
		t.Fatalf("owner ReadAt by revision: %v", err)
	}
}

// TestVault_ViewerBrokenConfig: while .norn/config.yaml does not parse, an actor
// without the private role gets no viewer (ErrPrivacyUnknown, forbidden); one
// with it does.
func TestVault_ViewerBrokenConfig(t *testing.T) {
	ctx := context.Background()
	v := testvault.Served(t, map[string]string{"pub.md": "# Pub\n"})
	testvault.WriteFiles(t, v.Dir(), map[string]string{string(vault.ConfigPath): "privacy: [unclosed\n"})
	if _, err := v.CommitExternal(ctx, "", ""); err != nil {
		t.Fatal(err)
	}
	_, err := v.Viewer(ctx, vault.Actor{Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}})
	if !errors.Is(err, vault.ErrPrivacyUnknown) || errcode.Classify(err) != errcode.Forbidden {
		t.Fatalf("viewer under broken settings: %v", err)
	}
	if _, err := v.Viewer(ctx, vault.Actor{Author: testvault.Owner, Roles: []string{"owner"}, Private: true}); err != nil {
		t.Fatalf("private actor refused: %v", err)
	}
}

// TestVault_WriteNoteHidden: a whole-note write at a path a note hidden from the
// writer occupies answers as for a path with no note, never writing over it:
// creating there is refused as taken, replacing it is a conflict that names no
// current revision; nothing is committed. An owner's write goes through.
func TestVault_WriteNoteHidden(t *testing.T) {
	ctx := context.Background()
	v := testvault.Served(t, map[string]string{"secret.md": "---\nprivate: true\n---\n# Secret\n"})
	agent := vault.Actor{Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}
	vw, err := v.Viewer(ctx, agent)
	if err != nil {
		t.Fatal(err)
	}
	head := v.Head()
	req := vault.WriteRequest{Path: "secret.md", Content: []byte("# Mine\n"), Author: agent.Author, Roles: agent.Roles, Hidden: vw.Hidden(ctx)}
	_, err = v.WriteNote(ctx, req)
	var ie *vault.InputError
	if !errors.As(err, &ie) || !errors.Is(err, repo.ErrInvalid) || ie.Path != "secret.md" {
		t.Fatalf("create over a hidden note: %v", err)
	}
	req.ExpectedRevision = "0123456789012345678901234567890123456789"
	_, err = v.WriteNote(ctx, req)
	var ce *repo.ConflictError
	if !errors.As(err, &ce) || ce.Current != "" {
		t.Fatalf("replace a hidden note: %v", err)
	}
	if v.Head() != head || testvault.HeadBytes(t, v, "secret.md") != "---\nprivate: true\n---\n# Secret\n" {
		t.Fatal("a refused write changed the vault")
	}
	req.Hidden, req.ExpectedRevision, req.Author, req.Roles = nil, v.Revision("secret.md"), testvault.Owner, []string{"owner"}
	w, err := v.WriteNote(ctx, req)
	if err != nil || w.Revision == "" || testvault.HeadBytes(t, v, "secret.md") != "# Mine\n" {
		t.Fatalf("owner's write: %+v, %v", w, err)
	}
}
