package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
)

// The end-to-end tests drive every tool through mcp-go's real client over the two
// real transports (streamable HTTP with bearer tokens from a tokens file, and stdio
// over pipes), with git as the oracle for what was written.

// e2eQuiet discards the transports' own logs.
var e2eQuiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// e2eServeHTTP serves s over streamable HTTP on 127.0.0.1 with tok, as `norn serve
// --http` does, and returns the MCP URL.
func e2eServeHTTP(t *testing.T, s *mcpserver.MCPServer, tok *server.Tokens) string {
	t.Helper()
	url, _ := serveMCPHTTP(t, s, server.HTTPOptions{Tokens: tok, Logger: e2eQuiet})
	return url
}

// e2eTokens writes a tokens file in the vault's .git/norn with one token per name
// and its scopes, and returns the tokens and their secrets.
func e2eTokens(t *testing.T, v *server.Vault, scopes map[string][]server.Scope) (*server.Tokens, map[string]string) {
	t.Helper()
	tok := server.OpenTokens(server.TokensPath(v.GitDir()), nil)
	secrets := map[string]string{}
	for name, sc := range scopes {
		s, err := tok.Add(name, sc)
		if err != nil {
			t.Fatal(err)
		}
		secrets[name] = s
	}
	return tok, secrets
}

// e2eStdio serves s on a pair of pipes as principal p and connects the real
// client's stdio transport to them.
func e2eStdio(t *testing.T, s *mcpserver.MCPServer, p server.Principal) *client.Client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- server.ServeStdio(context.Background(), s, p, inR, outW, server.StdioOptions{Logger: e2eQuiet})
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
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "norn-e2e", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

// e2eSession is one connected client working through the table against one vault.
type e2eSession struct {
	c   *client.Client
	ctx context.Context
	v   *server.Vault
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
	return mcpGit(t, s.v.Dir(), args...)
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
	mustCall(t, s.c, s.ctx, tool, s.resolve(t, args), out)
}

// vaultState is what a refused call must leave alone.
func (s *e2eSession) vaultState(t *testing.T) string {
	t.Helper()
	return commitCount(t, s.v) + " commits; status " + strconv.Quote(s.git(t, "status", "--porcelain"))
}

// committed checks with git that w is HEAD's commit, authored by the session's
// principal with op, on top of w.Parent, and that w.Revision is the note at HEAD.
func (s *e2eSession) committed(t *testing.T, w server.WriteResult, op repo.Op) {
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
	code server.ErrorCode
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
			var m server.VaultMap
			s.call(t, "vault_map", nil, &m)
			head := s.git(t, "rev-parse", "HEAD")
			// Visible: README, tech/bloom, tech/cms, a/dup, b/dup, big; not the two private notes.
			if m.HeadCommit != head || m.Notes != 6 || len(m.RootDocs) == 0 || m.RootDocs[0].Path != "README.md" ||
				len(m.Recent) == 0 || string(m.Recent[0].Commit) != head || m.Inbox == "" {
				t.Fatalf("vault_map: %+v", m)
			}
			if !slices.Contains(m.Folders, server.Count{Name: "tech", Notes: 2}) || slices.ContainsFunc(m.Folders, func(c server.Count) bool { return c.Name == "personal-notes" }) {
				t.Fatalf("vault_map folders: %+v", m.Folders)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"recent": 51}, code: server.CodeInvalidInput},
			{args: map[string]any{"bogus": 1}, code: server.CodeInvalidInput},
		}},

		{tool: "write_note", good: func(t *testing.T, s *e2eSession) {
			var w server.WriteResult
			s.call(t, "write_note", map[string]any{"path": alpha, "content": e2eAlpha("v1")}, &w)
			s.committed(t, w, repo.OpWrite)
			if w.Path != alpha || w.Revision == "" || len(w.Changes) != 1 || s.git(t, "show", "HEAD:"+alpha)+"\n" != e2eAlpha("v1") {
				t.Fatalf("create: %+v", w)
			}
			var w2 server.WriteResult
			s.call(t, "write_note", map[string]any{"path": alpha, "content": e2eAlpha("v2"), "expected_revision": string(w.Revision)}, &w2)
			s.committed(t, w2, repo.OpWrite)
			if w2.Parent != w.Commit || w2.Revision == w.Revision || s.git(t, "show", "HEAD:"+alpha)+"\n" != e2eAlpha("v2") {
				t.Fatalf("update: %+v after %+v", w2, w)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": alpha, "content": "# Lost\n", "expected_revision": staleRev(alpha)}, code: server.CodeConflict, current: alpha},
			{args: map[string]any{"path": alpha, "content": "# Again\n"}, code: server.CodeConflict, current: alpha},
			{args: map[string]any{"path": "../x.md", "content": "# X\n"}, code: server.CodeGateRejected},
			{args: map[string]any{"path": "e2e/bad.md", "content": "---\ntags: [Bad Tag]\n---\n# Bad\nno newline"}, code: server.CodeGateRejected},
		}},

		{tool: "read_note", good: func(t *testing.T, s *e2eSession) {
			var r server.ReadNoteResult
			s.call(t, "read_note", map[string]any{"path": alpha}, &r)
			if string(r.Revision) != s.rev(t, alpha) || r.Content != e2eAlpha("v2") || r.Title != "Alpha" || string(r.Commit) != s.git(t, "rev-parse", "HEAD") || r.Truncated {
				t.Fatalf("read_note: %+v", r)
			}
			var sec server.ReadNoteResult
			s.call(t, "read_note", map[string]any{"path": "Alpha", "section": "Log"}, &sec)
			if sec.Path != alpha || sec.ResolvedFrom != "Alpha" || !strings.Contains(sec.Content, "started") || strings.Contains(sec.Content, "quokka") {
				t.Fatalf("read_note by name, one section: %+v", sec)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "e2e/nope.md"}, code: server.CodeNotFound},
			{args: map[string]any{"path": "tech/secret.md"}, code: server.CodeNotFound}, // private: as if missing
			{args: map[string]any{"path": "dup"}, code: server.CodeInvalidInput},
			{args: map[string]any{"path": alpha, "section": "Nowhere"}, code: server.CodeNotFound},
		}},

		{tool: "search", good: func(t *testing.T, s *e2eSession) {
			var r server.SearchResult
			s.call(t, "search", map[string]any{"query": "quokka", "wait_for_pending_writes": true}, &r)
			if len(r.Hits) == 0 || r.Hits[0].Path != alpha || r.Hits[0].Revision != s.rev(t, alpha) || r.IndexStale || r.HeadCommit != s.git(t, "rev-parse", "HEAD") {
				t.Fatalf("search quokka: %+v", r)
			}
			var z server.SearchResult // only the private notes say zebra
			s.call(t, "search", map[string]any{"query": "zebra"}, &z)
			if len(z.Hits) != 0 {
				t.Fatalf("search shows private notes: %+v", z.Hits)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"query": "\"unterminated"}, code: server.CodeInvalidInput},
			{args: map[string]any{"query": "x", "limit": 51}, code: server.CodeInvalidInput},
		}},

		{tool: "edit_note", good: func(t *testing.T, s *e2eSession) {
			var w server.WriteResult
			s.call(t, "edit_note", map[string]any{"path": alpha, "op": "append", "content": "Edited by the wombat.", "expected_revision": curRev(alpha)}, &w)
			s.committed(t, w, repo.OpEdit)
			if s.git(t, "show", "HEAD:"+alpha)+"\n" != e2eAlpha("v2")+"Edited by the wombat.\n" {
				t.Fatalf("append: %s", s.git(t, "show", "HEAD:"+alpha))
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": alpha, "op": "append", "content": "x", "expected_revision": staleRev(alpha)}, code: server.CodeConflict, current: alpha},
			{args: map[string]any{"path": "e2e/nope.md", "op": "append", "content": "x", "expected_revision": curRev(alpha)}, code: server.CodeNotFound},
			{args: map[string]any{"path": alpha, "op": "explode", "expected_revision": curRev(alpha)}, code: server.CodeInvalidInput},
			{args: map[string]any{"path": alpha, "op": "replace_section", "heading": "Nowhere", "content": "x", "expected_revision": curRev(alpha)}, code: server.CodeNotFound},
		}},

		{tool: "list_notes", good: func(t *testing.T, s *e2eSession) {
			var l server.ListNotesResult
			s.call(t, "list_notes", map[string]any{"folder": "e2e", "titles": true}, &l)
			want := []server.NoteRef{{Path: alpha, Title: "Alpha", Revision: repo.Revision(s.rev(t, alpha))}}
			if !slices.Equal(l.Notes, want) || l.Total != 1 || l.Truncated || l.Commit != s.git(t, "rev-parse", "HEAD") {
				t.Fatalf("list_notes: %+v", l)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"folder": "nowhere"}, code: server.CodeNotFound},
			{args: map[string]any{"limit": 501}, code: server.CodeInvalidInput},
		}},

		{tool: "get_context", good: func(t *testing.T, s *e2eSession) {
			var c server.NoteContext
			s.call(t, "get_context", map[string]any{"path": alpha}, &c)
			if string(c.Revision) != s.rev(t, alpha) || c.Title != "Alpha" || !slices.Equal(c.Tags, []string{"e2e", "testing"}) ||
				len(c.Outlinks) != 1 || c.Outlinks[0].To != "tech/bloom.md" || c.Outlinks[0].Status != "resolved" {
				t.Fatalf("get_context: %+v", c)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "e2e/nope.md"}, code: server.CodeNotFound},
			{args: map[string]any{"path": ""}, code: server.CodeInvalidInput},
		}},

		{tool: "links", good: func(t *testing.T, s *e2eSession) {
			var l server.Links
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
			{args: map[string]any{"path": "e2e/nope.md"}, code: server.CodeNotFound},
			{args: map[string]any{"path": "tech/bloom.md", "limit": 501}, code: server.CodeInvalidInput},
		}},

		{tool: "graph_neighborhood", good: func(t *testing.T, s *e2eSession) {
			var nb graph.Neighborhood
			s.call(t, "graph_neighborhood", map[string]any{"path": alpha}, &nb)
			if nb.Center != alpha || !slices.Equal(nodeIDs(nb.Nodes), []string{alpha, "tech/bloom.md"}) ||
				!slices.Equal(nb.Edges, []graph.Edge{{From: alpha, To: "tech/bloom.md", Type: graph.EdgeTypeLink}}) || nb.Commit != s.git(t, "rev-parse", "HEAD") {
				t.Fatalf("graph_neighborhood: %+v", nb)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "e2e/nope.md"}, code: server.CodeNotFound},
			{args: map[string]any{"path": alpha, "depth": 6}, code: server.CodeInvalidInput},
		}},

		{tool: "graph_hubs", good: func(t *testing.T, s *e2eSession) {
			var h graph.NodeList
			s.call(t, "graph_hubs", map[string]any{"limit": 1}, &h)
			if len(h.Nodes) != 1 || h.Nodes[0].ID != "tech/bloom.md" || h.Nodes[0].Backlinks != 3 || h.NextOffset != 1 {
				t.Fatalf("graph_hubs: %+v", h)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"limit": 201}, code: server.CodeInvalidInput},
			{args: map[string]any{"offset": -1}, code: server.CodeInvalidInput},
		}},

		{tool: "stats", good: func(t *testing.T, s *e2eSession) {
			var st server.Stats
			s.call(t, "stats", nil, &st)
			if st.Notes != 7 || st.Commit != s.git(t, "rev-parse", "HEAD") || !slices.Contains(st.Folders, server.Count{Name: "e2e", Notes: 1}) || st.Links.Resolved == 0 {
				t.Fatalf("stats: %+v", st)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"limit": -1}, code: server.CodeInvalidInput},
			{args: map[string]any{"limit": 501}, code: server.CodeInvalidInput},
		}},

		{tool: "history", good: func(t *testing.T, s *e2eSession) {
			var h server.HistoryResult
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
			{args: map[string]any{"cursor": "x"}, code: server.CodeInvalidInput},
			{args: map[string]any{"limit": 101}, code: server.CodeInvalidInput},
		}},

		{tool: "diff", good: func(t *testing.T, s *e2eSession) {
			var d server.DiffResult
			s.call(t, "diff", map[string]any{"from": "HEAD~1", "path": alpha}, &d)
			if len(d.Changes) != 1 || d.Changes[0].Path != alpha || string(d.Changes[0].Revision) != s.rev(t, alpha) || string(d.Changes[0].OldRevision) != s.stale(t, alpha) ||
				!strings.Contains(d.Unified, "\n+Edited by the wombat.\n") || string(d.To) != s.git(t, "rev-parse", "HEAD") {
				t.Fatalf("diff: %+v", d)
			}
		}, bad: []e2eBad{
			{args: map[string]any{}, code: server.CodeInvalidInput},
			{args: map[string]any{"from": "no-such-commit"}, code: server.CodeNotFound},
		}},

		{tool: "capture", good: func(t *testing.T, s *e2eSession) {
			var c server.CaptureResult
			s.call(t, "capture", map[string]any{"text": "the numbat was here", "title": "E2E"}, &c)
			s.committed(t, c.WriteResult, repo.OpCapture)
			if !c.Created || !strings.HasPrefix(string(c.Path), "inbox/") || !strings.HasSuffix(s.git(t, "show", "HEAD:"+string(c.Path)), " UTC · E2E\n\nthe numbat was here") ||
				s.git(t, "show", "--name-only", "--format=", "HEAD") != string(c.Path) {
				t.Fatalf("capture: %+v", c)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"text": "  "}, code: server.CodeInvalidInput},
			{args: map[string]any{"text": "x", "path": "tech/bloom.md"}, code: server.CodeInvalidInput},
		}},

		{tool: "file_note", good: func(t *testing.T, s *e2eSession) {
			beta := "---\ntitle: Beta\ntags: [e2e, testing]\n---\n# Beta\nFiled.\n"
			var f server.FileNoteResult
			s.call(t, "file_note", map[string]any{"path": "e2e/beta.md", "content": beta}, &f)
			s.committed(t, f.WriteResult, repo.OpWrite)
			if f.Index != "e2e/_INDEX.md" || !f.IndexChanged || string(f.IndexRevision) != s.rev(t, "e2e/_INDEX.md") ||
				s.git(t, "show", "--name-only", "--format=", "HEAD") != "e2e/_INDEX.md\ne2e/beta.md" ||
				!strings.HasSuffix(s.git(t, "show", "HEAD:e2e/_INDEX.md"), "\n- [[beta|Beta]]") {
				t.Fatalf("file_note: %+v", f)
			}
			var f2 server.FileNoteResult // listed already: only the note changes
			s.call(t, "file_note", map[string]any{"path": "e2e/beta.md", "content": beta + "Again.\n", "expected_revision": string(f.Revision)}, &f2)
			s.committed(t, f2.WriteResult, repo.OpWrite)
			if f2.IndexChanged || s.git(t, "show", "--name-only", "--format=", "HEAD") != "e2e/beta.md" {
				t.Fatalf("file_note again: %+v", f2)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "e2e/beta.md", "content": "# B\n", "expected_revision": staleRev("e2e/beta.md")}, code: server.CodeConflict, current: "e2e/beta.md"},
			{args: map[string]any{"path": "e2e/bad.md", "content": "# Bad"}, code: server.CodeGateRejected},
			{args: map[string]any{"path": "e2e/_INDEX.md", "content": "# I\n"}, code: server.CodeInvalidInput},
		}},

		{tool: "move_note", good: func(t *testing.T, s *e2eSession) {
			var m server.MoveNoteResult
			s.call(t, "move_note", map[string]any{"from": "e2e/beta.md", "to": "e2e/gamma.md", "expected_revision": curRev("e2e/beta.md")}, &m)
			s.committed(t, m.WriteResult, repo.OpMove)
			if m.Path != "e2e/gamma.md" || !slices.Equal(m.Rewritten, []note.Path{"e2e/_INDEX.md"}) || s.gitOK("cat-file", "-e", "HEAD:e2e/beta.md") ||
				!strings.Contains(s.git(t, "show", "HEAD:e2e/_INDEX.md"), "[[gamma") {
				t.Fatalf("move_note: %+v", m)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"from": alpha, "to": "e2e/delta.md", "expected_revision": staleRev(alpha)}, code: server.CodeConflict, current: alpha},
			{args: map[string]any{"from": "e2e/gamma.md", "to": "tech/bloom.md"}, code: server.CodeInvalidInput}, // a move never overwrites: no retry helps
			{args: map[string]any{"from": "e2e/beta.md", "to": "e2e/delta.md"}, code: server.CodeNotFound},
			{args: map[string]any{"from": alpha, "to": ""}, code: server.CodeInvalidInput},
		}},

		{tool: "link_notes", good: func(t *testing.T, s *e2eSession) {
			var l server.EdgeWriteResult
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
			{args: map[string]any{"from": "tech/bloom.md", "to": "README", "type": "resembles", "why": e2eWhy}, code: server.CodeGateRejected},
			{args: map[string]any{"from": "tech/bloom.md", "to": "README", "type": "supports", "why": e2eWhy, "expected_revision": staleRev("tech/bloom.md")},
				code: server.CodeConflict, current: "tech/bloom.md"},
			{args: map[string]any{"from": "tech/bloom.md", "to": "Secret plan", "type": "supports", "why": e2eWhy}, code: server.CodeNotFound},
			{args: map[string]any{"from": "tech/bloom.md", "to": ""}, code: server.CodeInvalidInput},
		}},

		{tool: "unlink_notes", good: func(t *testing.T, s *e2eSession) {
			var u server.EdgeWriteResult
			s.call(t, "unlink_notes", map[string]any{"from": "tech/bloom.md", "to": "tech/cms.md", "expected_revision": curRev("tech/bloom.md")}, &u)
			s.committed(t, u.WriteResult, repo.OpLink)
			if u.Target != "tech/cms.md" || strings.Contains(s.git(t, "show", "HEAD:tech/bloom.md"), "same_mechanism_as") {
				t.Fatalf("unlink_notes: %+v", u)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"from": "tech/bloom.md", "to": "tech/cms.md"}, code: server.CodeNotFound},
			{args: map[string]any{"from": "tech/bloom.md", "to": "tech/cms.md", "expected_revision": staleRev("tech/bloom.md")}, code: server.CodeConflict, current: "tech/bloom.md"},
		}},

		{tool: "archive_note", good: func(t *testing.T, s *e2eSession) {
			s.st["bloom"] = s.rev(t, "tech/bloom.md")
			var a server.ArchiveNoteResult
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
			{args: map[string]any{"path": "tech/bloom.md", "reason": "archived"}, code: server.CodeNotFound},
			{args: map[string]any{"path": alpha, "reason": "archived", "expected_revision": staleRev(alpha)}, code: server.CodeConflict, current: alpha},
			{args: map[string]any{"path": alpha, "reason": "bored"}, code: server.CodeInvalidInput},
		}},

		{tool: "restore_note", good: func(t *testing.T, s *e2eSession) {
			var r server.WriteResult
			s.call(t, "restore_note", map[string]any{"path": "tech/bloom.md", "from": "HEAD~1"}, &r)
			s.committed(t, r, repo.OpRestore)
			if string(r.Revision) != s.st["bloom"] {
				t.Fatalf("restore_note: %+v, want revision %s", r, s.st["bloom"])
			}
			var read server.ReadNoteResult
			s.call(t, "read_note", map[string]any{"path": "Bloom filters"}, &read)
			if string(read.Revision) != s.st["bloom"] || read.Path != "tech/bloom.md" {
				t.Fatalf("read after restore: %+v", read)
			}
		}, bad: []e2eBad{
			{args: map[string]any{"path": "tech/bloom.md", "from": "HEAD~1"}, code: server.CodeConflict, current: "tech/bloom.md"},
			{args: map[string]any{"path": "e2e/x.md", "from": "no-such-commit"}, code: server.CodeNotFound},
			{args: map[string]any{"path": "e2e/x.md", "from": "HEAD", "revision": "abc"}, code: server.CodeInvalidInput},
		}},
	}
}

// e2eTools checks tools/list — every tool has an output schema (an object with
// properties) and all four annotations, openWorldHint false — and returns each
// tool's readOnlyHint by name.
func e2eTools(t *testing.T, c *client.Client, ctx context.Context) map[string]bool {
	t.Helper()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
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
	if len(tools) != 20 || t.Failed() {
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
				te := wantError(t, s.c, s.ctx, tc.tool, args, b.code, "")
				if after := s.vaultState(t); after != state {
					t.Fatalf("%s %v (refused: %s) changed the vault: %s, then %s", tc.tool, args, te.Code, state, after)
				}
				want := map[server.ErrorCode]server.ErrorClass{server.CodeConflict: server.ClassRetryable,
					server.CodeNotFound: server.ClassFixInput, server.CodeInvalidInput: server.ClassFixInput, server.CodeGateRejected: server.ClassFixInput}[b.code]
				if te.Class != want {
					t.Errorf("%s %v: class %s, want %s", tc.tool, args, te.Class, want)
				}
				if b.code == server.CodeConflict {
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
	scopes := map[string][]server.Scope{
		"e2e-writer":  {server.ScopeRead, server.ScopeWrite},
		"e2e-reader":  {server.ScopeRead},
		"e2e-trusted": {server.ScopeRead, server.ScopeWrite, server.ScopePrivate},
	}
	for _, era := range []struct {
		name   string
		legacy bool
	}{{"stateless", false}, {"session", true}} {
		t.Run(era.name, func(t *testing.T) {
			v, e := newMCPEnv(t, mcpFixture)
			tok, secret := e2eTokens(t, v, scopes)
			url := e2eServeHTTP(t, e.s, tok)
			c, err := dial(t, url, bearer(secret["e2e-writer"]), era.legacy)
			if err != nil {
				t.Fatal(err)
			}
			runE2ETable(t, &e2eSession{c: c, ctx: context.Background(), v: v, who: "e2e-writer", st: map[string]string{}})
		})
	}

	t.Run("refusals", func(t *testing.T) {
		v, e := newMCPEnv(t, mcpFixture)
		tok, secret := e2eTokens(t, v, scopes)
		url := e2eServeHTTP(t, e.s, tok)
		s := &e2eSession{v: v}
		state := s.vaultState(t)

		// No token, a wrong token: 401 with WWW-Authenticate, before MCP sees anything.
		resp, body := rawPost(t, url, nil, initializeBody)
		// The header carries the message too (error_description), and an error
		// even for a missing token: the MCP Inspector shows only the header, and
		// takes a bare challenge for OAuth.
		wantAuth := func(resp *http.Response, desc string) bool {
			return resp.Header.Get("WWW-Authenticate") == `Bearer realm="norn", error="invalid_token", error_description="`+desc+`"`
		}
		const hint = "run `norn token add NAME` on the vault's machine and send the token it prints as `Authorization: Bearer <token>`"
		if resp.StatusCode != http.StatusUnauthorized || !wantAuth(resp, "this server needs a bearer token: "+hint) || errorCode(t, body) != "missing_token" {
			t.Fatalf("no token: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
		wrong := server.TokenPrefix + strings.Repeat("A", 43)
		resp, body = rawPost(t, url, bearer(wrong), initializeBody)
		if resp.StatusCode != http.StatusUnauthorized || !wantAuth(resp, "the token is unknown or revoked: "+hint) || errorCode(t, body) != "invalid_token" {
			t.Fatalf("wrong token: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
		const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_note","arguments":{"path":"e2e/x.md","content":"# X\n"}}}`
		if resp, _ := rawPost(t, url, bearer(wrong), call); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a tool call with a wrong token: %d", resp.StatusCode)
		}
		if _, err := dial(t, url, bearer(wrong), false); err == nil {
			t.Fatal("the client connected with a wrong token")
		}

		// A read-only token reads, and is refused every write.
		rc, err := dial(t, url, bearer(secret["e2e-reader"]), false)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var r server.ReadNoteResult
		mustCall(t, rc, ctx, "read_note", map[string]any{"path": "tech/bloom.md"}, &r)
		if string(r.Revision) != s.rev(t, "tech/bloom.md") {
			t.Fatalf("reader read_note: %+v", r)
		}
		te := wantError(t, rc, ctx, "write_note", map[string]any{"path": "e2e/x.md", "content": "# X\n"}, server.CodeForbidden, server.ClassFatal)
		if !strings.Contains(te.Message, "write scope") {
			t.Fatalf("forbidden message: %s", te.Message)
		}
		for name, readOnly := range e2eTools(t, rc, ctx) {
			if !readOnly {
				wantError(t, rc, ctx, name, map[string]any{"path": "e2e/x.md", "content": "# X\n", "text": "x"}, server.CodeForbidden, server.ClassFatal)
			}
		}
		if after := s.vaultState(t); after != state || s.gitOK("cat-file", "-e", "HEAD:e2e/x.md") {
			t.Fatalf("a refused write changed the vault: %s, then %s", state, after)
		}

		// The private scope is the token's too: the writer does not see a private
		// note, the trusted token does.
		wc, err := dial(t, url, bearer(secret["e2e-writer"]), true)
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, wc, ctx, "read_note", map[string]any{"path": "tech/secret.md"}, server.CodeNotFound, server.ClassFixInput)
		tc, err := dial(t, url, bearer(secret["e2e-trusted"]), false)
		if err != nil {
			t.Fatal(err)
		}
		mustCall(t, tc, ctx, "read_note", map[string]any{"path": "tech/secret.md"}, &r)
		if r.Title != "Secret plan" {
			t.Fatalf("trusted read_note: %+v", r)
		}
	})
}

func TestMCPE2E_Stdio(t *testing.T) {
	v, e := newMCPEnv(t, mcpFixture)
	// As `norn serve --stdio --agent e2e-stdio` serves it.
	p := server.Principal{Name: "e2e-stdio", Scopes: []server.Scope{server.ScopeRead, server.ScopeWrite}}
	c := e2eStdio(t, e.s, p)
	runE2ETable(t, &e2eSession{c: c, ctx: context.Background(), v: v, who: p.Name, st: map[string]string{}})
}

// --- concurrent writers ---

// e2eShared is a shared note of the concurrency test with its last writer's marker:
// write_note writes it whole, edit_note's replace_section of "Last" gives the same
// bytes.
func e2eShared(p, marker string) string {
	stem := strings.TrimSuffix(filepath.Base(p), ".md")
	return "---\ntitle: Shared " + stem + "\ntags: [shared, concurrency]\n---\n# Shared " + stem + "\n\n## Last\n" + marker + "\n"
}

// e2eAttempts is how many writes each concurrent writer attempts.
const e2eAttempts = 200

// e2eAck is one acknowledged write.
type e2eAck struct {
	author, path, marker     string
	commit, parent, revision string
}

// e2eCall calls a tool from any goroutine (no t.Fatal): a tool error comes back
// as *ToolError, anything else wrong as an error.
func e2eCall(ctx context.Context, c *client.Client, name string, args map[string]any, out any) (*server.ToolError, error) {
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		var te server.ToolError
		var text *mcp.TextContent
		if len(res.Content) == 1 {
			text, _ = mcp.AsTextContent(res.Content[0])
		}
		if res.StructuredContent != nil || text == nil || json.Unmarshal([]byte(text.Text), &te) != nil || te.Code == "" || te.Class == "" {
			return nil, fmt.Errorf("%s: error result not {class, code} as text alone: %+v", name, res)
		}
		return &te, nil
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return nil, fmt.Errorf("%s: decode %s: %w", name, b, err)
		}
	}
	return nil, nil
}

// e2eWriter is one client of the concurrency test: it reads the notes once, then
// makes attempts writes, alternating write_note and edit_note, each with the
// revision it last learnt of the note: from its own write, or from the conflict
// that refused it (then it tries the same note again).
func e2eWriter(ctx context.Context, c *client.Client, name string, first int, notes []string, attempts int) (acks []e2eAck, conflicts int, err error) {
	known := map[string]string{}
	for _, p := range notes {
		var r server.ReadNoteResult
		te, err := e2eCall(ctx, c, "read_note", map[string]any{"path": p}, &r)
		if err != nil || te != nil {
			return nil, 0, fmt.Errorf("%s: read_note %s: %v %v", name, p, err, te)
		}
		known[p] = string(r.Revision)
	}
	next := first
	for k := range attempts {
		p := notes[next%len(notes)]
		marker := fmt.Sprintf("marker %s #%03d", name, k)
		tool, args := "write_note", map[string]any{"path": p, "content": e2eShared(p, marker), "expected_revision": known[p]}
		if k%2 == 1 {
			tool, args = "edit_note", map[string]any{"path": p, "op": "replace_section", "heading": "Last", "content": marker + "\n", "expected_revision": known[p]}
		}
		var w server.WriteResult
		te, err := e2eCall(ctx, c, tool, args, &w)
		switch {
		case err != nil:
			return acks, conflicts, fmt.Errorf("%s attempt %d: %w", name, k, err)
		case te == nil:
			if string(w.Path) != p || w.Revision == "" || w.Commit == "" || w.Parent == "" || w.DryRun {
				return acks, conflicts, fmt.Errorf("%s attempt %d: %s answered %+v", name, k, tool, w)
			}
			acks = append(acks, e2eAck{author: name, path: p, marker: marker, commit: string(w.Commit), parent: string(w.Parent), revision: string(w.Revision)})
			known[p] = string(w.Revision)
			next++
		case te.Code == server.CodeConflict:
			if te.Class != server.ClassRetryable || string(te.Path) != p || te.CurrentRevision == "" {
				return acks, conflicts, fmt.Errorf("%s attempt %d: %s: a conflict that does not say what to retry with: %+v", name, k, tool, te)
			}
			if string(te.CurrentRevision) == known[p] {
				return acks, conflicts, fmt.Errorf("%s attempt %d: %s: a conflict although %s is still at the expected revision %s: %s", name, k, tool, p, known[p], te.Message)
			}
			known[p] = string(te.CurrentRevision)
			conflicts++
		default:
			return acks, conflicts, fmt.Errorf("%s attempt %d: %s on %s: neither landed nor conflict: %s/%s: %s", name, k, tool, p, te.Class, te.Code, te.Message)
		}
	}
	return acks, conflicts, nil
}

// e2eCatFile reads objects ("COMMIT:path") with one git cat-file --batch: their ids
// and contents.
func e2eCatFile(t *testing.T, dir string, names []string) (ids, contents []string) {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch: %v\n%s", err, stderr.String())
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for _, n := range names {
		hdr, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("cat-file %s: %v", n, err)
		}
		f := strings.Fields(hdr)
		if len(f) != 3 || f[1] != "blob" {
			t.Fatalf("cat-file %s: %q", n, hdr)
		}
		size, _ := strconv.Atoi(f[2])
		b := make([]byte, size+1) // the content and a newline
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatalf("cat-file %s: %v", n, err)
		}
		ids, contents = append(ids, f[0]), append(contents, string(b[:size]))
	}
	return ids, contents
}

// e2eOthers lists the commits after base that no writer made, with the marker each
// changed a shared note from and to.
func e2eOthers(t *testing.T, dir, base string) string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(mcpGit(t, dir, "log", "--format=%h %an %s", base+"..HEAD"), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || strings.HasPrefix(f[1], "writer-") {
			continue
		}
		for _, p := range strings.Fields(mcpGit(t, dir, "show", "--name-only", "--format=", f[0])) {
			marker := func(rev string) string {
				b, _ := exec.Command("git", "-C", dir, "show", rev+":"+p).Output()
				lines := strings.Split(strings.TrimSpace(string(b)), "\n")
				return lines[len(lines)-1]
			}
			l += fmt.Sprintf("\n\t%s: %q -> %q", p, marker(f[0]+"^"), marker(f[0]))
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestMCPE2E_ConcurrentWriters: 8 HTTP clients, each with its own token, make
// e2eAttempts writes each to 4 shared notes, with expected_revision. Every write
// lands or is a conflict carrying the current revision; afterwards git holds exactly
// the acknowledged commits, each by its token's name with its content, and each note
// ends as its last acknowledged write.
func TestMCPE2E_ConcurrentWriters(t *testing.T) { e2eConcurrentWriters(t, 0) }

// TestMCPE2E_ConcurrentWritersUnderMaintainer is the same with the background
// maintainer `norn serve` runs (server.Maintainer: commit external edits, pack),
// here every 10 ms so that its rounds meet the writes often. The writers make no
// external edits, so it must commit nothing.
func TestMCPE2E_ConcurrentWritersUnderMaintainer(t *testing.T) {
	e2eConcurrentWriters(t, 10*time.Millisecond)
}

// e2eConcurrentWriters runs the concurrent writers, with a maintainer every
// maintain when it is not 0.
func e2eConcurrentWriters(t *testing.T, maintain time.Duration) {
	const writers = 8
	attempts := e2eAttempts
	notes := []string{"shared/n0.md", "shared/n1.md", "shared/n2.md", "shared/n3.md"}
	files := map[string]string{"README.md": "# Readme\n"}
	for _, p := range notes {
		files[p] = e2eShared(p, "initial")
	}
	v, e := newMCPEnv(t, files)
	scopes := map[string][]server.Scope{}
	for i := range writers {
		scopes[fmt.Sprintf("writer-%d", i)] = []server.Scope{server.ScopeRead, server.ScopeWrite}
	}
	tok, secret := e2eTokens(t, v, scopes)
	url := e2eServeHTTP(t, e.s, tok)
	s := &e2eSession{v: v}
	base := s.git(t, "rev-parse", "HEAD")
	baseCount, _ := strconv.Atoi(commitCount(t, v))

	mctx, stopMaint := context.WithCancel(context.Background())
	var maint sync.WaitGroup
	if maintain > 0 {
		maint.Go(func() {
			(&server.Maintainer{Vault: v.Vault, Settings: v.Settings, Logger: e2eQuiet, Every: maintain}).Run(mctx)
		})
	}
	stop := func() { stopMaint(); maint.Wait() }
	defer stop()

	clients := make([]*client.Client, writers)
	for i := range writers {
		c, err := dial(t, url, bearer(secret[fmt.Sprintf("writer-%d", i)]), i%2 == 1) // half of them with sessions
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a hang fails, it is not a timing
	defer cancel()
	start := time.Now()
	acks := make([][]e2eAck, writers)
	conflicts := make([]int, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			acks[i], conflicts[i], errs[i] = e2eWriter(ctx, clients[i], fmt.Sprintf("writer-%d", i), i, notes, attempts)
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	stop()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("%v\ncommits after the base not made by a writer:\n%s", err, e2eOthers(t, v.Dir(), base))
	}
	var all []e2eAck
	nconf := 0
	for i := range writers {
		all = append(all, acks[i]...)
		nconf += conflicts[i]
	}
	t.Logf("%d writers × %d attempts: %d landed, %d conflicts, in %v (%.1f attempts/s)",
		writers, attempts, len(all), nconf, elapsed.Round(time.Millisecond), float64(writers*attempts)/elapsed.Seconds())
	if len(all)+nconf != writers*attempts || len(all) == 0 {
		t.Fatalf("%d landed + %d conflicts, want %d attempts", len(all), nconf, writers*attempts)
	}

	// git has exactly the acknowledged commits after the base, each by its token's
	// name on top of the parent it was acknowledged with, changing only its note.
	dir := v.Dir()
	if got, _ := strconv.Atoi(commitCount(t, v)); got != baseCount+len(all) {
		t.Fatalf("%d commits, want %d before + %d acknowledged; not by a writer:\n%s", got, baseCount, len(all), e2eOthers(t, dir, base))
	}
	type logged struct {
		parent, author string
		paths          []string
	}
	byCommit := map[string]*logged{}
	var order []string // newest first
	for _, line := range strings.Split(mcpGit(t, dir, "log", "--format=@%H %P %an", "--name-only", base+"..HEAD"), "\n") {
		switch {
		case strings.HasPrefix(line, "@"):
			f := strings.Fields(line[1:])
			if len(f) != 3 {
				t.Fatalf("git log line %q: not one parent and a one-word author", line)
			}
			byCommit[f[0]] = &logged{parent: f[1], author: f[2]}
			order = append(order, f[0])
		case line != "":
			byCommit[order[len(order)-1]].paths = append(byCommit[order[len(order)-1]].paths, line)
		}
	}
	ackOf := map[string]e2eAck{}
	for _, a := range all {
		l, ok := byCommit[a.commit]
		switch {
		case !ok:
			t.Fatalf("acknowledged commit %s (%s, %s) is not in git log", a.commit, a.author, a.marker)
		case l.author != a.author:
			t.Fatalf("commit %s: git author %s, acknowledged to %s", a.commit, l.author, a.author)
		case l.parent != a.parent:
			t.Fatalf("commit %s: git parent %s, acknowledged with %s", a.commit, l.parent, a.parent)
		case !slices.Equal(l.paths, []string{a.path}):
			t.Fatalf("commit %s changed %v, acknowledged for %s", a.commit, l.paths, a.path)
		}
		if _, dup := ackOf[a.commit]; dup {
			t.Fatalf("commit %s acknowledged twice", a.commit)
		}
		ackOf[a.commit] = a
	}
	if len(byCommit) != len(all) {
		t.Fatalf("git log has %d commits after the base, %d acknowledged", len(byCommit), len(all))
	}

	// Every acknowledged content is in its commit, as the revision it was acknowledged with.
	names := make([]string, len(all))
	for i, a := range all {
		names[i] = a.commit + ":" + a.path
	}
	ids, contents := e2eCatFile(t, dir, names)
	for i, a := range all {
		if ids[i] != a.revision || contents[i] != e2eShared(a.path, a.marker) {
			t.Fatalf("%s: %s %q, acknowledged %s with %q", names[i], ids[i], contents[i], a.revision, a.marker)
		}
	}

	// Each note ends as its last acknowledged write: on disk, at HEAD, and to a reader.
	last := map[string]e2eAck{}
	for _, c := range order {
		if a := ackOf[c]; last[a.path].commit == "" {
			last[a.path] = a
		}
	}
	for _, p := range notes {
		a, ok := last[p]
		if !ok {
			t.Fatalf("no write to %s landed", p)
		}
		if got := mcpGit(t, dir, "rev-parse", "HEAD:"+p); got != a.revision {
			t.Fatalf("%s at HEAD is %s, its last acknowledged write %s (%s)", p, got, a.revision, a.marker)
		}
		if got := onDisk(t, v, p); got != e2eShared(p, a.marker) {
			t.Fatalf("%s on disk:\n%s\nwant the last acknowledged write %q", p, got, a.marker)
		}
		var r server.ReadNoteResult
		mustCall(t, clients[0], context.Background(), "read_note", map[string]any{"path": p}, &r)
		if string(r.Revision) != a.revision || r.Content != e2eShared(p, a.marker) {
			t.Fatalf("read_note %s: %s, want %s", p, r.Revision, a.revision)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-dangling").CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
	if st := mcpGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status after the writers:\n%s", st)
	}
}
