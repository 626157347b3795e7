package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/sync/feed"
)

// waitChanges calls wait_for_changes and returns its answer and the raw bytes of
// the whole result (every content block).
func waitChanges(t *testing.T, c *client.Client, ctx context.Context, args map[string]any) (mcp.WaitForChangesResult, string) {
	t.Helper()
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "wait_for_changes", Arguments: args}})
	if err != nil {
		t.Fatalf("wait_for_changes: %v", err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("wait_for_changes %v: %s", args, raw)
	}
	var out mcp.WaitForChangesResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return out, string(raw)
}

// headNow is the cursor of an answer at once from the head.
func headNow(t *testing.T, c *client.Client, ctx context.Context) repo.CommitID {
	t.Helper()
	out, _ := waitChanges(t, c, ctx, map[string]any{"timeout": 0})
	if len(out.Messages) != 0 || !out.TimedOut || out.More {
		t.Fatalf("an answer at once without since: %+v", out)
	}
	return out.Cursor
}

func eventChanges(m feed.Message) []string {
	var ps []string
	for _, ch := range m.Changes {
		ps = append(ps, string(ch.Kind)+" "+string(ch.Path))
	}
	return ps
}

func TestWaitForChanges_WriteByAnotherClient(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	reader, rctx := e.Connect(&testmcp.Reader, true)
	agent, actx := e.Connect(&testmcp.Agent, false)
	head := headNow(t, reader, rctx)
	if head != v.Head() {
		t.Fatalf("cursor %s, head %s", head, v.Head())
	}

	got := make(chan mcp.WaitForChangesResult, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		out, _ := waitChanges(t, reader, rctx, map[string]any{"since": string(head), "timeout": 60})
		got <- out
	})
	// Write once the poll waits on the hub (a write before it is replayed just
	// the same; this makes the test take the live path).
	for e.Hub.Stats().Clients == 0 {
		select {
		case out := <-got:
			t.Fatalf("answered before any write: %+v", out)
		default:
			time.Sleep(time.Millisecond)
		}
	}
	var w mcp.WriteResult
	testmcp.MustCall(t, agent, actx, "write_note", map[string]any{"path": "tech/new.md",
		"content": "---\ntitle: New\ntype: concept\nstatus: active\ntags: [a-b, c-d]\nupdated: 2026-11-30\n---\n# New\n"}, &w)
	out := <-got
	wg.Wait()
	if len(out.Messages) != 1 || out.TimedOut || out.More || out.Cursor != w.Commit {
		t.Fatalf("answer %+v, want the one write %s", out, w.Commit)
	}
	m := out.Messages[0]
	if m.Type != feed.TypeEvent || m.Commit != w.Commit || m.Op != repo.OpWrite || m.Source != repo.SourceLocal ||
		m.Author == nil || m.Author.Name != testmcp.Agent.Name || strings.Join(eventChanges(m), ",") != "added tech/new.md" ||
		m.Changes[0].Revision != w.Revision || len(m.Parents) != 1 || m.Parents[0] != head {
		t.Fatalf("event %+v", m)
	}
	if git := testmcp.Git(t, v.Dir(), "rev-parse", "HEAD"); git != string(w.Commit) {
		t.Fatalf("git HEAD %s, event %s", git, w.Commit)
	}
	// Replayed from the same since, the same event; from its cursor, nothing.
	again, _ := waitChanges(t, reader, rctx, map[string]any{"since": string(head), "timeout": 0})
	if len(again.Messages) != 1 || again.Messages[0].Commit != w.Commit {
		t.Fatalf("replay %+v", again)
	}
	none, _ := waitChanges(t, reader, rctx, map[string]any{"since": string(w.Commit), "timeout": 0})
	if len(none.Messages) != 0 || !none.TimedOut || none.Cursor != w.Commit {
		t.Fatalf("after the cursor %+v", none)
	}
}

func TestWaitForChanges_GitCLICommit(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	head := headNow(t, c, ctx)
	dir := v.Dir()
	if err := os.WriteFile(filepath.Join(dir, "tech", "cli.md"), []byte("# CLI\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testmcp.Git(t, dir, "add", "tech/cli.md")
	testmcp.Git(t, dir, "-c", "user.name=Person", "-c", "user.email=p@x", "commit", "-q", "-m", "by hand")
	if err := v.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, _ := waitChanges(t, c, ctx, map[string]any{"since": string(head), "timeout": 60})
	want := repo.CommitID(testmcp.Git(t, dir, "rev-parse", "HEAD"))
	if len(out.Messages) != 1 || out.Cursor != want {
		t.Fatalf("answer %+v, want git's %s", out, want)
	}
	m := out.Messages[0]
	if m.Commit != want || m.Source != repo.SourceExternal || m.Author == nil || m.Author.Name != "Person" ||
		strings.Join(eventChanges(m), ",") != "added tech/cli.md" {
		t.Fatalf("event %+v", m)
	}
}

func TestWaitForChanges_TimeoutWithoutChange(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Reader, false)
	head := headNow(t, c, ctx)
	out, _ := waitChanges(t, c, ctx, map[string]any{"since": string(head), "timeout": 1})
	if !out.TimedOut || out.More || len(out.Messages) != 0 || out.Cursor != head || v.Head() != head {
		t.Fatalf("timeout answer %+v (head %s)", out, head)
	}
	// Without since, a wait from the head now ends the same way.
	out, _ = waitChanges(t, c, ctx, map[string]any{"timeout": 1})
	if !out.TimedOut || len(out.Messages) != 0 || out.Cursor != head {
		t.Fatalf("timeout answer without since %+v", out)
	}
}

func TestWaitForChanges_Privacy(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	reader, rctx := e.Connect(&testmcp.Reader, false)
	trusted, tctx := e.Connect(&testmcp.Trusted, false)
	head := headNow(t, reader, rctx)
	secretRev := v.Revision("tech/secret.md")
	diaryRev := v.Revision("personal-notes/diary.md")

	// A commit of private notes only: by folder, and by frontmatter.
	testmcp.MustCall(t, trusted, tctx, "capture", map[string]any{"text": "zebra"}, nil) // the inbox is public: a visible commit
	var hid mcp.WriteResult
	testmcp.MustCall(t, trusted, tctx, "edit_note", map[string]any{"path": "tech/secret.md", "op": "append",
		"content": "zebra crossing\n", "expected_revision": string(secretRev)}, &hid)
	// A commit of a private and a public note, by hand.
	dir := v.Dir()
	for p, body := range map[string]string{"personal-notes/diary.md": "# Diary\nzebra night\n", "tech/cms.md": "# Count-min sketch\nedited\n"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testmcp.Git(t, dir, "add", "-A")
	testmcp.Git(t, dir, "-c", "user.name=Person", "-c", "user.email=p@x", "commit", "-q", "-m", "diary and personal-notes/diary.md")
	if err := v.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	tip := v.Head()

	out, raw := waitChanges(t, reader, rctx, map[string]any{"since": string(head), "timeout": 0})
	// A hidden commit's id is not hidden (the cursor passes it, and it is the
	// parent of the next commit), but nothing it changed may show.
	for _, leak := range []string{"personal-notes", "secret", "diary", "zebra crossing", string(secretRev), string(diaryRev),
		string(hid.Revision), string(v.Revision("personal-notes/diary.md"))} {
		if strings.Contains(raw, leak) {
			t.Fatalf("the answer names %q: %s", leak, raw)
		}
	}
	if out.Cursor != tip || len(out.Messages) != 2 {
		t.Fatalf("reader's answer %+v, want the capture and the public half of the hand commit, cursor %s", out, tip)
	}
	if m := out.Messages[1]; m.Commit != tip || strings.Join(eventChanges(m), ",") != "modified tech/cms.md" {
		t.Fatalf("mixed commit as %+v", m)
	}
	// A commit of hidden notes only moves the cursor: from just before it, the
	// answer is empty but the cursor passes it.
	only, raw := waitChanges(t, reader, rctx, map[string]any{"since": string(hid.Parent), "timeout": 0})
	if strings.Contains(raw, "secret") || only.Cursor != tip || len(only.Messages) != 1 || only.Messages[0].Commit != tip {
		t.Fatalf("from before the hidden commit: %+v", only)
	}
	// The private scope sees all three commits whole.
	all, _ := waitChanges(t, trusted, tctx, map[string]any{"since": string(head), "timeout": 0})
	if len(all.Messages) != 3 || all.Messages[1].Commit != hid.Commit || len(all.Messages[2].Changes) != 2 {
		t.Fatalf("trusted answer %+v", all)
	}
	// Folders filter like the feed's.
	tech, _ := waitChanges(t, trusted, tctx, map[string]any{"since": string(head), "timeout": 0, "folders": []string{"tech"}})
	if len(tech.Messages) != 2 || tech.Cursor != tip {
		t.Fatalf("folders=tech %+v", tech)
	}
}

func TestWaitForChanges_Resync(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Reader, false)
	head := v.Head()
	orphan := testmcp.Git(t, v.Dir(), "-c", "user.name=P", "-c", "user.email=p@x", "commit-tree", "HEAD^{tree}", "-m", "elsewhere")
	for since, detail := range map[string]string{
		strings.Repeat("ab", 20): "not a commit of this vault",
		orphan:                   "not an ancestor",
	} {
		out, _ := waitChanges(t, c, ctx, map[string]any{"since": since, "timeout": 60})
		if len(out.Messages) != 1 || out.Cursor != head || out.TimedOut {
			t.Fatalf("since %s: %+v", since, out)
		}
		if m := out.Messages[0]; m.Type != feed.TypeResync || m.Head != head || !strings.Contains(m.Detail, detail) {
			t.Fatalf("since %s: %+v, want a resync to %s (%s)", since, m, head, detail)
		}
	}
}

func TestWaitForChanges_BadInput(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	head := v.Head()
	for _, args := range []map[string]any{
		{"timeout": 61},
		{"timeout": -1},
		{"since": "HEAD"},
		{"since": "abc"},
		{"folders": []string{"../etc"}},
		{"folders": []string{"a//b"}},
		{"nope": 1},
	} {
		te := testmcp.WantError(t, c, ctx, "wait_for_changes", args, mcp.CodeInvalidInput, mcp.ClassFixInput)
		if te.Message == "" {
			t.Fatalf("%v: no message", args)
		}
	}
	if v.Head() != head || e.Hub.Stats().Clients != 0 {
		t.Fatalf("bad input left head %s (was %s), %d hub clients", v.Head(), head, e.Hub.Stats().Clients)
	}
}

// wireLog keeps every response byte a client's HTTP transport read.
type wireLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *wireLog) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	l.mu.Lock()
	l.buf.Write(b)
	l.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, err
}

func (l *wireLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestWaitForChanges_PrivacyOnTheWire: over streamable HTTP, a token without the
// private scope never reads a private note's path, in any response byte, while
// private and public notes change beside it.
func TestWaitForChanges_PrivacyOnTheWire(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	tok, secret := testmcp.Tokens(t, v, map[string][]auth.Scope{"wire-reader": {auth.ScopeRead}})
	url := testmcp.ServeHTTP(t, e.S, tok)
	wire := &wireLog{}
	c, err := testmcp.Dial(t, url, testmcp.Bearer(secret["wire-reader"]), false,
		transport.WithHTTPBasicClient(&http.Client{Transport: wire}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	head := headNow(t, c, ctx)
	trusted, tctx := e.Connect(&testmcp.Trusted, false)
	testmcp.MustCall(t, trusted, tctx, "write_note", map[string]any{"path": "personal-notes/plan.md",
		"content": "# Plan\nquokka\n"}, nil)
	testmcp.MustCall(t, trusted, tctx, "edit_note", map[string]any{"path": "tech/secret.md", "op": "append",
		"content": "quokka\n", "expected_revision": string(v.Revision("tech/secret.md"))}, nil)
	testmcp.MustCall(t, trusted, tctx, "capture", map[string]any{"text": "public wombat"}, nil)
	out, _ := waitChanges(t, c, ctx, map[string]any{"since": string(head), "timeout": 60})
	if len(out.Messages) != 1 || out.Cursor != v.Head() || !strings.HasPrefix(string(out.Messages[0].Changes[0].Path), "inbox/") {
		t.Fatalf("reader's answer %+v, want the capture alone", out)
	}
	raw := wire.String()
	if !strings.Contains(raw, "inbox/") {
		t.Fatalf("the wire log misses the answer: %s", raw)
	}
	for _, leak := range []string{"personal-notes", "plan.md", "secret", "quokka"} {
		if strings.Contains(raw, leak) {
			t.Fatalf("a response names %q: %s", leak, raw)
		}
	}
}
