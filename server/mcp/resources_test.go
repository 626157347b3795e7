package mcp_test

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/server/mcp"
)

func TestMCP_ResourcesListAndRead(t *testing.T) {
	files := maps.Clone(testmcp.Fixture)
	files["notes/with space.md"] = "# With space\n"
	for i := range 150 {
		files[fmt.Sprintf("many/n%03d.md", i)] = fmt.Sprintf("# N%d\n", i)
	}
	_, e := testmcp.NewEnv(t, files)
	c, ctx := e.Connect(&testmcp.Agent, true)
	caps := c.GetServerCapabilities()
	if caps.Resources == nil || !caps.Resources.Subscribe || caps.Tools == nil {
		t.Fatalf("capabilities: %+v", caps)
	}
	tmpl, err := c.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{})
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate.Raw() != "norn://note/{+path}" ||
		tmpl.ResourceTemplates[0].MIMEType != "text/markdown" {
		t.Fatalf("templates: %+v %v", tmpl, err)
	}
	p1, err := c.ListResourcesByPage(ctx, mcpgo.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p1.Resources) != 100 || p1.NextCursor == "" || p1.Resources[0].URI != "norn://note/README.md" || p1.Resources[0].MIMEType != "text/markdown" {
		t.Fatalf("page 1: %d resources, cursor %q, first %+v", len(p1.Resources), p1.NextCursor, p1.Resources[0])
	}
	all, err := c.ListResources(ctx, mcpgo.ListResourcesRequest{})
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
	if !seen["norn://note/notes/with%20space.md"] || seen[mcp.NoteURI("tech/secret.md")] {
		t.Fatalf("escaping or privacy: %v", seen["norn://note/notes/with%20space.md"])
	}
	for uri, want := range map[string]string{
		"norn://note/tech/bloom.md":         testmcp.Fixture["tech/bloom.md"],
		"norn://note/notes/with%20space.md": "# With space\n",
	} {
		res, err := c.ReadResource(ctx, mcpgo.ReadResourceRequest{Params: mcpgo.ReadResourceParams{URI: uri}})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		txt, ok := res.Contents[0].(mcpgo.TextResourceContents)
		if !ok || txt.Text != want || txt.URI != uri || txt.MIMEType != "text/markdown" {
			t.Fatalf("read %s: %+v", uri, res.Contents)
		}
	}
	for _, uri := range []string{"norn://note/nope.md", "norn://note/../x.md", "norn://note/%zz"} {
		if _, err := c.ReadResource(ctx, mcpgo.ReadResourceRequest{Params: mcpgo.ReadResourceParams{URI: uri}}); err == nil {
			t.Fatalf("read %s succeeded", uri)
		}
	}
}

func TestMCP_ResourceSubscriptions(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	agent, actx := e.Connect(&testmcp.Agent, true)
	updates := testmcp.Notifications(agent)
	trusted, tctx := e.Connect(&testmcp.Trusted, true)
	trustedUpdates := testmcp.Notifications(trusted)
	bloom, cms, diary := mcp.NoteURI("tech/bloom.md"), mcp.NoteURI("tech/cms.md"), mcp.NoteURI("personal-notes/diary.md")
	for _, uri := range []string{bloom, diary} {
		//lint:ignore SA1019 resources/subscribe is what clients on the pre-2026-07-28 protocol send; the server must keep answering it
		if err := agent.Subscribe(actx, mcpgo.SubscribeRequest{Params: mcpgo.SubscribeParams{URI: uri}}); err != nil {
			t.Fatal(err)
		}
	}
	//lint:ignore SA1019 resources/subscribe is what clients on the pre-2026-07-28 protocol send; the server must keep answering it
	if err := trusted.Subscribe(tctx, mcpgo.SubscribeRequest{Params: mcpgo.SubscribeParams{URI: diary}}); err != nil {
		t.Fatal(err)
	}
	edit := func(c *client.Client, ctx context.Context, p string) {
		t.Helper()
		testmcp.MustCall(t, c, ctx, "edit_note", map[string]any{"path": p, "op": "append", "content": "More.", "expected_revision": string(v.Revision(note.Path(p)))}, nil)
	}
	// The private note changes first: the agent subscribed to it but may not see it,
	// so the first notification it gets is the public note's.
	edit(trusted, tctx, "personal-notes/diary.md")
	edit(trusted, tctx, "tech/bloom.md")
	if uri, _ := testmcp.NextUpdate(t, updates); uri != bloom {
		t.Fatalf("agent got %s first, want %s", uri, bloom)
	}
	if uri, _ := testmcp.NextUpdate(t, trustedUpdates); uri != diary {
		t.Fatalf("trusted got %s, want %s", uri, diary)
	}
	// The subscriber's own write notifies it too; an unsubscribed note does not.
	edit(agent, actx, "tech/bloom.md")
	if uri, _ := testmcp.NextUpdate(t, updates); uri != bloom {
		t.Fatalf("own write: %s", uri)
	}
	//lint:ignore SA1019 resources/subscribe is what clients on the pre-2026-07-28 protocol send; the server must keep answering it
	if err := agent.Unsubscribe(actx, mcpgo.UnsubscribeRequest{Params: mcpgo.UnsubscribeParams{URI: bloom}}); err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 resources/subscribe is what clients on the pre-2026-07-28 protocol send; the server must keep answering it
	if err := agent.Subscribe(actx, mcpgo.SubscribeRequest{Params: mcpgo.SubscribeParams{URI: cms}}); err != nil {
		t.Fatal(err)
	}
	edit(agent, actx, "tech/bloom.md")
	var a mcp.ArchiveNoteResult
	testmcp.MustCall(t, agent, actx, "archive_note", map[string]any{"path": "tech/cms.md", "reason": "archived"}, &a)
	if uri, _ := testmcp.NextUpdate(t, updates); uri != cms {
		t.Fatalf("after unsubscribing bloom: %s, want the archive of %s", uri, cms)
	}
	// A closed session is dropped; writes go on.
	agent.Close()
	edit(trusted, tctx, "tech/bloom.md")
}

func TestMCP_ResourceSubscriptionsListen(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	agent, actx := e.Connect(&testmcp.Agent, false)
	if agent.ProtocolVersion() != mcpgo.ProtocolVersion20260728 {
		t.Skipf("client negotiated %s", agent.ProtocolVersion())
	}
	ch := testmcp.Notifications(agent)
	bloom := mcp.NoteURI("tech/bloom.md")
	lctx, cancel := context.WithCancel(actx)
	done := make(chan error, 1)
	go func() { done <- agent.Listen(lctx, mcpgo.SubscriptionFilter{ResourceSubscriptions: []string{bloom}}) }()
	for n := range ch {
		if n.Method == mcpgo.MethodNotificationSubscriptionsAcknowledged {
			break
		}
	}
	writer, wctx := e.Connect(&testmcp.Trusted, false)
	testmcp.MustCall(t, writer, wctx, "edit_note", map[string]any{"path": "tech/bloom.md", "op": "append", "content": "More.", "expected_revision": string(v.Revision("tech/bloom.md"))}, nil)
	uri, n := testmcp.NextUpdate(t, ch)
	if uri != bloom || n.Params.Meta[mcpgo.MetaKeySubscriptionID] == nil {
		t.Fatalf("listen update: %s %+v", uri, n.Params.Meta)
	}
	cancel()
	<-done
}
