package vault

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

const opsNote = "---\ntitle: Bloom filters\ntype: concept\nstatus: active\ntags: [data-structures, hashing]\nupdated: 2026-11-30\n---\n# Bloom filters\nBody.\n"

// untouched fails unless the vault's HEAD is head and git status is clean.
func untouched(t *testing.T, v *Vault, head repo.CommitID, what string) {
	t.Helper()
	if v.Head() != head {
		t.Errorf("%s moved HEAD", what)
	}
	if st := gitOut(t, v.Dir(), "status", "--porcelain"); st != "" {
		t.Errorf("%s left the tree dirty: %s", what, st)
	}
}

// The operations refuse bad arguments with an *InputError that callers classify
// with errors.Is, without MCP, and write nothing.
func TestVault_EditNote_Refusals(t *testing.T) {
	ctx := context.Background()
	v := servedVault(t, map[string]string{"tech/bloom.md": opsNote, "tech/secret.md": opsNote})
	head, rev := v.Head(), v.Revision("tech/bloom.md")
	base := EditRequest{Path: "tech/bloom.md", ExpectedRevision: rev, Author: testOwner, Roles: []string{"owner"}}
	for _, tc := range []struct {
		name string
		edit func(*EditRequest)
		kind error
	}{
		{"no op", func(r *EditRequest) {}, repo.ErrInvalid},
		{"unknown op", func(r *EditRequest) { r.Op = "rewrite" }, repo.ErrInvalid},
		{"no revision", func(r *EditRequest) { r.Op, r.Content, r.ExpectedRevision = EditAppend, "x", "" }, repo.ErrInvalid},
		{"no heading", func(r *EditRequest) { r.Op, r.Heading, r.Content = EditReplaceSection, "Nope", "x" }, repo.ErrNotFound},
		{"find twice", func(r *EditRequest) { r.Op, r.Find = EditFindReplace, "Bloom" }, repo.ErrInvalid},
	} {
		r := base
		tc.edit(&r)
		_, err := v.EditNote(ctx, r)
		var ie *InputError
		if !errors.As(err, &ie) || !errors.Is(err, tc.kind) {
			t.Errorf("%s: %v (%T)", tc.name, err, err)
		}
	}
	// A note hidden from the requester is not found, as a missing one.
	r := base
	r.Path, r.Op, r.Content, r.ExpectedRevision = "tech/secret.md", EditAppend, "x", v.Revision("tech/secret.md")
	r.Hidden = func(p note.Path) bool { return p == "tech/secret.md" }
	if _, err := v.EditNote(ctx, r); !errors.Is(err, repo.ErrNotFound) {
		t.Errorf("hidden note: %v", err)
	}
	untouched(t, v, head, "a refused edit")
}

func TestVault_Capture(t *testing.T) {
	ctx := context.Background()
	v := servedVault(t, map[string]string{"tech/bloom.md": opsNote})
	now := time.Date(2026, 12, 1, 23, 59, 58, 0, time.FixedZone("x", 3600))
	r := CaptureRequest{Text: "one", Author: testOwner, Roles: []string{"owner"}, Now: now}
	res, err := v.Capture(ctx, r)
	if err != nil || res.Path != "inbox/2026-12-01.md" || !res.Created {
		t.Fatalf("capture: %+v, %v", res, err)
	}
	r.Text, r.Title = "two", "T"
	if res, err = v.Capture(ctx, r); err != nil || res.Created || res.Revision != v.Revision("inbox/2026-12-01.md") {
		t.Fatalf("second capture: %+v, %v", res, err)
	}
	b := gitOut(t, v.Dir(), "show", "HEAD:inbox/2026-12-01.md")
	if !strings.HasSuffix(b, "# Inbox 2026-12-01\n\n## 22:59:58 UTC\n\none\n\n## 22:59:58 UTC · T\n\ntwo\n") {
		t.Fatalf("inbox:\n%s", b)
	}
	head := v.Head()
	r.Hidden = func(p note.Path) bool { return strings.HasPrefix(string(p), "inbox/") }
	if _, err := v.Capture(ctx, r); !errors.Is(err, repo.ErrInvalid) {
		t.Errorf("hidden inbox: %v", err)
	}
	untouched(t, v, head, "a refused capture")
}

func TestVault_FileNote(t *testing.T) {
	ctx := context.Background()
	v := servedVault(t, map[string]string{"tech/bloom.md": opsNote})
	r := FileRequest{Path: "tech/cms.md", Content: []byte(strings.Replace(opsNote, "Bloom filters", "Count-min sketch", 2)),
		Author: testOwner, Roles: []string{"owner"}, Now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}
	res, err := v.FileNote(ctx, r)
	if err != nil || res.Index != "tech/_INDEX.md" || !res.IndexChanged || res.IndexRevision != v.Revision("tech/_INDEX.md") || res.Revision != v.Revision("tech/cms.md") {
		t.Fatalf("file: %+v, %v", res, err)
	}
	if got := gitOut(t, v.Dir(), "show", "--name-only", "--format=", "HEAD"); got != "tech/_INDEX.md\ntech/cms.md\n" {
		t.Fatalf("one commit of both: %q", got)
	}
	head := v.Head()
	r.Path = "tech/hll.md"
	r.Hidden = func(p note.Path) bool { return p == "tech/_INDEX.md" }
	var ie *InputError
	if _, err := v.FileNote(ctx, r); !errors.As(err, &ie) || ie.Path != "tech/_INDEX.md" {
		t.Errorf("hidden index: %v", err)
	}
	r.Path, r.Hidden = "tech/_index.md", nil
	if _, err := v.FileNote(ctx, r); !errors.Is(err, repo.ErrInvalid) {
		t.Errorf("the index itself: %v", err)
	}
	untouched(t, v, head, "a refused filing")
}

func TestVault_RestoreNote_Readable(t *testing.T) {
	ctx := context.Background()
	v := servedVault(t, map[string]string{"tech/bloom.md": opsNote})
	rev := v.Revision("tech/bloom.md")
	if _, err := v.ArchiveNote(ctx, ArchiveRequest{Path: "tech/bloom.md", Reason: repo.Reason("archived"), Author: testOwner, Roles: []string{"owner"}}); err != nil {
		t.Fatal(err)
	}
	head := v.Head()
	r := RestoreRequest{Path: "tech/bloom.md", Revision: rev, Author: testOwner, Roles: []string{"owner"},
		Readable: func(note.Path, []byte) bool { return false }}
	if _, err := v.RestoreNote(ctx, r); !errors.Is(err, repo.ErrNotFound) {
		t.Errorf("unreadable source: %v", err)
	}
	r.From, r.Revision = "HEAD~1", ""
	if _, err := v.RestoreNote(ctx, r); !errors.Is(err, repo.ErrNotFound) || !strings.Contains(err.Error(), "at HEAD~1") {
		t.Errorf("unreadable source at a commit: %v", err)
	}
	r.From, r.Revision = "HEAD~1", rev
	if _, err := v.RestoreNote(ctx, r); !errors.Is(err, repo.ErrInvalid) {
		t.Errorf("both sources: %v", err)
	}
	untouched(t, v, head, "a refused restore")
	r.From, r.Readable = "", nil
	res, err := v.RestoreNote(ctx, r)
	if err != nil || res.Revision != rev || v.Revision("tech/bloom.md") != rev {
		t.Fatalf("restore: %+v, %v", res, err)
	}
}
