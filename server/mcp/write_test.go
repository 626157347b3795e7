package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// onDisk returns the working-tree bytes of p.
func onDisk(t *testing.T, v *vault.Vault, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(v.Dir(), filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// changedPaths lists the paths HEAD's commit changed, by git.
func changedPaths(t *testing.T, v *vault.Vault) []string {
	t.Helper()
	return strings.Fields(testmcp.Git(t, v.Dir(), "show", "--name-only", "--format=", "HEAD"))
}

func TestMCP_WriteNote(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, true)
	content := "---\ntitle: New\n---\n# New\nBody.\n"
	var w mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "tech/new.md", "content": content}, &w)
	if w.Path != "tech/new.md" || w.Revision != v.Revision("tech/new.md") || w.Commit != v.Head() || w.DryRun || len(w.Changes) != 1 {
		t.Fatalf("create: %+v", w)
	}
	assertCommitted(t, v, "claude", "claude@norn.invalid", repo.OpWrite)
	if onDisk(t, v, "tech/new.md") != content || testmcp.Git(t, v.Dir(), "rev-parse", "HEAD") != string(w.Commit) {
		t.Fatal("git and the working tree disagree with the result")
	}

	// A create over an existing note is a conflict naming the current revision.
	te := testmcp.WantError(t, c, ctx, "write_note", map[string]any{"path": "tech/new.md", "content": "# Other\n"}, mcp.CodeConflict, mcp.ClassRetryable)
	if te.CurrentRevision != w.Revision || te.Path != "tech/new.md" || !strings.Contains(te.Message, "expected_revision="+string(w.Revision)) {
		t.Fatalf("conflict: %+v", te)
	}
	var w2 mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "tech/new.md", "content": content + "More.\n", "expected_revision": string(w.Revision)}, &w2)
	te = testmcp.WantError(t, c, ctx, "write_note", map[string]any{"path": "tech/new.md", "content": "# Lost\n", "expected_revision": string(w.Revision)}, mcp.CodeConflict, mcp.ClassRetryable)
	if te.CurrentRevision != w2.Revision || te.ExpectedRevision != w.Revision || !strings.Contains(te.Message, "merge") {
		t.Fatalf("stale update: %+v", te)
	}
	te = testmcp.WantError(t, c, ctx, "write_note", map[string]any{"path": "tech/gone.md", "content": "# Gone\n", "expected_revision": string(w.Revision)}, mcp.CodeConflict, mcp.ClassRetryable)
	if te.CurrentRevision != "" || !strings.Contains(te.Message, "does not exist") {
		t.Fatalf("update of a missing note: %+v", te)
	}

	// A dry run reports and writes nothing.
	head, count := v.Head(), commitCount(t, v)
	var dry mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "tech/new.md", "content": "# Dry\n", "expected_revision": string(w2.Revision), "dry_run": true}, &dry)
	if !dry.DryRun || dry.Commit != "" || dry.Revision == "" || dry.Revision == w2.Revision || v.Head() != head || commitCount(t, v) != count ||
		onDisk(t, v, "tech/new.md") != content+"More.\n" {
		t.Fatalf("dry run: %+v", dry)
	}

	// A gate rejection lists every violation with its rule and line.
	te = testmcp.WantError(t, c, ctx, "write_note", map[string]any{"path": "tech/bad.md", "content": "---\ntags: [Bad Tag]\n---\n# Bad\nno newline"}, mcp.CodeGateRejected, mcp.ClassFixInput)
	var rules []string
	for _, viol := range te.Violations {
		rules = append(rules, viol.Rule)
		if viol.Rule == "tags-format" && (viol.Line != 2 || viol.Path != "tech/bad.md") {
			t.Fatalf("violation: %+v", viol)
		}
	}
	if !slices.Contains(rules, "tags-format") || !slices.Contains(rules, "final-newline") || !strings.Contains(te.Message, "[tags-format] tech/bad.md:2") {
		t.Fatalf("rejection: %+v", te)
	}
	testmcp.WantError(t, c, ctx, "write_note", map[string]any{"path": "tech/notes.txt", "content": "x\n"}, mcp.CodeGateRejected, mcp.ClassFixInput)
	if commitCount(t, v) != count || testmcp.Git(t, v.Dir(), "status", "--porcelain") != "" {
		t.Fatal("a refused write changed the vault")
	}

	// The owner writes as the owner.
	oc, octx := e.Connect(&testmcp.Owner, true)
	testmcp.MustCall(t, oc, octx, "write_note", map[string]any{"path": "mine.md", "content": "# Mine\n"}, nil)
	assertCommitted(t, v, "Ada", "ada@example.com", repo.OpWrite)
}

func TestMCP_EditNote(t *testing.T) {
	v, e := testmcp.NewEnv(t, map[string]string{"e.md": "# E\n\n## One\nx x\n\n## Two\ny\n", "fm.md": "---\ntitle: F\n---\n# F\n"})
	c, ctx := e.Connect(&testmcp.Agent, false)
	rev := string(v.Revision("e.md"))
	steps := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"op": "append", "content": "z"}, "# E\n\n## One\nx x\n\n## Two\ny\nz\n"},
		{map[string]any{"op": "prepend", "content": "top"}, "top\n# E\n\n## One\nx x\n\n## Two\ny\nz\n"},
		{map[string]any{"op": "replace_section", "heading": "One", "content": "one body\n"}, "top\n# E\n\n## One\none body\n## Two\ny\nz\n"},
		{map[string]any{"op": "replace_section", "heading": "## Two", "content": "## Two\nnew two"}, "top\n# E\n\n## One\none body\n## Two\nnew two\n"},
		{map[string]any{"op": "find_replace", "find": "new two", "replace": "second"}, "top\n# E\n\n## One\none body\n## Two\nsecond\n"},
		{map[string]any{"op": "find_replace", "find": "o", "replace": "0", "count": 5}, "t0p\n# E\n\n## One\n0ne b0dy\n## Tw0\nsec0nd\n"},
	}
	for _, s := range steps {
		s.args["path"], s.args["expected_revision"] = "e.md", rev
		var w mcp.WriteResult
		testmcp.MustCall(t, c, ctx, "edit_note", s.args, &w)
		if got := onDisk(t, v, "e.md"); got != s.want || w.Revision != v.Revision("e.md") {
			t.Fatalf("%v:\n%q\nwant\n%q", s.args, got, s.want)
		}
		assertCommitted(t, v, "claude", "claude@norn.invalid", repo.OpEdit)
		rev = string(w.Revision)
	}
	var w mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "edit_note", map[string]any{"path": "fm.md", "op": "prepend", "content": "Lead.\n", "expected_revision": string(v.Revision("fm.md"))}, &w)
	if got := onDisk(t, v, "fm.md"); got != "---\ntitle: F\n---\nLead.\n# F\n" {
		t.Fatalf("prepend after frontmatter: %q", got)
	}

	count := commitCount(t, v)
	te := testmcp.WantError(t, c, ctx, "edit_note", map[string]any{"path": "e.md", "op": "find_replace", "find": "e", "replace": "E", "expected_revision": rev}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if !strings.Contains(te.Message, "occurs 3 times") || !strings.Contains(te.Message, "count=3") {
		t.Fatalf("find_replace count: %s", te.Message)
	}
	testmcp.WantError(t, c, ctx, "edit_note", map[string]any{"path": "e.md", "op": "find_replace", "find": "absent", "replace": "x", "expected_revision": rev}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	testmcp.WantError(t, c, ctx, "edit_note", map[string]any{"path": "e.md", "op": "replace_section", "heading": "Three", "content": "x", "expected_revision": rev}, mcp.CodeNotFound, mcp.ClassFixInput)
	testmcp.WantError(t, c, ctx, "edit_note", map[string]any{"path": "e.md", "op": "append", "content": "x", "find": "y", "expected_revision": rev}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	testmcp.WantError(t, c, ctx, "edit_note", map[string]any{"path": "nope.md", "op": "append", "content": "x", "expected_revision": rev}, mcp.CodeNotFound, mcp.ClassFixInput)
	te = testmcp.WantError(t, c, ctx, "edit_note", map[string]any{"path": "e.md", "op": "append", "content": "x", "expected_revision": string(w.Revision)}, mcp.CodeConflict, mcp.ClassRetryable)
	if te.CurrentRevision != repo.Revision(rev) {
		t.Fatalf("stale edit: %+v", te)
	}
	if commitCount(t, v) != count || testmcp.Git(t, v.Dir(), "status", "--porcelain") != "" {
		t.Fatal("a refused edit changed the vault")
	}
}

func TestMCP_ArchiveAndRestore(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	old := v.Revision("tech/cms.md")
	var a mcp.ArchiveNoteResult
	testmcp.MustCall(t, c, ctx, "archive_note", map[string]any{"path": "tech/cms.md", "reason": "superseded", "expected_revision": string(old)}, &a)
	if a.Revision != "" || a.Commit != v.Head() || len(a.Dangling) != 1 || a.Dangling[0].From != "tech/bloom.md" || v.Revision("tech/cms.md") != "" {
		t.Fatalf("archive: %+v", a)
	}
	assertCommitted(t, v, "claude", "claude@norn.invalid", repo.OpArchive)
	if body := testmcp.Git(t, v.Dir(), "log", "-1", "--format=%B"); !strings.Contains(body, "Norn-Reason: superseded") {
		t.Fatalf("no reason trailer:\n%s", body)
	}
	if _, err := os.Stat(filepath.Join(v.Dir(), "tech", "cms.md")); !os.IsNotExist(err) {
		t.Fatal("archived note still on disk")
	}
	testmcp.WantError(t, c, ctx, "archive_note", map[string]any{"path": "tech/cms.md", "reason": "archived"}, mcp.CodeNotFound, mcp.ClassFixInput)

	var r mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "restore_note", map[string]any{"path": "tech/cms.md", "from": "HEAD~1"}, &r)
	if r.Revision != old || onDisk(t, v, "tech/cms.md") != testmcp.Fixture["tech/cms.md"] {
		t.Fatalf("restore: %+v", r)
	}
	assertCommitted(t, v, "claude", "claude@norn.invalid", repo.OpRestore)
	te := testmcp.WantError(t, c, ctx, "restore_note", map[string]any{"path": "tech/cms.md", "from": "HEAD~2"}, mcp.CodeConflict, mcp.ClassRetryable)
	if te.CurrentRevision != old {
		t.Fatalf("restore over a note: %+v", te)
	}
	// A blob elsewhere than at its own path: only with the private scope (without
	// it, a blob may have been a private note's).
	testmcp.WantError(t, c, ctx, "restore_note", map[string]any{"path": "tech/cms-copy.md", "revision": string(old)}, mcp.CodeNotFound, mcp.ClassFixInput)
	tc, tctx := e.Connect(&testmcp.Trusted, false)
	testmcp.MustCall(t, tc, tctx, "restore_note", map[string]any{"path": "tech/cms-copy.md", "revision": string(old)}, &r)
	if onDisk(t, v, "tech/cms-copy.md") != testmcp.Fixture["tech/cms.md"] {
		t.Fatal("restore by revision")
	}
	testmcp.WantError(t, c, ctx, "restore_note", map[string]any{"path": "x.md", "from": "no-such-commit"}, mcp.CodeNotFound, mcp.ClassFixInput)
}

func TestMCP_MoveAndLink(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	var m mcp.MoveNoteResult
	testmcp.MustCall(t, c, ctx, "move_note", map[string]any{"from": "tech/cms.md", "to": "tech/count-min.md"}, &m)
	if m.Path != "tech/count-min.md" || m.Revision != v.Revision("tech/count-min.md") || !slices.Equal(m.Rewritten, []note.Path{"tech/bloom.md"}) ||
		!strings.Contains(onDisk(t, v, "tech/bloom.md"), "[[count-min]]") {
		t.Fatalf("move: %+v", m)
	}
	assertCommitted(t, v, "claude", "claude@norn.invalid", repo.OpMove)
	testmcp.WantError(t, c, ctx, "move_note", map[string]any{"from": "tech/cms.md", "to": "tech/x.md"}, mcp.CodeNotFound, mcp.ClassFixInput)
	testmcp.WantError(t, c, ctx, "move_note", map[string]any{"from": "tech/count-min.md", "to": "tech/bloom.md"}, mcp.CodeInvalidInput, mcp.ClassFixInput) // no retry can make a move overwrite

	why := "Both hash items into a small array and trade exactness for memory."
	var l mcp.EdgeWriteResult
	testmcp.MustCall(t, c, ctx, "link_notes", map[string]any{"from": "tech/bloom.md", "to": "Count-min sketch", "type": "same_mechanism_as", "why": why}, &l)
	if l.Target != "tech/count-min.md" || !strings.Contains(onDisk(t, v, "tech/bloom.md"), "type: same_mechanism_as") {
		t.Fatalf("link: %+v", l)
	}
	assertCommitted(t, v, "claude", "claude@norn.invalid", repo.OpLink)
	count := commitCount(t, v)
	te := testmcp.WantError(t, c, ctx, "link_notes", map[string]any{"from": "tech/bloom.md", "to": "README", "type": "resembles", "why": why}, mcp.CodeGateRejected, mcp.ClassFixInput)
	if len(te.Violations) == 0 || te.Violations[0].Rule != "edge-type-unknown" {
		t.Fatalf("unknown type: %+v", te)
	}
	// A note the caller cannot see is not a target.
	te = testmcp.WantError(t, c, ctx, "link_notes", map[string]any{"from": "tech/bloom.md", "to": "Secret plan", "type": "supports", "why": why}, mcp.CodeNotFound, mcp.ClassFixInput)
	if strings.Contains(te.Message, "secret.md") {
		t.Fatalf("the error names the private note: %s", te.Message)
	}
	if commitCount(t, v) != count {
		t.Fatal("a refused link changed the vault")
	}
	var u mcp.EdgeWriteResult
	testmcp.MustCall(t, c, ctx, "unlink_notes", map[string]any{"from": "tech/bloom.md", "to": "tech/count-min.md"}, &u)
	if u.Target != "tech/count-min.md" || strings.Contains(onDisk(t, v, "tech/bloom.md"), "same_mechanism_as") {
		t.Fatalf("unlink: %+v", u)
	}
	assertCommitted(t, v, "claude", "claude@norn.invalid", repo.OpLink)
	testmcp.WantError(t, c, ctx, "unlink_notes", map[string]any{"from": "tech/bloom.md", "to": "tech/count-min.md"}, mcp.CodeNotFound, mcp.ClassFixInput)
}

func TestMCP_CaptureIsAppendOnly(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	before := time.Now().UTC().Format("2006-01-02")
	var r1 mcp.CaptureResult
	testmcp.MustCall(t, c, ctx, "capture", map[string]any{"text": "remember the milk", "title": "Groceries"}, &r1)
	after := time.Now().UTC().Format("2006-01-02")
	if r1.Path != note.Path("inbox/"+before+".md") && r1.Path != note.Path("inbox/"+after+".md") || !r1.Created {
		t.Fatalf("capture path: %+v", r1)
	}
	p := string(r1.Path)
	first := onDisk(t, v, p)
	if !strings.HasPrefix(first, "---\ntitle: Inbox ") || !strings.Contains(first, " UTC · Groceries\n\nremember the milk\n") {
		t.Fatalf("inbox note:\n%s", first)
	}
	assertCommitted(t, v, "claude", "claude@norn.invalid", repo.OpCapture)
	if got := changedPaths(t, v); !slices.Equal(got, []string{p}) {
		t.Fatalf("capture touched %v", got)
	}
	others := map[string]string{}
	for f := range testmcp.Fixture {
		others[f] = onDisk(t, v, f)
	}
	var r2 mcp.CaptureResult
	testmcp.MustCall(t, c, ctx, "capture", map[string]any{"text": "and the eggs"}, &r2)
	second := onDisk(t, v, p)
	if r2.Created || r2.Path != r1.Path || !strings.HasPrefix(second, first) || !strings.HasSuffix(second, "\n\nand the eggs\n") {
		t.Fatalf("second capture:\n%s", second)
	}
	if got := changedPaths(t, v); !slices.Equal(got, []string{p}) {
		t.Fatalf("capture touched %v", got)
	}
	for f, b := range others {
		if onDisk(t, v, f) != b {
			t.Fatalf("capture changed %s", f)
		}
	}
	// No argument can point a capture elsewhere.
	count := commitCount(t, v)
	for _, args := range []map[string]any{
		{"text": "x", "path": "tech/bloom.md"},
		{"text": "x", "folder": "tech"},
		{"text": "x", "expected_revision": string(v.Revision("tech/bloom.md"))},
	} {
		testmcp.WantError(t, c, ctx, "capture", args, mcp.CodeInvalidInput, mcp.ClassFixInput)
	}
	var title mcp.CaptureResult
	testmcp.MustCall(t, c, ctx, "capture", map[string]any{"text": "t", "title": "../../tech/bloom.md"}, &title)
	if title.Path != r1.Path || onDisk(t, v, "tech/bloom.md") != testmcp.Fixture["tech/bloom.md"] || commitCount(t, v) == count {
		t.Fatalf("a title is text, not a path: %+v", title)
	}
}

func TestMCP_FileNoteIsOneCommit(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	count := commitCount(t, v)
	var f mcp.FileNoteResult
	testmcp.MustCall(t, c, ctx, "file_note", map[string]any{"path": "tech/hll.md", "content": "---\ntitle: HyperLogLog\n---\n# HyperLogLog\n"}, &f)
	if got := commitCount(t, v); got == count || testmcp.Git(t, v.Dir(), "rev-list", "--count", "HEAD~1") != count {
		t.Fatalf("file_note made %s commits after %s", got, count)
	}
	if got := changedPaths(t, v); !slices.Equal(got, []string{"tech/_INDEX.md", "tech/hll.md"}) {
		t.Fatalf("file_note touched %v", got)
	}
	assertCommitted(t, v, "claude", "claude@norn.invalid", repo.OpWrite)
	idx := onDisk(t, v, "tech/_INDEX.md")
	if !f.IndexChanged || f.Index != "tech/_INDEX.md" || f.IndexRevision != v.Revision("tech/_INDEX.md") || f.Revision != v.Revision("tech/hll.md") ||
		!strings.HasPrefix(idx, "---\ntitle: tech index\n") || !strings.HasSuffix(idx, "\n- [[hll|HyperLogLog]]\n") {
		t.Fatalf("file_note: %+v\n%s", f, idx)
	}
	testmcp.MustCall(t, c, ctx, "file_note", map[string]any{"path": "tech/tdigest.md", "content": "# t-digest\n", "title": "T-digest sketch"}, &f)
	if got := changedPaths(t, v); !slices.Equal(got, []string{"tech/_INDEX.md", "tech/tdigest.md"}) {
		t.Fatalf("second file_note touched %v", got)
	}
	if got := onDisk(t, v, "tech/_INDEX.md"); got != idx+"- [[tdigest|T-digest sketch]]\n" {
		t.Fatalf("index after the second note:\n%s", got)
	}
	// The index already lists the note: only the note changes.
	testmcp.MustCall(t, c, ctx, "file_note", map[string]any{"path": "tech/hll.md", "content": "---\ntitle: HyperLogLog\n---\n# HyperLogLog\nCardinality.\n",
		"expected_revision": string(v.Revision("tech/hll.md"))}, &f)
	if f.IndexChanged || !slices.Equal(changedPaths(t, v), []string{"tech/hll.md"}) {
		t.Fatalf("update of a listed note: %+v", f)
	}
	// A rejected note leaves the index alone too.
	count = commitCount(t, v)
	testmcp.WantError(t, c, ctx, "file_note", map[string]any{"path": "tech/bad.md", "content": "# Bad"}, mcp.CodeGateRejected, mcp.ClassFixInput)
	if commitCount(t, v) != count || strings.Contains(onDisk(t, v, "tech/_INDEX.md"), "bad") || testmcp.Git(t, v.Dir(), "status", "--porcelain") != "" {
		t.Fatal("a rejected file_note changed the vault")
	}
	// At the root, the root index.
	testmcp.MustCall(t, c, ctx, "file_note", map[string]any{"path": "top.md", "content": "# Top\n"}, &f)
	if f.Index != "_INDEX.md" || !slices.Equal(changedPaths(t, v), []string{"_INDEX.md", "top.md"}) {
		t.Fatalf("root: %+v", f)
	}
}

func TestMCP_PrivateNotesAreNotWritableWithoutScope(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	count := commitCount(t, v)
	rev := string(v.Revision("tech/secret.md"))
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"write_note", map[string]any{"path": "tech/secret.md", "content": "# Mine now\n", "expected_revision": rev}},
		{"edit_note", map[string]any{"path": "personal-notes/diary.md", "op": "append", "content": "x", "expected_revision": string(v.Revision("personal-notes/diary.md"))}},
		{"archive_note", map[string]any{"path": "tech/secret.md", "reason": "archived"}},
		{"move_note", map[string]any{"from": "personal-notes/diary.md", "to": "diary.md"}},
		{"link_notes", map[string]any{"from": "tech/secret.md", "to": "README", "type": "supports", "why": "Because it explains where to begin reading."}},
	} {
		// Refused as for a note that is not there (TestMCP_WritesTreatHiddenNotesAsMissing).
		te := testmcp.CallTool(t, c, ctx, tc.tool, tc.args, nil)
		if te == nil || te.Code == mcp.CodeForbidden || strings.Contains(te.Message, "private") {
			t.Errorf("%s: %+v", tc.tool, te)
		}
	}
	if commitCount(t, v) != count {
		t.Fatal("a refused write changed the vault")
	}
	tc, tctx := e.Connect(&testmcp.Trusted, false)
	testmcp.MustCall(t, tc, tctx, "edit_note", map[string]any{"path": "personal-notes/diary.md", "op": "append", "content": "Trusted was here.",
		"expected_revision": string(v.Revision("personal-notes/diary.md"))}, nil)
	assertCommitted(t, v, "trusted", "trusted@norn.invalid", repo.OpEdit)
}

func TestMCP_ClosedVaultIsRetryable(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	te := testmcp.WantError(t, c, ctx, "write_note", map[string]any{"path": "late.md", "content": "# Late\n"}, mcp.CodeClosed, mcp.ClassRetryable)
	if !strings.Contains(te.Message, "retry") {
		t.Fatalf("closed: %s", te.Message)
	}
}

// TestMCP_ConcurrentCapturesAllLand: captures sent at once by many clients all
// land, each its own commit, none lost to the race for today's inbox note.
func TestMCP_ConcurrentCapturesAllLand(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	paths := make(chan note.Path, n)
	for i := range n {
		c, ctx := e.Connect(&testmcp.Agent, false)
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{
				Name: "capture", Arguments: map[string]any{"text": fmt.Sprintf("numbat %d", i)}}})
			if err == nil && res.IsError {
				err = fmt.Errorf("capture %d: %v", i, res.Content)
			}
			if err != nil {
				errs <- err
				return
			}
			var r mcp.CaptureResult
			if err := json.Unmarshal([]byte(res.Content[0].(mcpgo.TextContent).Text), &r); err != nil {
				errs <- err
				return
			}
			paths <- r.Path
		}()
	}
	wg.Wait()
	close(errs)
	close(paths)
	for err := range errs {
		t.Error(err)
	}
	p := <-paths
	body := onDisk(t, v, string(p))
	for i := range n {
		if !strings.Contains(body, fmt.Sprintf("\n\nnumbat %d\n", i)) {
			t.Errorf("capture %d lost:\n%s", i, body)
		}
	}
	if got := strings.Count(testmcp.Git(t, v.Dir(), "log", "--format=%s", "--", string(p)), "capture "); got != n {
		t.Errorf("%d capture commits, want %d", got, n)
	}
}

// TestMCP_MessageIsOneShortLine: a commit subject given as `message` is one line
// of at most repo.MaxSubjectBytes bytes without control characters. A subject
// with lines of its own could plant trailers (git log --grep "Norn-Op: archive"
// would list an ordinary write); every write tool refuses it as invalid_input,
// dry run or not, and nothing is written. Subjects Norn makes itself from long
// paths or titles are cut to fit.
func TestMCP_MessageIsOneShortLine(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	count, status := commitCount(t, v), testmcp.Git(t, v.Dir(), "status", "--porcelain")
	bloom := string(v.Revision("tech/bloom.md"))
	for _, msg := range []string{
		"harmless\n\nNorn-Op: archive\nNorn-Reason: retracted",
		"two\nlines",
		"a\rb",
		"tab\there",
		"bell\x07",
		"line\u2028separator",
		strings.Repeat("x", repo.MaxSubjectBytes+1),
		strings.Repeat("y", 100<<10),
	} {
		for _, dry := range []bool{true, false} {
			for tool, args := range map[string]map[string]any{
				"write_note":   {"path": "new.md", "content": "# New\n"},
				"edit_note":    {"path": "tech/bloom.md", "op": "append", "content": "more", "expected_revision": bloom},
				"file_note":    {"path": "tech/new.md", "content": "# New\n"},
				"move_note":    {"from": "tech/cms.md", "to": "tech/cms2.md"},
				"archive_note": {"path": "big.md", "reason": "archived"},
			} {
				args = maps.Clone(args)
				args["message"], args["dry_run"] = msg, dry
				te := testmcp.WantError(t, c, ctx, tool, args, mcp.CodeInvalidInput, mcp.ClassFixInput)
				if !strings.Contains(te.Message, "message") {
					t.Fatalf("%s: %s", tool, te.Message)
				}
			}
		}
	}
	if commitCount(t, v) != count || testmcp.Git(t, v.Dir(), "status", "--porcelain") != status {
		t.Fatal("a refused message changed the vault")
	}
	if got := testmcp.Git(t, v.Dir(), "log", "--format=%H", "--grep", "Norn-Op: archive"); got != "" {
		t.Fatalf("a planted trailer: %s", got)
	}

	// One line of the maximum length is fine, spaces around it are trimmed.
	subject := strings.Repeat("z", repo.MaxSubjectBytes)
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "new.md", "content": "# New\n", "message": "  " + subject + "\n"}, nil)
	if got := testmcp.Git(t, v.Dir(), "log", "-1", "--format=%s"); got != subject {
		t.Fatalf("subject %q", got)
	}
	// restore_note checks its message as well.
	testmcp.MustCall(t, c, ctx, "archive_note", map[string]any{"path": "new.md", "reason": "archived"}, nil)
	count = commitCount(t, v)
	testmcp.WantError(t, c, ctx, "restore_note", map[string]any{"path": "new.md", "from": "HEAD~1", "message": "x\nNorn-Op: write"}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if commitCount(t, v) != count {
		t.Fatal("a refused restore wrote a commit")
	}
	// Subjects Norn writes itself stay one short line: a capture's title with a
	// control character, a move between long paths.
	testmcp.MustCall(t, c, ctx, "capture", map[string]any{"text": "thought", "title": "odd\x01title " + strings.Repeat("t", 300)}, nil)
	long := "deep/" + strings.Repeat("d", 150) + "/note.md"
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": long, "content": "# Deep\n"}, nil)
	testmcp.MustCall(t, c, ctx, "move_note", map[string]any{"from": long, "to": strings.Replace(long, "note.md", "moved.md", 1)}, nil)
	for _, s := range strings.Split(testmcp.Git(t, v.Dir(), "log", "-3", "--format=%s"), "\n") {
		if repo.ValidSubject(s) != nil {
			t.Fatalf("norn wrote the subject %q", s)
		}
	}
}

// TestMCP_WriteWhileGitHasTheWorkingTree: with another branch checked out beside
// the server, a write is git_busy naming the branch and how to get back, not a
// conflict to retry at once, and nothing is written to either branch.
func TestMCP_WriteWhileGitHasTheWorkingTree(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	head := v.Head()
	testmcp.Git(t, v.Dir(), "switch", "-q", "-c", "other")
	te := testmcp.WantError(t, c, ctx, "write_note", map[string]any{"path": "late.md", "content": "# Late\n"}, mcp.CodeGitBusy, mcp.ClassRetryable)
	if !strings.Contains(te.Message, "checked out at other") || !strings.Contains(te.Message, "git switch main") {
		t.Fatalf("message: %s", te.Message)
	}
	if v.Head() != head || testmcp.Git(t, v.Dir(), "rev-parse", "other") != testmcp.Git(t, v.Dir(), "rev-parse", "main") {
		t.Fatal("a refused write committed")
	}
	testmcp.Git(t, v.Dir(), "switch", "-q", "main")
	var w mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "late.md", "content": "# Late\n"}, &w)
	if st := testmcp.Git(t, v.Dir(), "status", "--porcelain"); strings.TrimSpace(st) != "" {
		t.Fatalf("git status after the write: %s", st)
	}
}

// TestMCP_FileNoteConcurrentIntoOneFolder: agents filing notes into the same new
// folder at once all land, each listed once in the folder's index. They raced on
// the index and got a conflict naming it and its revision, which retrying with
// could not help (the caller never named the index).
func TestMCP_FileNoteConcurrentIntoOneFolder(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	const agents = 8
	errs := make(chan error, agents)
	for i := range agents {
		c, ctx := e.Connect(&testmcp.Agent, false)
		go func() {
			var out mcp.FileNoteResult
			te := testmcp.CallTool(t, c, ctx, "file_note", map[string]any{"path": fmt.Sprintf("shared/n%d.md", i), "content": fmt.Sprintf("---\ntitle: N%d\n---\n# N%d\n", i, i)}, &out)
			if te != nil {
				errs <- te
				return
			}
			errs <- nil
		}()
	}
	for range agents {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	b, err := v.Read(context.Background(), "shared/_INDEX.md", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range agents {
		if n := strings.Count(string(b.Content), fmt.Sprintf("[[n%d|N%d]]", i, i)); n != 1 {
			t.Fatalf("n%d is listed %d times in the index:\n%s", i, n, b.Content)
		}
	}
}

// TestMCP_SearchWaitUnderWriteLoad: a search that waits for pending writes answers
// once the index has every commit made before it began; commits landing during the
// search made it fail as index_stale at once (about 2% of searches under load).
func TestMCP_SearchWaitUnderWriteLoad(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	stop := make(chan struct{})
	done := make(chan struct{})
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p := note.Path(fmt.Sprintf("load/w%d-%d.md", w, i))
				if _, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "loader"}, Op: repo.OpWrite,
					Changes: []repo.Change{{Kind: repo.Put, Path: p, Content: []byte("# Load\nzebra load\n")}}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var stale atomic.Int32
	var searchers sync.WaitGroup
	for range 4 {
		c, ctx := e.Connect(&testmcp.Agent, false)
		searchers.Add(1)
		go func() {
			defer searchers.Done()
			for i := range 100 {
				var out mcp.SearchResult
				if te := testmcp.CallTool(t, c, ctx, "search", map[string]any{"query": "zebra", "wait_for_pending_writes": true}, &out); te != nil {
					if te.Code != mcp.CodeIndexStale {
						t.Errorf("search %d: %v", i, te)
						return
					}
					stale.Add(1)
				}
			}
		}()
	}
	searchers.Wait()
	close(stop)
	for range 4 {
		<-done
	}
	if n := stale.Load(); n > 0 {
		t.Fatalf("%d of 400 waited searches failed as index_stale while the index had every earlier commit", n)
	}
}
