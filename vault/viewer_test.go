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
