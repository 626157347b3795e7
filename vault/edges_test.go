package vault_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// openServed imports files into a new vault and opens it with vault.Open.
func openServed(t *testing.T, files map[string]string) *vault.Vault {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	owner := repo.Author{Name: "o", Email: "o@x"}
	v0, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Owner: owner},
		Seed: map[string][]byte{string(vault.ConfigPath): []byte("gates:\n  profile: default\n")}})
	if err != nil {
		t.Fatal(err)
	}
	v0.Close()
	v, err := vault.Open(ctx, dir, vault.Options{Repo: repo.Options{Owner: owner}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func headBytes(t *testing.T, v *vault.Vault, p string) string {
	t.Helper()
	b, err := v.Read(context.Background(), note.Path(p), "")
	if err != nil {
		t.Fatal(err)
	}
	return string(b.Content)
}

var edgeFixture = map[string]string{
	"tech/bloom.md": "---\ntitle: Bloom filters\ntags: [data-structures]\n---\n# Bloom filters\nBody.\n",
	"tech/cms.md":   "---\ntitle: Count-min sketch\n---\n# Count-min sketch\n",
	"a/dup.md":      "# Dup one\n",
	"b/dup.md":      "# Dup two\n",
}

const goodWhy = "Both hash items into a small array and trade exactness for memory."

func TestVault_LinkNotes(t *testing.T) {
	ctx := context.Background()
	v := openServed(t, edgeFixture)
	agent := func(r vault.EdgeRequest) vault.EdgeRequest {
		r.Author, r.Roles = repo.Author{Name: "agent"}, []string{"agent"}
		return r
	}
	head := v.Head()
	rev := v.Revision("tech/bloom.md")
	tests := []struct {
		name     string
		req      vault.EdgeRequest
		sentinel error
		rule     string // the gate rule, for rejections
		says     string
	}{
		{"unknown type", vault.EdgeRequest{From: "tech/bloom.md", To: "Count-min sketch", Type: "similar_to", Why: goodWhy}, repo.ErrRejected, "edge-type-unknown", "same_mechanism_as"},
		{"type spelled with dashes", vault.EdgeRequest{From: "tech/bloom.md", To: "cms", Type: "same-mechanism-as", Why: goodWhy}, repo.ErrRejected, "edge-type-unknown", "write `same_mechanism_as`"},
		{"short why", vault.EdgeRequest{From: "tech/bloom.md", To: "cms", Type: "supports", Why: "A similar idea."}, repo.ErrRejected, "edge-why-short", "at least 20"},
		{"why restates", vault.EdgeRequest{From: "tech/bloom.md", To: "cms", Type: "same_mechanism_as", Why: "Same mechanism as cms, same as cms."}, repo.ErrRejected, "edge-why-restates", "own words"},
		{"missing target", vault.EdgeRequest{From: "tech/bloom.md", To: "HyperLogLog", Type: "supports", Why: goodWhy}, repo.ErrNotFound, "", "no note matches \"HyperLogLog\""},
		{"ambiguous target", vault.EdgeRequest{From: "tech/bloom.md", To: "[[dup]]", Type: "supports", Why: goodWhy}, repo.ErrInvalid, "", "a/dup.md, b/dup.md"},
		{"missing source", vault.EdgeRequest{From: "tech/nope.md", To: "cms", Type: "supports", Why: goodWhy}, repo.ErrNotFound, "", "tech/nope.md does not exist"},
		{"self", vault.EdgeRequest{From: "tech/bloom.md", To: "Bloom filters", Type: "supports", Why: goodWhy}, repo.ErrInvalid, "", "edge-self"},
		{"no type", vault.EdgeRequest{From: "tech/bloom.md", To: "cms", Why: goodWhy}, repo.ErrInvalid, "", "one of supports, contradicts"},
		{"bad to", vault.EdgeRequest{From: "tech/bloom.md", To: "[[cms", Type: "supports", Why: goodWhy}, repo.ErrInvalid, "", "without closing"},
		{"stale revision", vault.EdgeRequest{From: "tech/bloom.md", To: "cms", Type: "supports", Why: goodWhy, ExpectedRevision: repo.Revision(strings.Repeat("2", 40))}, repo.ErrConflict, "", "changed since you read it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.LinkNotes(ctx, agent(tc.req))
			if !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("got %v, want %v saying %q", err, tc.sentinel, tc.says)
			}
			if tc.rule != "" {
				var rej *hooks.Rejection
				if !errors.As(err, &rej) || len(rej.Violations) != 1 || rej.Violations[0].Rule != tc.rule || rej.Violations[0].Line != 5 {
					t.Fatalf("violations: %v, want one %s on line 5", err, tc.rule)
				}
			}
			if v.Head() != head || v.Revision("tech/bloom.md") != rev {
				t.Fatal("a refused link changed the vault")
			}
		})
	}

	dry, err := v.LinkNotes(ctx, agent(vault.EdgeRequest{From: "tech/bloom.md", To: "Count-min sketch", Type: "same_mechanism_as", Why: goodWhy, DryRun: true}))
	if err != nil || !dry.DryRun || dry.Target != "tech/cms.md" || v.Head() != head {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	res, err := v.LinkNotes(ctx, agent(vault.EdgeRequest{From: "tech/bloom.md", To: "Count-min sketch", Type: "same_mechanism_as", Why: goodWhy}))
	if err != nil {
		t.Fatal(err)
	}
	want := "---\ntitle: Bloom filters\ntags: [data-structures]\nedges:\n  - to: \"[[cms]]\"\n    type: same_mechanism_as\n    why: " + goodWhy + "\n---\n# Bloom filters\nBody.\n"
	if got := headBytes(t, v, "tech/bloom.md"); got != want || res.Target != "tech/cms.md" || res.Parent != head {
		t.Fatalf("after link:\n%s\nwant\n%s", got, want)
	}
	if msg := gitIn(t, v.Dir(), "log", "-1", "--format=%an %B"); !strings.HasPrefix(msg, "agent link tech/bloom.md -> tech/cms.md") || !strings.Contains(msg, "Norn-Op: link") {
		t.Fatalf("commit: %q", msg)
	}
	if names := gitIn(t, v.Dir(), "show", "--name-only", "--format=", "HEAD"); names != "tech/bloom.md\n" {
		t.Fatalf("git show: %q", names)
	}
	if st := gitIn(t, v.Dir(), "status", "--porcelain"); st != "" {
		t.Fatalf("status: %q", st)
	}
	n, err := note.Parse("tech/bloom.md", []byte(headBytes(t, v, "tech/bloom.md")))
	if err != nil || len(n.Edges) != 1 || n.Edges[0].Target != "cms" || n.Edges[0].Why != goodWhy {
		t.Fatalf("edges: %+v %v", n, err)
	}

	// The same type to the same note, however named, is a duplicate.
	head = v.Head()
	if _, err := v.LinkNotes(ctx, agent(vault.EdgeRequest{From: "tech/bloom.md", To: "tech/cms.md", Type: "same_mechanism_as", Why: goodWhy})); !errors.Is(err, repo.ErrInvalid) || !strings.Contains(err.Error(), "already has a same_mechanism_as edge to tech/cms.md (line 5)") {
		t.Fatalf("duplicate: %v", err)
	}
	// Another type to it is a second edge, named by path, with an alias kept.
	if _, err := v.LinkNotes(ctx, agent(vault.EdgeRequest{From: "tech/bloom.md", To: "[[b/dup#Dup two|the second]]", Type: "refines", Why: "It narrows the claim to the duplicated case."})); err != nil {
		t.Fatal(err)
	}
	n, _ = note.Parse("tech/bloom.md", []byte(headBytes(t, v, "tech/bloom.md")))
	if len(n.Edges) != 2 || n.Edges[1].To != "[[b/dup#Dup two|the second]]" || v.Head() == head {
		t.Fatalf("second edge: %+v", n.Edges)
	}
	gitIn(t, v.Dir(), "fsck", "--strict")
}

func TestVault_UnlinkNotes(t *testing.T) {
	ctx := context.Background()
	v := openServed(t, edgeFixture)
	orig := headBytes(t, v, "tech/bloom.md")
	req := func(to, typ, why string) vault.EdgeRequest {
		return vault.EdgeRequest{From: "tech/bloom.md", To: to, Type: typ, Why: why, Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}
	}
	for _, r := range []vault.EdgeRequest{
		req("cms", "same_mechanism_as", goodWhy),
		req("cms", "refines", "It narrows the sketch to set membership only."),
		req("a/dup.md", "supports", "The first duplicate is evidence for filters."),
	} {
		if _, err := v.LinkNotes(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	res, err := v.UnlinkNotes(ctx, req("Count-min sketch", "refines", ""))
	if err != nil || res.Target != "tech/cms.md" {
		t.Fatalf("unlink refines: %+v %v", res, err)
	}
	n, _ := note.Parse("tech/bloom.md", []byte(headBytes(t, v, "tech/bloom.md")))
	if len(n.Edges) != 2 || n.Edges[0].Type != "same_mechanism_as" || n.Edges[1].Target != "a/dup" {
		t.Fatalf("edges after unlink refines: %+v", n.Edges)
	}
	if msg := gitIn(t, v.Dir(), "log", "-1", "--format=%B"); !strings.Contains(msg, "Norn-Op: link") || !strings.HasPrefix(msg, "unlink ") {
		t.Fatalf("commit: %q", msg)
	}
	if _, err := v.UnlinkNotes(ctx, req("dup", "", "")); !errors.Is(err, repo.ErrInvalid) || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("ambiguous: %v", err)
	}
	// The target archived, the edge is still removable by its name.
	if _, err := v.ArchiveNote(ctx, vault.ArchiveRequest{Path: "a/dup.md", Reason: repo.ReasonRetracted, Author: repo.Author{Name: "o"}, Roles: []string{"owner"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.UnlinkNotes(ctx, req("a/dup", "", "")); err != nil {
		t.Fatalf("unlink a broken edge: %v", err)
	}
	// Without a type: every edge to the note; the last edge takes the key along.
	if _, err := v.UnlinkNotes(ctx, req("[[cms]]", "", "")); err != nil {
		t.Fatal(err)
	}
	if got := headBytes(t, v, "tech/bloom.md"); got != orig {
		t.Fatalf("link then unlink is not the original:\n%s\nwant\n%s", got, orig)
	}
	head := v.Head()
	_, err = v.UnlinkNotes(ctx, req("cms", "", ""))
	if !errors.Is(err, repo.ErrNotFound) || !strings.Contains(err.Error(), "has no edge to cms; it has none") || v.Head() != head {
		t.Fatalf("nothing to unlink: %v", err)
	}
	if st := gitIn(t, v.Dir(), "status", "--porcelain"); st != "" {
		t.Fatalf("status: %q", st)
	}
}
