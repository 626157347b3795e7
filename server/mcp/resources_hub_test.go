package mcp_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/server/mcp"
)

// TestMCP_ResourceNotificationsFollowTheHub: resource notifications come from the
// change feed's hub, as wait_for_changes's answers do. While another client
// writes, a subscriber without the private scope is notified once per commit
// that changed its public note — as many as wait_for_changes lists for it — and
// never for the private note it also subscribed to; the private scope's
// subscriber is notified of that one. A `git reset --hard` made by hand to an
// older commit (the hub's rewind) notifies the subscribers of the notes it
// changed back, and only them.
func TestMCP_ResourceNotificationsFollowTheHub(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	agent, actx := e.Connect(&testmcp.Agent, true)
	updates := testmcp.Notifications(agent)
	trusted, tctx := e.Connect(&testmcp.Trusted, true)
	trustedUpdates := testmcp.Notifications(trusted)
	writer, wctx := e.Connect(&testmcp.Trusted, false)
	bloom, cms, diary := mcp.NoteURI("tech/bloom.md"), mcp.NoteURI("tech/cms.md"), mcp.NoteURI("personal-notes/diary.md")
	subscribe := func(c interface {
		Subscribe(context.Context, mcpgo.SubscribeRequest) error
	}, ctx context.Context, uris ...string) {
		for _, uri := range uris {
			//lint:ignore SA1019 resources/subscribe is what clients on the pre-2026-07-28 protocol send; the server must keep answering it
			if err := c.Subscribe(ctx, mcpgo.SubscribeRequest{Params: mcpgo.SubscribeParams{URI: uri}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	subscribe(agent, actx, bloom, diary, cms)
	subscribe(trusted, tctx, diary, cms)
	start := headNow(t, agent, actx)

	// Writes land while the subscribers listen: bloom and the diary, in turn,
	// from a goroutine; the test waits for it.
	const n = 8
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range n {
			for _, p := range []note.Path{"tech/bloom.md", "personal-notes/diary.md"} {
				if te := testmcp.CallTool(t, writer, wctx, "edit_note", map[string]any{"path": string(p), "op": "append",
					"content": fmt.Sprintf("Line %d.\n", i), "expected_revision": string(v.Revision(p))}, nil); te != nil {
					t.Errorf("edit %s: %s", p, te.Message)
				}
			}
		}
	})
	wg.Wait()
	// A last public commit the agent and the trusted client subscribed to:
	// once its notification is in, every earlier one is too.
	sentinel := func() {
		t.Helper()
		testmcp.MustCall(t, writer, wctx, "edit_note", map[string]any{"path": "tech/cms.md", "op": "append",
			"content": "More.\n", "expected_revision": string(v.Revision("tech/cms.md"))}, nil)
	}
	count := func(ch <-chan mcpgo.JSONRPCNotification) map[string]int {
		t.Helper()
		got := map[string]int{}
		for {
			uri, _ := testmcp.NextUpdate(t, ch)
			got[uri]++
			if uri == cms {
				return got
			}
		}
	}
	sentinel()
	got, tgot := count(updates), count(trustedUpdates)
	out, _ := waitChanges(t, agent, actx, map[string]any{"since": string(start), "timeout": 0})
	fed := 0
	for _, m := range out.Messages {
		for _, c := range eventChanges(m) {
			if c == "modified tech/bloom.md" {
				fed++
			}
		}
	}
	if got[bloom] != n || fed != n || got[diary] != 0 || got[cms] != 1 {
		t.Fatalf("agent notified %v (wait_for_changes lists %d commits of bloom), want %d of bloom, none of the diary", got, fed, n)
	}
	if tgot[diary] != n || tgot[bloom] != 0 {
		t.Fatalf("trusted notified %v, want %d of the diary", tgot, n)
	}

	// A rewind by hand: bloom and the diary go back to before the last edits.
	back := v.Head()
	for _, p := range []note.Path{"tech/bloom.md", "personal-notes/diary.md"} {
		testmcp.MustCall(t, writer, wctx, "edit_note", map[string]any{"path": string(p), "op": "append",
			"content": "Undone.\n", "expected_revision": string(v.Revision(p))}, nil)
	}
	if uri, _ := testmcp.NextUpdate(t, updates); uri != bloom {
		t.Fatalf("agent: %s, want the edit of %s", uri, bloom)
	}
	if uri, _ := testmcp.NextUpdate(t, trustedUpdates); uri != diary {
		t.Fatalf("trusted: %s, want the edit of %s", uri, diary)
	}
	testmcp.Git(t, v.Dir(), "reset", "-q", "--hard", string(back))
	if err := v.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v.Head() != back {
		t.Fatalf("head %s after the reset, want %s", v.Head(), back)
	}
	sentinel()
	if got := count(updates); got[bloom] != 1 || got[cms] != 1 || len(got) != 2 {
		t.Fatalf("agent after the rewind: %v, want bloom (changed back) and the sentinel; not the private diary", got)
	}
	if got := count(trustedUpdates); got[diary] != 1 || got[cms] != 1 || len(got) != 2 {
		t.Fatalf("trusted after the rewind: %v, want the diary (changed back) and the sentinel", got)
	}
	if e.Hub.Stats().Head != v.Head() {
		t.Fatalf("hub at %s, vault at %s", e.Hub.Stats().Head, v.Head())
	}
}
