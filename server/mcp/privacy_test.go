package mcp_test

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// TestMCP_PrivateNotesAreInvisible: to a principal without the private scope, a
// private note (by folder or by frontmatter) is exactly like a note that does not
// exist, in every read tool and resource; nothing of its title or content leaks.
func TestMCP_PrivateNotesAreInvisible(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, true)
	leaks := func(what string, s string) {
		t.Helper()
		for _, secret := range []string{"zebra", "Secret plan", "secret.md", "diary", "Diary"} {
			if strings.Contains(s, secret) {
				t.Fatalf("%s leaks %q: %s", what, secret, s)
			}
		}
	}
	var r mcp.SearchResult
	testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": "zebra"}, &r)
	if r.Total != 0 || len(r.Hits) != 0 {
		t.Fatalf("search: %+v", r)
	}
	var p1, p2 mcp.SearchResult
	testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": "hashing", "limit": 1}, &p1)
	testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": "hashing", "limit": 1, "offset": 1}, &p2)
	if p1.Total != 2 || p1.NextOffset != 1 || len(p2.Hits) != 1 || p2.NextOffset != 0 || p2.Hits[0].Path == "tech/secret.md" || p2.Hits[0].Path == p1.Hits[0].Path {
		t.Fatalf("search pages around a hidden hit: %+v / %+v", p1, p2)
	}

	// Hidden and missing notes answer the same.
	same := func(hidden, missing map[string]any, tool, hiddenPath, missingPath string) {
		t.Helper()
		h := testmcp.WantError(t, c, ctx, tool, hidden, mcp.CodeNotFound, mcp.ClassFixInput)
		m := testmcp.WantError(t, c, ctx, tool, missing, mcp.CodeNotFound, mcp.ClassFixInput)
		if strings.ReplaceAll(h.Message, hiddenPath, missingPath) != m.Message {
			t.Fatalf("%s: a hidden note answers %q, a missing one %q", tool, h.Message, m.Message)
		}
	}
	same(map[string]any{"path": "personal-notes/diary.md"}, map[string]any{"path": "personal-notes/nope.md"}, "read_note", "diary.md", "nope.md")
	same(map[string]any{"path": "tech/secret.md"}, map[string]any{"path": "tech/nopes.md"}, "read_note", "secret.md", "nopes.md")
	same(map[string]any{"path": "Secret plan"}, map[string]any{"path": "Absent plan"}, "read_note", "Secret", "Absent")
	same(map[string]any{"path": "tech/secret.md"}, map[string]any{"path": "tech/nopes.md"}, "get_context", "secret.md", "nopes.md")
	same(map[string]any{"path": "tech/secret.md"}, map[string]any{"path": "tech/nopes.md"}, "links", "secret.md", "nopes.md")
	for _, args := range []map[string]any{
		{"path": "tech/secret.md", "at": string(v.Head())},
		{"path": "tech/secret.md", "at": string(v.Revision("tech/secret.md"))},
		{"path": "tech/public-name.md", "at": string(v.Revision("tech/secret.md"))},
	} {
		te := testmcp.WantError(t, c, ctx, "read_note", args, mcp.CodeNotFound, mcp.ClassFixInput)
		if strings.Contains(te.Message, "zebra") || strings.Contains(te.Message, "Secret plan") {
			t.Fatalf("read_note at leaks: %s", te.Message)
		}
	}

	var l mcp.ListNotesResult
	testmcp.MustCall(t, c, ctx, "list_notes", nil, &l)
	for _, n := range l.Notes {
		leaks("list_notes", string(n.Path))
	}
	var h mcp.HistoryResult
	testmcp.MustCall(t, c, ctx, "history", nil, &h)
	for _, cm := range h.Commits {
		for _, p := range cm.Paths {
			leaks("history", string(p))
		}
	}

	// A private note changed by someone trusted: the change is not in diff.
	tc, tctx := e.Connect(&testmcp.Trusted, true)
	testmcp.MustCall(t, tc, tctx, "edit_note", map[string]any{"path": "tech/secret.md", "op": "append", "content": "zebra crossing", "expected_revision": string(v.Revision("tech/secret.md"))}, nil)
	var d mcp.DiffResult
	testmcp.MustCall(t, c, ctx, "diff", map[string]any{"from": "HEAD~1"}, &d)
	if d.Total != 0 || len(d.Changes) != 0 {
		t.Fatalf("diff shows a private change: %+v", d)
	}
	var dh, dm mcp.DiffResult
	testmcp.MustCall(t, c, ctx, "diff", map[string]any{"from": "HEAD~1", "path": "tech/secret.md"}, &dh)
	testmcp.MustCall(t, c, ctx, "diff", map[string]any{"from": "HEAD~1", "path": "tech/nopes.md"}, &dm)
	if dh.Unified != "" || dh.Total != 0 || dh.From != dm.From || dh.To != dm.To || dm.Total != 0 {
		t.Fatalf("diff of a hidden note %+v, of a missing one %+v", dh, dm)
	}
	// The commit that changed only the private note does not exist for the caller.
	testmcp.MustCall(t, c, ctx, "history", map[string]any{"limit": 1}, &h)
	if len(h.Commits) != 1 || h.Commits[0].Commit == v.Head() || h.Truncated {
		t.Fatalf("history shows a commit of private changes only: %+v", h)
	}
	leaks("history subject", h.Commits[0].Subject)

	// Resources too.
	list, err := c.ListResources(ctx, mcpgo.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range list.Resources {
		leaks("resources/list", res.URI)
	}
	if len(list.Resources) != 6 {
		t.Fatalf("resources: %d, want the 6 visible notes", len(list.Resources))
	}
	if _, err := c.ReadResource(ctx, mcpgo.ReadResourceRequest{Params: mcpgo.ReadResourceParams{URI: mcp.NoteURI("tech/secret.md")}}); err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Fatalf("resource read of a private note: %v", err)
	}

	// The trusted principal sees everything.
	var sr mcp.SearchResult
	testmcp.MustCall(t, tc, tctx, "search", map[string]any{"query": "zebra"}, &sr)
	var rn mcp.ReadNoteResult
	testmcp.MustCall(t, tc, tctx, "read_note", map[string]any{"path": "Secret plan"}, &rn)
	if sr.Total != 2 || rn.Path != "tech/secret.md" || !strings.Contains(rn.Content, "zebra crossing") {
		t.Fatalf("trusted: %+v %+v", sr, rn)
	}
}

// TestMCP_NamesResolveWithoutHiddenNotes: a wikilink name resolves in the vault
// as the caller sees it. A name shared with a private note is not "ambiguous"
// to a caller that cannot see it, a private note that would win an earlier
// resolution step (file name before title) does not shadow a visible one, and an
// ambiguous edge target lists no hidden candidate.
func TestMCP_NamesResolveWithoutHiddenNotes(t *testing.T) {
	_, e := testmcp.NewEnv(t, map[string]string{
		"pub/plan.md":       "# Plan\nthe visible plan\n",
		"priv/plan.md":      "---\nprivate: true\n---\n# Plan\nzebra\n",
		"notes/a.md":        "---\ntitle: Roadmap\n---\n# Roadmap\nwhere we go\n",
		"secret/roadmap.md": "---\nprivate: true\n---\n# Roadmap\nzebra\n",
		"pub/dup.md":        "# Dup\n",
		"priv/dup.md":       "---\nprivate: true\n---\n# Dup\nzebra\n",
		"other/dup.md":      "# Dup\n",
	})
	c, ctx := e.Connect(&testmcp.Agent, true)
	tc, tctx := e.Connect(&testmcp.Trusted, true)

	for name, want := range map[string]note.Path{"plan": "pub/plan.md", "Plan": "pub/plan.md", "Roadmap": "notes/a.md"} {
		var rn mcp.ReadNoteResult
		testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": name}, &rn)
		if rn.Path != want || strings.Contains(rn.Content, "zebra") {
			t.Fatalf("read_note %q without private: %s, want %s", name, rn.Path, want)
		}
	}
	// The trusted caller sees both plans, and the private roadmap's file name wins.
	te := testmcp.WantError(t, tc, tctx, "read_note", map[string]any{"path": "plan"}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if !slices.Equal(te.Candidates, []note.Path{"priv/plan.md", "pub/plan.md"}) {
		t.Fatalf("trusted read_note plan: %+v", te)
	}
	var rn mcp.ReadNoteResult
	testmcp.MustCall(t, tc, tctx, "read_note", map[string]any{"path": "Roadmap"}, &rn)
	if rn.Path != "secret/roadmap.md" {
		t.Fatalf("trusted read_note Roadmap: %s", rn.Path)
	}

	// Ambiguous to everyone (two visible dups): the hidden one is not named.
	te = testmcp.WantError(t, c, ctx, "read_note", map[string]any{"path": "dup"}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if !slices.Equal(te.Candidates, []note.Path{"other/dup.md", "pub/dup.md"}) || strings.Contains(te.Message, "priv/") || !strings.Contains(te.Message, "2 notes") {
		t.Fatalf("read_note dup without private: %+v", te)
	}
	te = testmcp.WantError(t, c, ctx, "link_notes", map[string]any{"from": "notes/a.md", "to": "dup", "type": "supports",
		"why": "the roadmap leans on the duplicate note's argument"}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if strings.Contains(te.Message, "priv/") || !strings.Contains(te.Message, "other/dup.md") {
		t.Fatalf("link_notes to an ambiguous name leaks or hides too much: %s", te.Message)
	}
	te = testmcp.WantError(t, tc, tctx, "link_notes", map[string]any{"from": "notes/a.md", "to": "dup", "type": "supports",
		"why": "the roadmap leans on the duplicate note's argument"}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if !strings.Contains(te.Message, "priv/dup.md") {
		t.Fatalf("trusted link_notes to an ambiguous name: %s", te.Message)
	}
}

// TestMCP_CommitishCannotSearchHistory: read_note's at and diff's from/to take
// only the documented commit-ish forms. A message search (REV^{/regex}) would find
// the subject history redacts for a commit touching a private note, one guess at
// a time; it is refused as invalid_input, the same whether it would match or not,
// and so is REV:path.
func TestMCP_CommitishCannotSearchHistory(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, true)
	tc, tctx := e.Connect(&testmcp.Trusted, true)
	testmcp.MustCall(t, tc, tctx, "edit_note", map[string]any{"path": "tech/secret.md", "op": "append", "content": "new key",
		"expected_revision": string(v.Revision("tech/secret.md")), "message": "rotate vault key to 7"}, nil)
	testmcp.MustCall(t, tc, tctx, "edit_note", map[string]any{"path": "tech/cms.md", "op": "append", "content": "more",
		"expected_revision": string(v.Revision("tech/cms.md"))}, nil)
	var h mcp.HistoryResult
	testmcp.MustCall(t, c, ctx, "history", map[string]any{"limit": 2}, &h)
	if len(h.Commits) != 2 || h.Commits[1].Op != repo.OpImport || strings.Contains(h.Commits[1].Subject, "rotate") {
		t.Fatalf("history lists the private commit: %+v", h.Commits)
	}
	var msgs []string
	for _, guess := range []string{"7", "8"} {
		at := "HEAD^{/rotate.vault.key.to." + guess + "}"
		te := testmcp.WantError(t, c, ctx, "read_note", map[string]any{"path": "README.md", "at": at}, mcp.CodeInvalidInput, mcp.ClassFixInput)
		msgs = append(msgs, strings.ReplaceAll(te.Message, at, "AT"))
		te = testmcp.WantError(t, c, ctx, "diff", map[string]any{"from": at}, mcp.CodeInvalidInput, mcp.ClassFixInput)
		msgs = append(msgs, strings.ReplaceAll(te.Message, at, "AT"))
		te = testmcp.WantError(t, c, ctx, "diff", map[string]any{"from": "HEAD~1", "to": at}, mcp.CodeInvalidInput, mcp.ClassFixInput)
		msgs = append(msgs, strings.ReplaceAll(te.Message, at, "AT"))
	}
	if msgs[0] != msgs[3] || msgs[1] != msgs[4] || msgs[2] != msgs[5] {
		t.Fatalf("a matching and a non-matching message search answer differently: %q", msgs)
	}
	testmcp.WantError(t, c, ctx, "read_note", map[string]any{"path": "README.md", "at": "HEAD:nope.md"}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	testmcp.WantError(t, c, ctx, "diff", map[string]any{"from": "HEAD~1", "to": "HEAD:nope.md"}, mcp.CodeInvalidInput, mcp.ClassFixInput)

	// The documented forms still work.
	var rn mcp.ReadNoteResult
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "tech/cms.md", "at": "HEAD~1"}, &rn)
	// HEAD~1 is the commit of the private note, which history does not list.
	if strings.Contains(rn.Content, "more") || string(rn.Commit) == string(h.Commits[0].Commit) || rn.Commit == "" {
		t.Fatalf("read_note at HEAD~1: %+v", rn)
	}
	var d mcp.DiffResult
	testmcp.MustCall(t, c, ctx, "diff", map[string]any{"from": "HEAD^", "to": string(v.Head())[:8]}, &d)
	if len(d.Changes) != 1 || d.Changes[0].Path != "tech/cms.md" {
		t.Fatalf("diff HEAD^..short id: %+v", d)
	}
}

// TestMCP_RestoreAndReadTakeOnlyVisibleSources: without the private scope, a
// blob revision is restored or read only where it was: at that very path in the
// history, as a note the caller could see there. A private folder's blob copied
// to (or read at) a public path, a restore from a commit where the path was a
// private note, and a dry run probing whether some blob exists all answer exactly
// as a source that does not exist. The private scope restores any blob.
func TestMCP_RestoreAndReadTakeOnlyVisibleSources(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, true)
	tc, tctx := e.Connect(&testmcp.Trusted, true)
	diary, secret, bloom := string(v.Revision("personal-notes/diary.md")), string(v.Revision("tech/secret.md")), string(v.Revision("tech/bloom.md"))
	fake := strings.Repeat("ab", 20)
	head := string(v.Head())
	same := func(tool string, args map[string]any, key, hidden, missing string) {
		t.Helper()
		dries := []any{true, false}
		if tool == "read_note" {
			dries = []any{nil}
		}
		for _, dry := range dries {
			a, b := maps.Clone(args), maps.Clone(args)
			a[key], b[key] = hidden, missing
			if dry != nil {
				a["dry_run"], b["dry_run"] = dry, dry
			}
			h := testmcp.WantError(t, c, ctx, tool, a, mcp.CodeNotFound, mcp.ClassFixInput)
			m := testmcp.WantError(t, c, ctx, tool, b, mcp.CodeNotFound, mcp.ClassFixInput)
			if strings.ReplaceAll(h.Message, hidden, missing) != m.Message || strings.ReplaceAll(string(h.Path), hidden, missing) != string(m.Path) {
				t.Fatalf("%s %v: the hidden source answers %+v, a missing one %+v", tool, a, h, m)
			}
			if strings.Contains(h.Message, "zebra") || strings.Contains(h.Message, "Secret plan") {
				t.Fatalf("%s leaks: %s", tool, h.Message)
			}
		}
	}
	same("restore_note", map[string]any{"path": "leaked.md"}, "revision", diary, fake)
	same("restore_note", map[string]any{"path": "leaked.md"}, "revision", secret, fake)
	same("restore_note", map[string]any{"path": "leaked.md"}, "revision", bloom, fake) // a public blob, but not leaked.md's
	same("restore_note", map[string]any{"path": "leaked.md"}, "revision", head, fake)  // a commit's id
	same("read_note", map[string]any{"path": "README.md"}, "at", diary, fake)
	same("read_note", map[string]any{"path": "README.md"}, "at", string(v.Revision("tech/cms.md")), fake)
	if string(v.Head()) != head {
		t.Fatal("a refused restore wrote a commit")
	}
	testmcp.WantError(t, c, ctx, "read_note", map[string]any{"path": "leaked.md"}, mcp.CodeNotFound, mcp.ClassFixInput)

	// Private notes archived by someone trusted: restoring them from a commit
	// where they were is like restoring a path that was never there.
	testmcp.MustCall(t, tc, tctx, "archive_note", map[string]any{"path": "personal-notes/diary.md", "reason": "archived"}, nil)
	testmcp.MustCall(t, tc, tctx, "archive_note", map[string]any{"path": "tech/secret.md", "reason": "archived"}, nil)
	same("restore_note", map[string]any{"from": "HEAD~2"}, "path", "personal-notes/diary.md", "personal-notes/nope.md")
	same("restore_note", map[string]any{"from": "HEAD~2"}, "path", "tech/secret.md", "tech/nopes.md")
	same("restore_note", map[string]any{"path": "personal-notes/diary.md"}, "revision", diary, fake)
	same("restore_note", map[string]any{"path": "tech/secret.md"}, "revision", secret, fake)
	same("read_note", map[string]any{"path": "tech/secret.md"}, "at", secret, fake)

	// What the caller could see comes back: a public note's own old blob, by
	// revision or from a commit, and read at that revision.
	testmcp.MustCall(t, c, ctx, "archive_note", map[string]any{"path": "tech/bloom.md", "reason": "archived"}, nil)
	var rn mcp.ReadNoteResult
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "tech/bloom.md", "at": bloom}, &rn)
	if string(rn.Revision) != bloom || !strings.Contains(rn.Content, "A set sketch") {
		t.Fatalf("read_note of a visible old revision: %+v", rn)
	}
	var w mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "restore_note", map[string]any{"path": "tech/bloom.md", "from": "HEAD~1", "dry_run": true}, &w)
	if string(w.Revision) != bloom {
		t.Fatalf("restore from a commit: %+v", w)
	}
	testmcp.MustCall(t, c, ctx, "restore_note", map[string]any{"path": "tech/bloom.md", "revision": bloom}, &w)
	if string(w.Revision) != bloom || string(v.Revision("tech/bloom.md")) != bloom {
		t.Fatalf("restore of a visible revision: %+v", w)
	}

	// The private scope restores any blob, anywhere, as before.
	testmcp.MustCall(t, tc, tctx, "restore_note", map[string]any{"path": "copy.md", "revision": diary, "dry_run": true}, &w)
	if string(w.Revision) != diary {
		t.Fatalf("trusted restore of any blob: %+v", w)
	}
}

// TestMCP_WritesTreatHiddenNotesAsMissing: to a writer without the private scope,
// every write tool answers for a private note (by frontmatter or by folder) what
// it answers for a path with no note, message for message. Where that would mean
// writing over the note (a create, a restore, a move onto it) the answer is
// invalid_input saying the path is taken, never a retryable conflict, and naming
// no other note. Nothing is written.
func TestMCP_WritesTreatHiddenNotesAsMissing(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	s := &e2eSession{v: v}
	state := s.vaultState(t)
	stale := strings.Repeat("ab", 20)
	const why = "Because it explains where to begin reading."
	for _, pair := range [][2]string{{"tech/secret.md", "tech/nopes.md"}, {"personal-notes/diary.md", "personal-notes/nope.md"}} {
		hidden, missing := pair[0], pair[1]
		for _, tc := range []struct {
			tool, key string
			args      map[string]any
		}{
			{"write_note", "path", map[string]any{"content": "# Mine now\n", "expected_revision": stale}},
			{"edit_note", "path", map[string]any{"op": "append", "content": "x", "expected_revision": stale}},
			{"archive_note", "path", map[string]any{"reason": "archived"}},
			{"archive_note", "path", map[string]any{"reason": "archived", "expected_revision": stale, "dry_run": true}},
			{"move_note", "from", map[string]any{"to": "elsewhere.md"}},
			{"move_note", "from", map[string]any{"to": "elsewhere.md", "dry_run": true}},
			{"restore_note", "path", map[string]any{"from": "HEAD"}},
			{"restore_note", "path", map[string]any{"revision": stale}},
			{"link_notes", "from", map[string]any{"to": "README", "type": "supports", "why": why}},
			{"link_notes", "to", map[string]any{"from": "README.md", "type": "supports", "why": why}},
			{"unlink_notes", "from", map[string]any{"to": "README"}},
			{"unlink_notes", "to", map[string]any{"from": "README.md"}},
			{"file_note", "path", map[string]any{"content": "# X\n", "expected_revision": stale}},
		} {
			a, b := maps.Clone(tc.args), maps.Clone(tc.args)
			a[tc.key], b[tc.key] = hidden, missing
			h, m := testmcp.CallTool(t, c, ctx, tc.tool, a, nil), testmcp.CallTool(t, c, ctx, tc.tool, b, nil)
			if h == nil || m == nil {
				t.Fatalf("%s %v: hidden %+v, missing %+v: want both refused", tc.tool, a, h, m)
			}
			hm := strings.ReplaceAll(h.Message, hidden, missing)
			if h.Code != m.Code || h.Class != m.Class || hm != m.Message || strings.ReplaceAll(string(h.Path), hidden, missing) != string(m.Path) ||
				h.CurrentRevision != m.CurrentRevision {
				t.Fatalf("%s %v: a hidden note answers\n%+v\na missing one\n%+v", tc.tool, a, h, m)
			}
		}
	}
	if after := s.vaultState(t); after != state {
		t.Fatalf("a refused write changed the vault: %s, then %s", state, after)
	}

	// Where the path is taken: refused as invalid_input, not retryable, naming
	// only the caller's own path.
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "mv-src.md", "content": "# Src\n"}, nil)
	state = s.vaultState(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"write_note", map[string]any{"path": "tech/secret.md", "content": "# Mine now\n"}},
		{"file_note", map[string]any{"path": "tech/secret.md", "content": "# Mine now\n"}},
		{"move_note", map[string]any{"from": "mv-src.md", "to": "tech/secret.md"}},
		{"move_note", map[string]any{"from": "mv-src.md", "to": "tech/secret.md", "dry_run": true}},
		{"move_note", map[string]any{"from": "mv-src.md", "to": "personal-notes/diary.md"}},
	} {
		for range 2 { // the same answer again: nothing to retry
			te := testmcp.WantError(t, c, ctx, tc.tool, tc.args, mcp.CodeInvalidInput, mcp.ClassFixInput)
			if !strings.Contains(te.Message, "taken") || strings.Contains(te.Message, "private") || strings.Contains(te.Message, "Secret plan") {
				t.Fatalf("%s %v: %s", tc.tool, tc.args, te.Message)
			}
		}
	}
	if after := s.vaultState(t); after != state {
		t.Fatalf("a refused write changed the vault: %s, then %s", state, after)
	}
}

// TestMCP_MoveDoesNotNameHiddenNotes: a move whose links to rewrite include a
// note the caller cannot see is refused as forbidden without naming that note
// (the demo vault: personal-notes/my-rules-for-agents.md links to
// concepts/restore.md), dry run or not; a caller with the private scope moves it
// and the hidden note's link follows.
func TestMCP_MoveDoesNotNameHiddenNotes(t *testing.T) {
	v, e := testmcp.NewEnv(t, map[string]string{
		"concepts/restore.md":                   "# Restore\n## How it works\nBack from history.\n",
		"personal-notes/my-rules-for-agents.md": "# Rules\nSee [[concepts/restore]] first.\n",
		"tech/plan.md":                          "---\nprivate: true\n---\n# Plan\nUses [[Restore]].\n",
		"guide.md":                              "# Guide\n[[Restore]]\n",
	})
	c, ctx := e.Connect(&testmcp.Agent, false)
	s := &e2eSession{v: v}
	state := s.vaultState(t)
	for _, dry := range []bool{true, false} {
		te := testmcp.WantError(t, c, ctx, "move_note", map[string]any{"from": "concepts/restore.md", "to": "concepts/restore2.md", "dry_run": dry},
			mcp.CodeForbidden, mcp.ClassFatal)
		for _, secret := range []string{"personal-notes", "my-rules", "tech/plan", ":2"} {
			if strings.Contains(te.Message, secret) || te.Path != "" && te.Path != "concepts/restore.md" {
				t.Fatalf("the refusal names a hidden note: %+v", te)
			}
		}
		if len(te.Violations) != 0 {
			t.Fatalf("violations: %+v", te.Violations)
		}
	}
	if after := s.vaultState(t); after != state {
		t.Fatalf("a refused move changed the vault: %s, then %s", state, after)
	}
	tc, tctx := e.Connect(&testmcp.Trusted, false)
	testmcp.MustCall(t, tc, tctx, "move_note", map[string]any{"from": "concepts/restore.md", "to": "concepts/restore2.md"}, nil)
	if got := onDisk(t, v, "personal-notes/my-rules-for-agents.md"); !strings.Contains(got, "[[concepts/restore2]]") {
		t.Fatalf("the hidden note's link: %q", got)
	}
}

// TestMCP_CaptureIntoHiddenInbox: when today's inbox note is private, a caller
// who may not see it is told to write a note of its own (capture takes no path,
// so "choose another path" would be no help); nothing is written.
func TestMCP_CaptureIntoHiddenInbox(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	trusted, tctx := e.Connect(&testmcp.Trusted, false)
	var r mcp.CaptureResult
	testmcp.MustCall(t, trusted, tctx, "capture", map[string]any{"text": "first"}, &r)
	b := onDisk(t, v, string(r.Path))
	testmcp.MustCall(t, trusted, tctx, "write_note", map[string]any{"path": string(r.Path), "expected_revision": string(v.Revision(r.Path)),
		"content": strings.Replace(b, "---\n", "---\nprivate: true\n", 1)}, nil)
	c, ctx := e.Connect(&testmcp.Agent, false)
	s := &e2eSession{v: v}
	state := s.vaultState(t)
	te := testmcp.WantError(t, c, ctx, "capture", map[string]any{"text": "second"}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if !strings.Contains(te.Message, "write_note") || strings.Contains(te.Message, "another path") {
		t.Errorf("message: %s", te.Message)
	}
	if after := s.vaultState(t); after != state {
		t.Fatalf("a refused capture changed the vault: %s, then %s", state, after)
	}
}

// TestMCP_HiddenLooksMissing: to a principal without the private scope, what a
// private note answers looks exactly like nothing: links naming a private title,
// alias or file name are broken like a link to nothing, stats count as in the
// vault without private notes, a folder of private notes only is a missing
// folder, a private note's history and diff are a free path's, and a commit of
// private notes only is not listed.
func TestMCP_HiddenLooksMissing(t *testing.T) {
	files := maps.Clone(testmcp.Fixture)
	files["notes/public.md"] = "# Public\nSee [[Project Nightjar]], [[xylodiary]], [[bulk7]] and [[nothing-at-all]].\n"
	files["hush/nightjar.md"] = "---\ntitle: Project Nightjar\naliases: [xylodiary]\nprivate: true\n---\n# Nightjar\n"
	files["personal-notes/bulk7.md"] = "# Bulk\n"
	v, e := testmcp.NewEnv(t, files)
	c, ctx := e.Connect(&testmcp.Agent, true)
	public := maps.Clone(files)
	for _, p := range []string{"hush/nightjar.md", "personal-notes/bulk7.md", "personal-notes/diary.md", "tech/secret.md"} {
		delete(public, p)
	}
	_, ep := testmcp.NewEnv(t, public)
	pc, pctx := ep.Connect(&testmcp.Agent, true)

	var l vault.Links
	testmcp.MustCall(t, c, ctx, "links", map[string]any{"path": "notes/public.md"}, &l)
	for _, o := range l.Outgoing {
		if o.Status != "broken" || o.To != "" || len(o.Candidates) != 0 {
			t.Errorf("a link to %q looks other than broken: %+v", o.Target, o)
		}
	}
	var st, pst vault.Stats
	testmcp.MustCall(t, c, ctx, "stats", nil, &st)
	testmcp.MustCall(t, pc, pctx, "stats", nil, &pst)
	st.Commit, pst.Commit = "", ""
	if !reflect.DeepEqual(st, pst) {
		t.Errorf("stats with private notes %+v\nwithout %+v", st, pst)
	}

	te := testmcp.WantError(t, c, ctx, "list_notes", map[string]any{"folder": "hush"}, mcp.CodeNotFound, mcp.ClassFixInput)
	tm := testmcp.WantError(t, c, ctx, "list_notes", map[string]any{"folder": "nope"}, mcp.CodeNotFound, mcp.ClassFixInput)
	if strings.ReplaceAll(te.Message, "hush", "nope") != tm.Message {
		t.Errorf("list_notes: a folder of private notes %q, a missing one %q", te.Message, tm.Message)
	}
	for _, pair := range [][2]string{{"hush/nightjar.md", "hush/free.md"}, {"personal-notes/bulk7.md", "personal-notes/free.md"}} {
		var hh, hm mcp.HistoryResult
		testmcp.MustCall(t, c, ctx, "history", map[string]any{"path": pair[0]}, &hh)
		testmcp.MustCall(t, c, ctx, "history", map[string]any{"path": pair[1]}, &hm)
		if len(hh.Commits) != 0 || len(hm.Commits) != 0 || hh.Truncated != hm.Truncated {
			t.Errorf("history of %s %+v, of %s %+v", pair[0], hh, pair[1], hm)
		}
	}

	// A commit of private notes only does not exist for the caller.
	before := v.Head()
	tc, tctx := e.Connect(&testmcp.Trusted, true)
	testmcp.MustCall(t, tc, tctx, "edit_note", map[string]any{"path": "hush/nightjar.md", "op": "append", "content": "more",
		"expected_revision": string(v.Revision("hush/nightjar.md"))}, nil)
	var h mcp.HistoryResult
	testmcp.MustCall(t, c, ctx, "history", nil, &h)
	if len(h.Commits) != 1 || h.Commits[0].Commit != before {
		t.Errorf("history lists a commit of private notes only: %+v", h.Commits)
	}
	var m mcp.VaultMap
	testmcp.MustCall(t, c, ctx, "vault_map", nil, &m)
	if len(m.Recent) != 1 || m.Recent[0].Commit != before {
		t.Errorf("vault_map lists a commit of private notes only: %+v", m.Recent)
	}
	var dh, dm mcp.DiffResult
	testmcp.MustCall(t, c, ctx, "diff", map[string]any{"from": string(before), "path": "hush/nightjar.md"}, &dh)
	testmcp.MustCall(t, c, ctx, "diff", map[string]any{"from": string(before), "path": "hush/free.md"}, &dm)
	dh.Path, dm.Path = "", ""
	if !reflect.DeepEqual(dh, dm) || dh.Total != 0 {
		t.Errorf("diff of a private note %+v, of a free path %+v", dh, dm)
	}
}
