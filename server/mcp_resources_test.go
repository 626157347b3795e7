package server_test

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/server"
)

// notifications collects the notifications a client receives, in order.
func notifications(c *client.Client) <-chan mcp.JSONRPCNotification {
	ch := make(chan mcp.JSONRPCNotification, 64)
	c.OnNotification(func(n mcp.JSONRPCNotification) { ch <- n })
	return ch
}

// nextUpdate waits for the next notifications/resources/updated and returns its uri.
func nextUpdate(t *testing.T, ch <-chan mcp.JSONRPCNotification) (string, mcp.JSONRPCNotification) {
	t.Helper()
	for n := range ch {
		if n.Method == mcp.MethodNotificationResourceUpdated {
			uri, _ := n.Params.AdditionalFields["uri"].(string)
			return uri, n
		}
	}
	t.Fatal("notification channel closed")
	return "", mcp.JSONRPCNotification{}
}

func TestMCP_ResourcesListAndRead(t *testing.T) {
	files := maps.Clone(mcpFixture)
	files["notes/with space.md"] = "# With space\n"
	for i := range 150 {
		files[fmt.Sprintf("many/n%03d.md", i)] = fmt.Sprintf("# N%d\n", i)
	}
	_, e := newMCPEnv(t, files)
	c, ctx := e.connect(&mcpAgent, true)
	caps := c.GetServerCapabilities()
	if caps.Resources == nil || !caps.Resources.Subscribe || caps.Tools == nil {
		t.Fatalf("capabilities: %+v", caps)
	}
	tmpl, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate.Raw() != "norn://note/{+path}" ||
		tmpl.ResourceTemplates[0].MIMEType != "text/markdown" {
		t.Fatalf("templates: %+v %v", tmpl, err)
	}
	p1, err := c.ListResourcesByPage(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p1.Resources) != 100 || p1.NextCursor == "" || p1.Resources[0].URI != "norn://note/README.md" || p1.Resources[0].MIMEType != "text/markdown" {
		t.Fatalf("page 1: %d resources, cursor %q, first %+v", len(p1.Resources), p1.NextCursor, p1.Resources[0])
	}
	all, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Resources) != 6+1+150 {
		t.Fatalf("all pages: %d resources", len(all.Resources))
	}
	seen := map[string]bool{}
	for _, r := range all.Resources {
		if seen[r.URI] {
			t.Fatalf("%s listed twice", r.URI)
		}
		seen[r.URI] = true
	}
	if !seen["norn://note/notes/with%20space.md"] || seen[server.NoteURI("tech/secret.md")] {
		t.Fatalf("escaping or privacy: %v", seen["norn://note/notes/with%20space.md"])
	}
	for uri, want := range map[string]string{
		"norn://note/tech/bloom.md":         mcpFixture["tech/bloom.md"],
		"norn://note/notes/with%20space.md": "# With space\n",
	} {
		res, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		txt, ok := res.Contents[0].(mcp.TextResourceContents)
		if !ok || txt.Text != want || txt.URI != uri || txt.MIMEType != "text/markdown" {
			t.Fatalf("read %s: %+v", uri, res.Contents)
		}
	}
	for _, uri := range []string{"norn://note/nope.md", "norn://note/../x.md", "norn://note/%zz"} {
		if _, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}}); err == nil {
			t.Fatalf("read %s succeeded", uri)
		}
	}
}

func TestMCP_ResourceSubscriptions(t *testing.T) {
	v, e := newMCPEnv(t, mcpFixture)
	agent, actx := e.connect(&mcpAgent, true)
	updates := notifications(agent)
	trusted, tctx := e.connect(&mcpTrusted, true)
	trustedUpdates := notifications(trusted)
	bloom, cms, diary := server.NoteURI("tech/bloom.md"), server.NoteURI("tech/cms.md"), server.NoteURI("personal-notes/diary.md")
	for _, uri := range []string{bloom, diary} {
		//lint:ignore SA1019 resources/subscribe is what clients on the pre-2026-07-28 protocol send; the server must keep answering it
		if err := agent.Subscribe(actx, mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: uri}}); err != nil {
			t.Fatal(err)
		}
	}
	//lint:ignore SA1019 resources/subscribe is what clients on the pre-2026-07-28 protocol send; the server must keep answering it
	if err := trusted.Subscribe(tctx, mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: diary}}); err != nil {
		t.Fatal(err)
	}
	edit := func(c *client.Client, ctx context.Context, p string) {
		t.Helper()
		mustCall(t, c, ctx, "edit_note", map[string]any{"path": p, "op": "append", "content": "More.", "expected_revision": string(v.Revision(note.Path(p)))}, nil)
	}
	// The private note changes first: the agent subscribed to it but may not see it,
	// so the first notification it gets is the public note's.
	edit(trusted, tctx, "personal-notes/diary.md")
	edit(trusted, tctx, "tech/bloom.md")
	if uri, _ := nextUpdate(t, updates); uri != bloom {
		t.Fatalf("agent got %s first, want %s", uri, bloom)
	}
	if uri, _ := nextUpdate(t, trustedUpdates); uri != diary {
		t.Fatalf("trusted got %s, want %s", uri, diary)
	}
	// The subscriber's own write notifies it too; an unsubscribed note does not.
	edit(agent, actx, "tech/bloom.md")
	if uri, _ := nextUpdate(t, updates); uri != bloom {
		t.Fatalf("own write: %s", uri)
	}
	//lint:ignore SA1019 resources/subscribe is what clients on the pre-2026-07-28 protocol send; the server must keep answering it
	if err := agent.Unsubscribe(actx, mcp.UnsubscribeRequest{Params: mcp.UnsubscribeParams{URI: bloom}}); err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 resources/subscribe is what clients on the pre-2026-07-28 protocol send; the server must keep answering it
	if err := agent.Subscribe(actx, mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: cms}}); err != nil {
		t.Fatal(err)
	}
	edit(agent, actx, "tech/bloom.md")
	var a server.ArchiveNoteResult
	mustCall(t, agent, actx, "archive_note", map[string]any{"path": "tech/cms.md", "reason": "archived"}, &a)
	if uri, _ := nextUpdate(t, updates); uri != cms {
		t.Fatalf("after unsubscribing bloom: %s, want the archive of %s", uri, cms)
	}
	// A closed session is dropped; writes go on.
	agent.Close()
	edit(trusted, tctx, "tech/bloom.md")
}

func TestMCP_ResourceSubscriptionsListen(t *testing.T) {
	v, e := newMCPEnv(t, mcpFixture)
	agent, actx := e.connect(&mcpAgent, false)
	if agent.ProtocolVersion() != mcp.ProtocolVersion20260728 {
		t.Skipf("client negotiated %s", agent.ProtocolVersion())
	}
	ch := notifications(agent)
	bloom := server.NoteURI("tech/bloom.md")
	lctx, cancel := context.WithCancel(actx)
	done := make(chan error, 1)
	go func() { done <- agent.Listen(lctx, mcp.SubscriptionFilter{ResourceSubscriptions: []string{bloom}}) }()
	for n := range ch {
		if n.Method == mcp.MethodNotificationSubscriptionsAcknowledged {
			break
		}
	}
	writer, wctx := e.connect(&mcpTrusted, false)
	mustCall(t, writer, wctx, "edit_note", map[string]any{"path": "tech/bloom.md", "op": "append", "content": "More.", "expected_revision": string(v.Revision("tech/bloom.md"))}, nil)
	uri, n := nextUpdate(t, ch)
	if uri != bloom || n.Params.Meta[mcp.MetaKeySubscriptionID] == nil {
		t.Fatalf("listen update: %s %+v", uri, n.Params.Meta)
	}
	cancel()
	<-done
}
