package mcp_test

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// The end-to-end tests drive every tool through mcp-go's real client over the two
// real transports (streamable HTTP with bearer tokens from a tokens file, and stdio
// over pipes), with git as the oracle for what was written.

// e2eStdio serves s on a pair of pipes as principal p and connects the real
// client's stdio transport to them.
func e2eStdio(t *testing.T, s *mcpserver.MCPServer, p auth.Principal) *client.Client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- mcp.ServeStdio(context.Background(), s, p, inR, outW, mcp.StdioOptions{Logger: testmcp.Quiet})
		outW.Close()
	}()
	c := client.NewClient(transport.NewIO(outR, inW, nil))
	t.Cleanup(func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
		c.Close()
	})
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "norn-e2e", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

// e2eSession is one connected client working through the table against one vault.
type e2eSession struct {
	c   *client.Client
	ctx context.Context
	v   *vault.Vault
	// who is the principal's name: the author of every commit it makes.
	who string
	// st carries values from one case to the next.
	st map[string]string
}

// Placeholders in a case's arguments, resolved against git when the call is made.
type (
	// curRev is the revision of the note at this path at HEAD.
	curRev string
	// staleRev is the revision the note at this path had before its current one.
	staleRev string
)

func (s *e2eSession) git(t *testing.T, args ...string) string {
	t.Helper()
	return testmcp.Git(t, s.v.Dir(), args...)
}

// gitOK runs git and reports whether it succeeded.
func (s *e2eSession) gitOK(args ...string) bool {
	return exec.Command("git", append([]string{"-C", s.v.Dir()}, args...)...).Run() == nil
}

// rev is the blob id of p at HEAD, by git.
func (s *e2eSession) rev(t *testing.T, p string) string {
	t.Helper()
	return s.git(t, "rev-parse", "HEAD:"+p)
}

// stale is the blob id p had in the last commit before the one that made its
// current version, by git.
func (s *e2eSession) stale(t *testing.T, p string) string {
	t.Helper()
	commits := strings.Fields(s.git(t, "log", "--format=%H", "--", p))
	if len(commits) < 2 {
		t.Fatalf("%s has %d versions: no stale revision to send", p, len(commits))
	}
	return s.git(t, "rev-parse", commits[1]+":"+p)
}

func (s *e2eSession) resolve(t *testing.T, args map[string]any) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, a := range args {
		switch x := a.(type) {
		case curRev:
			out[k] = s.rev(t, string(x))
		case staleRev:
			out[k] = s.stale(t, string(x))
		default:
			out[k] = a
		}
	}
	return out
}

// call calls a tool that must succeed.
func (s *e2eSession) call(t *testing.T, tool string, args map[string]any, out any) {
	t.Helper()
	testmcp.MustCall(t, s.c, s.ctx, tool, s.resolve(t, args), out)
}

// vaultState is what a refused call must leave alone.
func (s *e2eSession) vaultState(t *testing.T) string {
	t.Helper()
	return commitCount(t, s.v) + " commits; status " + strconv.Quote(s.git(t, "status", "--porcelain"))
}

// committed checks with git that w is HEAD's commit, authored by the session's
// principal with op, on top of w.Parent, and that w.Revision is the note at HEAD.
func (s *e2eSession) committed(t *testing.T, w mcp.WriteResult, op repo.Op) {
	t.Helper()
	if w.DryRun || w.Commit == "" || s.git(t, "rev-parse", "HEAD") != string(w.Commit) {
		t.Fatalf("the result is not HEAD's commit: %+v", w)
	}
	if got := s.git(t, "log", "-1", "--format=%an <%ae>"); got != s.who+" <"+s.who+"@norn.invalid>" {
		t.Fatalf("git log author %q, want %s", got, s.who)
	}
	if body := s.git(t, "log", "-1", "--format=%B"); !strings.Contains(body, "Norn-Op: "+string(op)) {
		t.Fatalf("commit message lacks Norn-Op: %s:\n%s", op, body)
	}
	if parent := s.git(t, "rev-parse", "HEAD^"); parent != string(w.Parent) {
		t.Fatalf("parent %s, result says %s", parent, w.Parent)
	}
	if w.Revision != "" && s.rev(t, string(w.Path)) != string(w.Revision) {
		t.Fatalf("revision %s, git has %s", w.Revision, s.rev(t, string(w.Path)))
	}
	if st := s.git(t, "status", "--porcelain"); st != "" {
		t.Fatalf("git status not clean after the write:\n%s", st)
	}
}

// e2eBad is a call that must fail with code and leave the vault as it was.
type e2eBad struct {
	args map[string]any
	code mcp.ErrorCode
	// current, for a conflict: the note whose current revision the error must carry.
	current string
}

// e2eCase is one tool: a call (or a few) with good input whose answer is checked,
// then calls with bad input.
type e2eCase struct {
	tool string
	good func(t *testing.T, s *e2eSession)
	bad  []e2eBad
}

// e2eAlpha is the note the table creates, with a version marker.
func e2eAlpha(version string) string {
	return "---\ntitle: Alpha\ntags: [e2e, testing]\n---\n# Alpha\nThe quokka note (" + version + "). See [[Bloom filters]].\n\n## Log\nstarted\n"
}

const (
	e2eAlphaPath = "e2e/alpha.md"
	e2eWhy       = "Both hash items into a small array and trade exactness for memory."
)

// e2eCases is the table both transports run, in order: later cases see what earlier
// ones wrote. It starts from mcpFixture, called by an agent with read and write.
func e2eCases() []e2eCase {
	const alpha = e2eAlphaPath
	return []e2eCase{
		{tool: "vault_map", good: func(t *testing.T, s *e2eSession) {
			var m mcp.VaultMap
			s.call(t, "vault_map", nil, &m)
			head := s.git(t, "rev-parse", "HEAD")
			// Visible: README, tech/bloom, tech/cms, a/dup, b/dup, big; not the two private notes.
			if m.HeadCommit != head || m.Notes != 6 || len(m.RootDocs) == 0 || m.RootDocs[0].Path != "README.md" ||
				len(m.Recent) == 0 || string(m.Recent[0].Commit) != head || m.Inbox == "" {
				t.Fatalf("vault_map: %+v", m)
			}
			if !slices.Contains(m.Folders, vault.Count{Name: "tech", Notes: 2}) || slices.ContainsFunc(m.Folders, func(c vault.Count) bool { return c.Name == "personal-notes" }) {
				t.Fatalf("vault_map folders: %+v", m.Folders)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"recent": 51}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"bogus": 1}, code: mcp.CodeInvalidInput},
		}},

		{tool: "write_note", good: func(t *testing.T, s *e2eSession) {
			var w mcp.WriteResult
			s.call(t, "write_note", map[string]any{"path": alpha, "content": e2eAlpha("v1")}, &w)
			s.committed(t, w, repo.OpWrite)
			if w.Path != alpha || w.Revision == "" || len(w.Changes) != 1 || s.git(t, "show", "HEAD:"+alpha)+"\n" != e2eAlpha("v1") {
				t.Fatalf("create: %+v", w)
			}
			var w2 mcp.WriteResult
			s.call(t, "write_note", map[string]any{"path": alpha, "content": e2eAlpha("v2"), "expected_revision": string(w.Revision)}, &w2)
			s.committed(t, w2, repo.OpWrite)
			if w2.Parent != w.Commit || w2.Revision == w.Revision || s.git(t, "show", "HEAD:"+alpha)+"\n" != e2eAlpha("v2") {
				t.Fatalf("update: %+v after %+v", w2, w)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": alpha, "content": "# Lost\n", "expected_revision": staleRev(alpha)}, code: mcp.CodeConflict, current: alpha},
			{args: map[string]any{"path": alpha, "content": "# Again\n"}, code: mcp.CodeConflict, current: alpha},
			{args: map[string]any{"path": "../x.md", "content": "# X\n"}, code: mcp.CodeGateRejected},
			{args: map[string]any{"path": "e2e/bad.md", "content": "---\ntags: [Bad Tag]\n---\n# Bad\nno newline"}, code: mcp.CodeGateRejected},
		}},

		{tool: "read_note", good: func(t *testing.T, s *e2eSession) {
			var r mcp.ReadNoteResult
			s.call(t, "read_note", map[string]any{"path": alpha}, &r)
			if string(r.Revision) != s.rev(t, alpha) || r.Content != e2eAlpha("v2") || r.Title != "Alpha" || string(r.Commit) != s.git(t, "rev-parse", "HEAD") || r.Truncated {
				t.Fatalf("read_note: %+v", r)
			}
			var sec mcp.ReadNoteResult
			s.call(t, "read_note", map[string]any{"path": "Alpha", "section": "Log"}, &sec)
			if sec.Path != alpha || sec.ResolvedFrom != "Alpha" || !strings.Contains(sec.Content, "started") || strings.Contains(sec.Content, "quokka") {
				t.Fatalf("read_note by name, one section: %+v", sec)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "e2e/nope.md"}, code: mcp.CodeNotFound},
			{args: map[string]any{"path": "tech/secret.md"}, code: mcp.CodeNotFound}, // private: as if missing
			{args: map[string]any{"path": "dup"}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"path": alpha, "section": "Nowhere"}, code: mcp.CodeNotFound},
		}},

		{tool: "search", good: func(t *testing.T, s *e2eSession) {
			var r mcp.SearchResult
			s.call(t, "search", map[string]any{"query": "quokka", "wait_for_pending_writes": true}, &r)
			if len(r.Hits) == 0 || r.Hits[0].Path != alpha || r.Hits[0].Revision != s.rev(t, alpha) || r.IndexStale || r.HeadCommit != s.git(t, "rev-parse", "HEAD") {
				t.Fatalf("search quokka: %+v", r)
			}
			var z mcp.SearchResult // only the private notes say zebra
			s.call(t, "search", map[string]any{"query": "zebra"}, &z)
			if len(z.Hits) != 0 {
				t.Fatalf("search shows private notes: %+v", z.Hits)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"query": "\"unterminated"}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"query": "x", "limit": 51}, code: mcp.CodeInvalidInput},
		}},

		{tool: "edit_note", good: func(t *testing.T, s *e2eSession) {
			var w mcp.WriteResult
			s.call(t, "edit_note", map[string]any{"path": alpha, "op": "append", "content": "Edited by the wombat.", "expected_revision": curRev(alpha)}, &w)
			s.committed(t, w, repo.OpEdit)
			if s.git(t, "show", "HEAD:"+alpha)+"\n" != e2eAlpha("v2")+"Edited by the wombat.\n" {
				t.Fatalf("append: %s", s.git(t, "show", "HEAD:"+alpha))
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": alpha, "op": "append", "content": "x", "expected_revision": staleRev(alpha)}, code: mcp.CodeConflict, current: alpha},
			{args: map[string]any{"path": "e2e/nope.md", "op": "append", "content": "x", "expected_revision": curRev(alpha)}, code: mcp.CodeNotFound},
			{args: map[string]any{"path": alpha, "op": "explode", "expected_revision": curRev(alpha)}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"path": alpha, "op": "replace_section", "heading": "Nowhere", "content": "x", "expected_revision": curRev(alpha)}, code: mcp.CodeNotFound},
		}},

		{tool: "list_notes", good: func(t *testing.T, s *e2eSession) {
			var l mcp.ListNotesResult
			s.call(t, "list_notes", map[string]any{"folder": "e2e", "titles": true}, &l)
			want := []mcp.NoteRef{{Path: alpha, Title: "Alpha", Revision: repo.Revision(s.rev(t, alpha))}}
			if !slices.Equal(l.Notes, want) || l.Total != 1 || l.Truncated || l.Commit != s.git(t, "rev-parse", "HEAD") {
				t.Fatalf("list_notes: %+v", l)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"folder": "nowhere"}, code: mcp.CodeNotFound},
			{args: map[string]any{"limit": 501}, code: mcp.CodeInvalidInput},
		}},

		{tool: "get_context", good: func(t *testing.T, s *e2eSession) {
			var c mcp.NoteContext
			s.call(t, "get_context", map[string]any{"path": alpha}, &c)
			if string(c.Revision) != s.rev(t, alpha) || c.Title != "Alpha" || !slices.Equal(c.Tags, []string{"e2e", "testing"}) ||
				len(c.Outlinks) != 1 || c.Outlinks[0].To != "tech/bloom.md" || c.Outlinks[0].Status != "resolved" {
				t.Fatalf("get_context: %+v", c)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "e2e/nope.md"}, code: mcp.CodeNotFound},
			{args: map[string]any{"path": ""}, code: mcp.CodeInvalidInput},
		}},

		{tool: "links", good: func(t *testing.T, s *e2eSession) {
			var l vault.Links
			s.call(t, "links", map[string]any{"path": "tech/bloom.md"}, &l)
			var from []string
			for _, b := range l.Backlinks {
				from = append(from, string(b.From))
				if b.From == alpha && !strings.Contains(b.Context, "quokka") {
					t.Fatalf("backlink context: %+v", b)
				}
			}
			slices.Sort(from)
			// The private notes link to bloom too, unseen by this caller.
			if !slices.Equal(from, []string{"README.md", alpha, "tech/cms.md"}) || l.BacklinksTotal != 3 {
				t.Fatalf("links backlinks: %v %+v", from, l)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "e2e/nope.md"}, code: mcp.CodeNotFound},
			{args: map[string]any{"path": "tech/bloom.md", "limit": 501}, code: mcp.CodeInvalidInput},
		}},

		{tool: "graph_neighborhood", good: func(t *testing.T, s *e2eSession) {
			var nb graph.Neighborhood
			s.call(t, "graph_neighborhood", map[string]any{"path": alpha}, &nb)
			if nb.Center != alpha || !slices.Equal(nodeIDs(nb.Nodes), []string{alpha, "tech/bloom.md"}) ||
				!slices.Equal(nb.Edges, []graph.Edge{{From: alpha, To: "tech/bloom.md", Type: graph.EdgeTypeLink}}) || nb.Commit != s.git(t, "rev-parse", "HEAD") {
				t.Fatalf("graph_neighborhood: %+v", nb)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "e2e/nope.md"}, code: mcp.CodeNotFound},
			{args: map[string]any{"path": alpha, "depth": 6}, code: mcp.CodeInvalidInput},
		}},

		{tool: "graph_hubs", good: func(t *testing.T, s *e2eSession) {
			var h graph.NodeList
			s.call(t, "graph_hubs", map[string]any{"limit": 1}, &h)
			if len(h.Nodes) != 1 || h.Nodes[0].ID != "tech/bloom.md" || h.Nodes[0].Backlinks != 3 || h.NextOffset != 1 {
				t.Fatalf("graph_hubs: %+v", h)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"limit": 201}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"offset": -1}, code: mcp.CodeInvalidInput},
		}},

		{tool: "stats", good: func(t *testing.T, s *e2eSession) {
			var st vault.Stats
			s.call(t, "stats", nil, &st)
			if st.Notes != 7 || st.Commit != s.git(t, "rev-parse", "HEAD") || !slices.Contains(st.Folders, vault.Count{Name: "e2e", Notes: 1}) || st.Links.Resolved == 0 {
				t.Fatalf("stats: %+v", st)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"limit": -1}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"limit": 501}, code: mcp.CodeInvalidInput},
		}},

		{tool: "sync_status", good: func(t *testing.T, s *e2eSession) {
			// The fixture has no remote: nothing to report, and nothing reached.
			var st vault.SyncStatus
			s.call(t, "sync_status", nil, &st)
			if len(st.Remotes) != 0 {
				t.Fatalf("sync_status: %+v, want no remotes", st)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"remote": "nope"}, code: mcp.CodeNotFound},
			{args: map[string]any{"remote": "../x"}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"remotes": "origin"}, code: mcp.CodeInvalidInput},
		}},

		{tool: "wait_for_changes", good: func(t *testing.T, s *e2eSession) {
			// The last commit, from its parent, as git lists it; from HEAD, nothing.
			var w mcp.WaitForChangesResult
			s.call(t, "wait_for_changes", map[string]any{"since": s.git(t, "rev-parse", "HEAD~1"), "timeout": 0}, &w)
			head := s.git(t, "rev-parse", "HEAD")
			if len(w.Messages) != 1 || string(w.Messages[0].Commit) != head || string(w.Cursor) != head || w.TimedOut {
				t.Fatalf("wait_for_changes from HEAD~1: %+v", w)
			}
			s.call(t, "wait_for_changes", map[string]any{"since": head, "timeout": 0}, &w)
			if len(w.Messages) != 0 || !w.TimedOut || string(w.Cursor) != head {
				t.Fatalf("wait_for_changes from HEAD: %+v", w)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"timeout": 61}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"since": "HEAD"}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"folders": []string{".."}}, code: mcp.CodeInvalidInput},
		}},

		{tool: "history", good: func(t *testing.T, s *e2eSession) {
			var h mcp.HistoryResult
			s.call(t, "history", map[string]any{"path": alpha}, &h)
			var ops []repo.Op
			for _, c := range h.Commits {
				ops = append(ops, c.Op)
				if c.Author != s.who+" <"+s.who+"@norn.invalid>" || !slices.Equal(c.Paths, []note.Path{alpha}) {
					t.Fatalf("history commit: %+v", c)
				}
			}
			if !slices.Equal(ops, []repo.Op{repo.OpEdit, repo.OpWrite, repo.OpWrite}) || string(h.Commits[0].Commit) != s.git(t, "rev-parse", "HEAD") {
				t.Fatalf("history: %+v", h)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"cursor": "x"}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"limit": 101}, code: mcp.CodeInvalidInput},
		}},

		{tool: "diff", good: func(t *testing.T, s *e2eSession) {
			var d mcp.DiffResult
			s.call(t, "diff", map[string]any{"from": "HEAD~1", "path": alpha}, &d)
			if len(d.Changes) != 1 || d.Changes[0].Path != alpha || string(d.Changes[0].Revision) != s.rev(t, alpha) || string(d.Changes[0].OldRevision) != s.stale(t, alpha) ||
				!strings.Contains(d.Unified, "\n+Edited by the wombat.\n") || string(d.To) != s.git(t, "rev-parse", "HEAD") {
				t.Fatalf("diff: %+v", d)
			}
		}, bad: []e2eBad{
			{args: map[string]any{}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"from": "no-such-commit"}, code: mcp.CodeNotFound},
		}},

		{tool: "capture", good: func(t *testing.T, s *e2eSession) {
			var c mcp.CaptureResult
			s.call(t, "capture", map[string]any{"text": "the numbat was here", "title": "E2E"}, &c)
			s.committed(t, c.WriteResult, repo.OpCapture)
			if !c.Created || !strings.HasPrefix(string(c.Path), "inbox/") || !strings.HasSuffix(s.git(t, "show", "HEAD:"+string(c.Path)), " UTC · E2E\n\nthe numbat was here") ||
				s.git(t, "show", "--name-only", "--format=", "HEAD") != string(c.Path) {
				t.Fatalf("capture: %+v", c)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"text": "  "}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"text": "x", "path": "tech/bloom.md"}, code: mcp.CodeInvalidInput},
		}},

		{tool: "file_note", good: func(t *testing.T, s *e2eSession) {
			beta := "---\ntitle: Beta\ntags: [e2e, testing]\n---\n# Beta\nFiled.\n"
			var f mcp.FileNoteResult
			s.call(t, "file_note", map[string]any{"path": "e2e/beta.md", "content": beta}, &f)
			s.committed(t, f.WriteResult, repo.OpWrite)
			if f.Index != "e2e/_INDEX.md" || !f.IndexChanged || string(f.IndexRevision) != s.rev(t, "e2e/_INDEX.md") ||
				s.git(t, "show", "--name-only", "--format=", "HEAD") != "e2e/_INDEX.md\ne2e/beta.md" ||
				!strings.HasSuffix(s.git(t, "show", "HEAD:e2e/_INDEX.md"), "\n- [[beta|Beta]]") {
				t.Fatalf("file_note: %+v", f)
			}
			var f2 mcp.FileNoteResult // listed already: only the note changes
			s.call(t, "file_note", map[string]any{"path": "e2e/beta.md", "content": beta + "Again.\n", "expected_revision": string(f.Revision)}, &f2)
			s.committed(t, f2.WriteResult, repo.OpWrite)
			if f2.IndexChanged || s.git(t, "show", "--name-only", "--format=", "HEAD") != "e2e/beta.md" {
				t.Fatalf("file_note again: %+v", f2)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "e2e/beta.md", "content": "# B\n", "expected_revision": staleRev("e2e/beta.md")}, code: mcp.CodeConflict, current: "e2e/beta.md"},
			{args: map[string]any{"path": "e2e/bad.md", "content": "# Bad"}, code: mcp.CodeGateRejected},
			{args: map[string]any{"path": "e2e/_INDEX.md", "content": "# I\n"}, code: mcp.CodeInvalidInput},
		}},

		{tool: "move_note", good: func(t *testing.T, s *e2eSession) {
			var m mcp.MoveNoteResult
			s.call(t, "move_note", map[string]any{"from": "e2e/beta.md", "to": "e2e/gamma.md", "expected_revision": curRev("e2e/beta.md")}, &m)
			s.committed(t, m.WriteResult, repo.OpMove)
			if m.Path != "e2e/gamma.md" || !slices.Equal(m.Rewritten, []note.Path{"e2e/_INDEX.md"}) || s.gitOK("cat-file", "-e", "HEAD:e2e/beta.md") ||
				!strings.Contains(s.git(t, "show", "HEAD:e2e/_INDEX.md"), "[[gamma") {
				t.Fatalf("move_note: %+v", m)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"from": alpha, "to": "e2e/delta.md", "expected_revision": staleRev(alpha)}, code: mcp.CodeConflict, current: alpha},
			{args: map[string]any{"from": "e2e/gamma.md", "to": "tech/bloom.md"}, code: mcp.CodeInvalidInput}, // a move never overwrites: no retry helps
			{args: map[string]any{"from": "e2e/beta.md", "to": "e2e/delta.md"}, code: mcp.CodeNotFound},
			{args: map[string]any{"from": alpha, "to": ""}, code: mcp.CodeInvalidInput},
		}},

		{tool: "link_notes", good: func(t *testing.T, s *e2eSession) {
			var l mcp.EdgeWriteResult
			s.call(t, "link_notes", map[string]any{"from": "tech/bloom.md", "to": "Count-min sketch", "type": "same_mechanism_as", "why": e2eWhy,
				"expected_revision": curRev("tech/bloom.md")}, &l)
			s.committed(t, l.WriteResult, repo.OpLink)
			if l.Target != "tech/cms.md" || !strings.Contains(s.git(t, "show", "HEAD:tech/bloom.md"), "type: same_mechanism_as") {
				t.Fatalf("link_notes: %+v", l)
			}
			var nb graph.Neighborhood
			s.call(t, "graph_neighborhood", map[string]any{"path": "tech/bloom.md", "types": []string{"same_mechanism_as"}}, &nb)
			if !slices.Equal(nb.Edges, []graph.Edge{{From: "tech/bloom.md", To: "tech/cms.md", Type: "same_mechanism_as"}}) {
				t.Fatalf("the typed edge in the graph: %+v", nb)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"from": "tech/bloom.md", "to": "README", "type": "resembles", "why": e2eWhy}, code: mcp.CodeGateRejected},
			{args: map[string]any{"from": "tech/bloom.md", "to": "README", "type": "supports", "why": e2eWhy, "expected_revision": staleRev("tech/bloom.md")},
				code: mcp.CodeConflict, current: "tech/bloom.md"},
			{args: map[string]any{"from": "tech/bloom.md", "to": "Secret plan", "type": "supports", "why": e2eWhy}, code: mcp.CodeNotFound},
			{args: map[string]any{"from": "tech/bloom.md", "to": ""}, code: mcp.CodeInvalidInput},
		}},

		{tool: "unlink_notes", good: func(t *testing.T, s *e2eSession) {
			var u mcp.EdgeWriteResult
			s.call(t, "unlink_notes", map[string]any{"from": "tech/bloom.md", "to": "tech/cms.md", "expected_revision": curRev("tech/bloom.md")}, &u)
			s.committed(t, u.WriteResult, repo.OpLink)
			if u.Target != "tech/cms.md" || strings.Contains(s.git(t, "show", "HEAD:tech/bloom.md"), "same_mechanism_as") {
				t.Fatalf("unlink_notes: %+v", u)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"from": "tech/bloom.md", "to": "tech/cms.md"}, code: mcp.CodeNotFound},
			{args: map[string]any{"from": "tech/bloom.md", "to": "tech/cms.md", "expected_revision": staleRev("tech/bloom.md")}, code: mcp.CodeConflict, current: "tech/bloom.md"},
		}},

		{tool: "archive_note", good: func(t *testing.T, s *e2eSession) {
			s.st["bloom"] = s.rev(t, "tech/bloom.md")
			var a mcp.ArchiveNoteResult
			s.call(t, "archive_note", map[string]any{"path": "tech/bloom.md", "reason": "superseded", "expected_revision": curRev("tech/bloom.md")}, &a)
			s.committed(t, a.WriteResult, repo.OpArchive)
			var from []string
			for _, d := range a.Dangling {
				from = append(from, string(d.From))
			}
			slices.Sort(from)
			// The private notes' links dangle too; this caller is not told about them.
			if a.Revision != "" || !slices.Equal(from, []string{"README.md", alpha, "tech/cms.md"}) || s.gitOK("cat-file", "-e", "HEAD:tech/bloom.md") ||
				!strings.Contains(s.git(t, "log", "-1", "--format=%B"), "Norn-Reason: superseded") {
				t.Fatalf("archive_note: %+v (dangling from %v)", a, from)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "tech/bloom.md", "reason": "archived"}, code: mcp.CodeNotFound},
			{args: map[string]any{"path": alpha, "reason": "archived", "expected_revision": staleRev(alpha)}, code: mcp.CodeConflict, current: alpha},
			{args: map[string]any{"path": alpha, "reason": "bored"}, code: mcp.CodeInvalidInput},
		}},

		{tool: "list_archived", good: func(t *testing.T, s *e2eSession) {
			var l mcp.ListArchivedResult
			s.call(t, "list_archived", map[string]any{"folder": "tech"}, &l)
			if len(l.Archived) != 1 || l.Total != 1 || l.Source != "index" || l.Archived[0].Path != "tech/bloom.md" ||
				l.Archived[0].Reason != repo.ReasonSuperseded || string(l.Archived[0].Revision) != s.st["bloom"] ||
				!strings.HasPrefix(l.Archived[0].Who, s.who+" <") || l.Archived[0].Commit != s.v.Head() {
				t.Fatalf("list_archived: %+v", l)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"since": "2026-13-01"}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"folder": "../up"}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"limit": 100000}, code: mcp.CodeInvalidInput},
		}},

		{tool: "restore_note", good: func(t *testing.T, s *e2eSession) {
			var r mcp.WriteResult
			s.call(t, "restore_note", map[string]any{"path": "tech/bloom.md", "from": "HEAD~1"}, &r)
			s.committed(t, r, repo.OpRestore)
			if string(r.Revision) != s.st["bloom"] {
				t.Fatalf("restore_note: %+v, want revision %s", r, s.st["bloom"])
			}
			var read mcp.ReadNoteResult
			s.call(t, "read_note", map[string]any{"path": "Bloom filters"}, &read)
			if string(read.Revision) != s.st["bloom"] || read.Path != "tech/bloom.md" {
				t.Fatalf("read after restore: %+v", read)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "tech/bloom.md", "from": "HEAD~1"}, code: mcp.CodeConflict, current: "tech/bloom.md"},
			{args: map[string]any{"path": "e2e/x.md", "from": "no-such-commit"}, code: mcp.CodeNotFound},
			{args: map[string]any{"path": "e2e/x.md", "from": "HEAD", "revision": "abc"}, code: mcp.CodeInvalidInput},
		}},

		{tool: "register_synthesis", good: func(t *testing.T, s *e2eSession) {
			var r mcp.SynthesisRegistered
			s.call(t, "register_synthesis", map[string]any{"summary": "README.md", "sources": []string{"tech/cms.md", "tech/bloom.md"}}, &r)
			if string(r.Commit) != s.git(t, "rev-parse", "HEAD") || r.File != ".norn/synthesis/README.md.yaml" || len(r.Sources) != 2 ||
				r.Sources[0].Path != "tech/bloom.md" || string(r.Sources[0].Revision) != s.rev(t, "tech/bloom.md") ||
				s.git(t, "log", "-1", "--format=%an|%(trailers:key=Norn-Op,valueonly,separator=)") != s.who+"|claim" {
				t.Fatalf("register_synthesis: %+v", r)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"summary": "README.md", "sources": []string{}}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"summary": "README.md", "sources": []string{"README.md"}}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"summary": "README.md", "sources": []string{"e2e/nope.md"}}, code: mcp.CodeNotFound},
			{args: map[string]any{"summary": "README.md", "sources": []string{".norn/config.yaml"}}, code: mcp.CodeInvalidInput},
		}},

		{tool: "synthesis_status", good: func(t *testing.T, s *e2eSession) {
			var st mcp.SynthesisStatusResult
			s.call(t, "synthesis_status", map[string]any{"summary": "README.md"}, &st)
			if st.Status != vault.SynthesisCurrent || st.Checked != 2 || !st.Complete || st.Budget == nil || st.Budget.UsedChecks != 2 {
				t.Fatalf("synthesis_status: %+v", st)
			}
			var un mcp.SynthesisStatusResult
			s.call(t, "synthesis_status", map[string]any{"summary": "tech/cms.md"}, &un)
			if un.Status != vault.SynthesisUnregistered {
				t.Fatalf("synthesis_status of a note that is no summary: %+v", un)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"summary": ""}, code: mcp.CodeInvalidInput},
			{args: map[string]any{"summary": "e2e/nope.md"}, code: mcp.CodeNotFound},
		}},

		{tool: "assert_claim", good: func(t *testing.T, s *e2eSession) {
			var a mcp.ClaimWriteResult
			s.call(t, "assert_claim", map[string]any{"subject": "cms", "property": "kind", "scope": "global", "value": "sketch", "source": "tech/cms.md"}, &a)
			s.committed(t, a.WriteResult, repo.OpClaim)
			if a.Claim.Source == nil || string(a.Claim.Source.Revision) != s.rev(t, "tech/cms.md") || !a.Claim.Fresh ||
				!strings.Contains(s.git(t, "show", "HEAD:"+string(a.Path)), "value: sketch") {
				t.Fatalf("assert_claim: %+v", a)
			}
			s.st["claim"] = string(a.Claim.ID)
		}, bad: []e2eBad{
			{args: map[string]any{"subject": "cms", "property": "kind", "scope": "global", "value": "x", "source": "tech/none.md"}, code: mcp.CodeNotFound},
			{args: map[string]any{"subject": "cms", "property": "kind", "scope": "global", "value": "x", "source": "personal-notes/diary.md"}, code: mcp.CodeNotFound},
			{args: map[string]any{"subject": "cms", "property": "kind", "value": "x", "source": "tech/cms.md"}, code: mcp.CodeInvalidInput},
		}},

		{tool: "claim_value", good: func(t *testing.T, s *e2eSession) {
			var v mcp.ClaimValueResult
			s.call(t, "claim_value", map[string]any{"subject": "cms", "property": "kind", "scope": "global"}, &v)
			if v.Status != ledger.StatusCurrent || v.Value != "sketch" || len(v.Claims) != 1 || string(v.Claims[0].ID) != s.st["claim"] {
				t.Fatalf("claim_value: %+v", v)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"subject": "cms", "property": "kind", "scope": "global", "at": "someday"}, code: mcp.CodeInvalidInput},
		}},

		{tool: "claim_history", good: func(t *testing.T, s *e2eSession) {
			var h mcp.ClaimHistoryResult
			s.call(t, "claim_history", map[string]any{"id": s.st["claim"]}, &h)
			if len(h.Claims) != 1 || h.Subject != "cms" || h.Claims[0].Live == nil || !*h.Claims[0].Live {
				t.Fatalf("claim_history: %+v", h)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"id": "aaaaaaaaaaaaaaaaaaaaaaaaaa"}, code: mcp.CodeNotFound},
		}},

		{tool: "retract_claim", good: func(t *testing.T, s *e2eSession) {
			var r mcp.ClaimWriteResult
			s.call(t, "retract_claim", map[string]any{"id": s.st["claim"]}, &r)
			s.committed(t, r.WriteResult, repo.OpClaim)
			var v mcp.ClaimValueResult
			s.call(t, "claim_value", map[string]any{"subject": "cms", "property": "kind", "scope": "global"}, &v)
			if r.Claim.Kind != ledger.KindRetraction || v.Status != ledger.StatusUnknown {
				t.Fatalf("retract_claim: %+v, then %+v", r, v)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"id": "not-an-id"}, code: mcp.CodeInvalidInput},
		}},
	}
}

// e2eTools checks tools/list — every tool has an output schema (an object with
// properties) and all four annotations, openWorldHint false — and returns each
// tool's readOnlyHint by name.
func e2eTools(t *testing.T, c *client.Client, ctx context.Context) map[string]bool {
	t.Helper()
	res, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]bool{}
	for _, tool := range res.Tools {
		a := tool.Annotations
		tools[tool.Name] = a.ReadOnlyHint != nil && *a.ReadOnlyHint
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: an annotation is unset: %+v", tool.Name, a)
			continue
		}
		if *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint true", tool.Name)
		}
		if tool.OutputSchema.Type != "object" || len(tool.OutputSchema.Properties) == 0 {
			t.Errorf("%s: no output schema: %+v", tool.Name, tool.OutputSchema)
		}
	}
	return tools
}

// runE2ETable runs every case of the table through s's client: the good calls,
// then each bad call, which must fail with its code and change nothing. It fails
// when tools/list and the table do not name the same tools.
func runE2ETable(t *testing.T, s *e2eSession) {
	tools := e2eTools(t, s.c, s.ctx)
	cases := e2eCases()
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.tool] = true
		if len(tc.bad) == 0 {
			t.Errorf("%s: the table has no bad input for it", tc.tool)
		}
		if _, ok := tools[tc.tool]; !ok {
			t.Errorf("the table covers %s, which tools/list does not have", tc.tool)
		}
	}
	for name := range tools {
		if !covered[name] {
			t.Errorf("tools/list has %s, which the e2e table does not cover", name)
		}
	}
	if len(tools) != 29 || t.Failed() {
		t.Fatalf("tools/list: %d tools", len(tools))
	}
	for _, tc := range cases {
		ok := t.Run(tc.tool, func(t *testing.T) {
			before := commitCount(t, s.v)
			tc.good(t, s)
			if tools[tc.tool] && commitCount(t, s.v) != before {
				t.Fatalf("%s is read-only but committed", tc.tool)
			}
			for _, b := range tc.bad {
				state := s.vaultState(t)
				args := s.resolve(t, b.args)
				te := testmcp.WantError(t, s.c, s.ctx, tc.tool, args, b.code, "")
				if after := s.vaultState(t); after != state {
					t.Fatalf("%s %v (refused: %s) changed the vault: %s, then %s", tc.tool, args, te.Code, state, after)
				}
				want := map[mcp.ErrorCode]mcp.ErrorClass{mcp.CodeConflict: mcp.ClassRetryable,
					mcp.CodeNotFound: mcp.ClassFixInput, mcp.CodeInvalidInput: mcp.ClassFixInput, mcp.CodeGateRejected: mcp.ClassFixInput}[b.code]
				if te.Class != want {
					t.Errorf("%s %v: class %s, want %s", tc.tool, args, te.Class, want)
				}
				if b.code == mcp.CodeConflict {
					if cur := s.rev(t, b.current); string(te.CurrentRevision) != cur || string(te.Path) != b.current {
						t.Errorf("%s %v: conflict on %s with current %s, want %s at %s", tc.tool, args, te.Path, te.CurrentRevision, b.current, cur)
					}
				}
			}
		})
		if !ok {
			break // the later cases build on this one
		}
	}
	if st := s.git(t, "status", "--porcelain"); st != "" {
		t.Fatalf("git status after the table:\n%s", st)
	}
	if out, err := exec.Command("git", "-C", s.v.Dir(), "fsck", "--strict", "--no-dangling").CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}

func TestMCPE2E_HTTP(t *testing.T) {
	scopes := map[string][]auth.Scope{
		"e2e-writer":  {auth.ScopeRead, auth.ScopeWrite},
		"e2e-reader":  {auth.ScopeRead},
		"e2e-trusted": {auth.ScopeRead, auth.ScopeWrite, auth.ScopePrivate},
	}
	for _, era := range []struct {
		name   string
		legacy bool
	}{{"stateless", false}, {"session", true}} {
		t.Run(era.name, func(t *testing.T) {
			v, e := testmcp.NewEnv(t, testmcp.Fixture)
			tok, secret := testmcp.Tokens(t, v, scopes)
			url := testmcp.ServeHTTP(t, e.S, tok)
			c, err := testmcp.Dial(t, url, testmcp.Bearer(secret["e2e-writer"]), era.legacy)
			if err != nil {
				t.Fatal(err)
			}
			runE2ETable(t, &e2eSession{c: c, ctx: context.Background(), v: v, who: "e2e-writer", st: map[string]string{}})
		})
	}

	t.Run("refusals", func(t *testing.T) {
		v, e := testmcp.NewEnv(t, testmcp.Fixture)
		tok, secret := testmcp.Tokens(t, v, scopes)
		url := testmcp.ServeHTTP(t, e.S, tok)
		s := &e2eSession{v: v}
		state := s.vaultState(t)

		// No token, a wrong token: 401 with WWW-Authenticate, before MCP sees anything.
		resp, body := testmcp.RawPost(t, url, nil, testmcp.InitializeBody)
		// The header carries the message too (error_description), and an error
		// even for a missing token: the MCP Inspector shows only the header, and
		// takes a bare challenge for OAuth.
		wantAuth := func(resp *http.Response, desc string) bool {
			return resp.Header.Get("WWW-Authenticate") == `Bearer realm="norn", error="invalid_token", error_description="`+desc+`"`
		}
		const hint = "run `norn token add NAME` on the vault's machine and send the token it prints as `Authorization: Bearer <token>`"
		if resp.StatusCode != http.StatusUnauthorized || !wantAuth(resp, "this server needs a bearer token: "+hint) || testmcp.ErrorCode(t, body) != "missing_token" {
			t.Fatalf("no token: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
		wrong := auth.TokenPrefix + strings.Repeat("A", 43)
		resp, body = testmcp.RawPost(t, url, testmcp.Bearer(wrong), testmcp.InitializeBody)
		if resp.StatusCode != http.StatusUnauthorized || !wantAuth(resp, "the token is unknown or revoked: "+hint) || testmcp.ErrorCode(t, body) != "invalid_token" {
			t.Fatalf("wrong token: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
		const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_note","arguments":{"path":"e2e/x.md","content":"# X\n"}}}`
		if resp, _ := testmcp.RawPost(t, url, testmcp.Bearer(wrong), call); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a tool call with a wrong token: %d", resp.StatusCode)
		}
		if _, err := testmcp.Dial(t, url, testmcp.Bearer(wrong), false); err == nil {
			t.Fatal("the client connected with a wrong token")
		}

		// A read-only token reads, and is refused every write.
		rc, err := testmcp.Dial(t, url, testmcp.Bearer(secret["e2e-reader"]), false)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var r mcp.ReadNoteResult
		testmcp.MustCall(t, rc, ctx, "read_note", map[string]any{"path": "tech/bloom.md"}, &r)
		if string(r.Revision) != s.rev(t, "tech/bloom.md") {
			t.Fatalf("reader read_note: %+v", r)
		}
		te := testmcp.WantError(t, rc, ctx, "write_note", map[string]any{"path": "e2e/x.md", "content": "# X\n"}, mcp.CodeForbidden, mcp.ClassFatal)
		if !strings.Contains(te.Message, "write scope") {
			t.Fatalf("forbidden message: %s", te.Message)
		}
		for name, readOnly := range e2eTools(t, rc, ctx) {
			if !readOnly {
				testmcp.WantError(t, rc, ctx, name, map[string]any{"path": "e2e/x.md", "content": "# X\n", "text": "x"}, mcp.CodeForbidden, mcp.ClassFatal)
			}
		}
		if after := s.vaultState(t); after != state || s.gitOK("cat-file", "-e", "HEAD:e2e/x.md") {
			t.Fatalf("a refused write changed the vault: %s, then %s", state, after)
		}

		// The private scope is the token's too: the writer does not see a private
		// note, the trusted token does.
		wc, err := testmcp.Dial(t, url, testmcp.Bearer(secret["e2e-writer"]), true)
		if err != nil {
			t.Fatal(err)
		}
		testmcp.WantError(t, wc, ctx, "read_note", map[string]any{"path": "tech/secret.md"}, mcp.CodeNotFound, mcp.ClassFixInput)
		tc, err := testmcp.Dial(t, url, testmcp.Bearer(secret["e2e-trusted"]), false)
		if err != nil {
			t.Fatal(err)
		}
		testmcp.MustCall(t, tc, ctx, "read_note", map[string]any{"path": "tech/secret.md"}, &r)
		if r.Title != "Secret plan" {
			t.Fatalf("trusted read_note: %+v", r)
		}
	})
}

func TestMCPE2E_Stdio(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	// As `norn serve --stdio --agent e2e-stdio` serves it.
	p := auth.Principal{Name: "e2e-stdio", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}}
	c := e2eStdio(t, e.S, p)
	runE2ETable(t, &e2eSession{c: c, ctx: context.Background(), v: v, who: p.Name, st: map[string]string{}})
}
