package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/norn-vault/norn/internal/testmcp"

	"github.com/chromedp/chromedp"
)

// agent connects a real MCP client to the server with name's token.
func (s *nornServer) agent(t *testing.T, name string) (*client.Client, context.Context) {
	t.Helper()
	c, err := testmcp.Dial(t, s.base+"/mcp", testmcp.Bearer(s.tokens[name]), false)
	if err != nil {
		t.Fatalf("mcp dial: %v", err)
	}
	return c, context.Background()
}

// appendTo appends text to a note over MCP and returns the commit.
func appendTo(t *testing.T, c *client.Client, ctx context.Context, path, text string) string {
	t.Helper()
	var read struct{ Revision string }
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": path}, &read)
	var w struct{ Commit string }
	testmcp.MustCall(t, c, ctx, "edit_note", map[string]any{"path": path, "op": "append", "content": text, "expected_revision": read.Revision}, &w)
	if w.Commit == "" {
		t.Fatalf("edit_note %s committed nothing", path)
	}
	return w.Commit
}

// TestBrowser_LoginAndFollowWikilink: the login form takes a token; the folder
// tree has counts; a note renders with its frontmatter card and backlinks; a
// click on a resolved wikilink opens its note.
func TestBrowser_LoginAndFollowWikilink(t *testing.T) {
	s := demoServer(t)
	tb := newTab(t)
	tb.do(chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(chromedp.ID("token")))
	tb.screenshot("login")
	tb.login(s, "owner")
	if who := eval[string](tb, `document.getElementById("who").textContent`); !strings.Contains(who, "owner") {
		t.Fatalf("header says %q, want the principal owner", who)
	}
	if n := eval[int](tb, `Number(document.querySelector(".tree-root > li > details .count").textContent)`); n < 20 {
		t.Fatalf("the vault's count in the tree is %d, want the demo vault's notes", n)
	}
	tb.open("#/note/README.md")
	if h1 := eval[string](tb, `document.querySelector("#view h1").textContent`); h1 != "Norn demo vault" {
		t.Fatalf("note title %q", h1)
	}
	if !eval[bool](tb, `!!document.querySelector(".frontmatter dd") && !!document.querySelector(".backlinks-section")`) {
		t.Fatal("the note has no frontmatter card or backlinks section")
	}
	target := eval[string](tb, `document.querySelector("article a.wikilink:not(.broken)").dataset.path`)
	tb.screenshot("note")
	tb.do(chromedp.Click(chromedp.CSS("article a.wikilink:not(.broken)")))
	tb.waitJS(fmt.Sprintf(`document.getElementById("view").dataset.path === %q && document.getElementById("view").dataset.loaded === "1"`, target))
	if !eval[bool](tb, `document.querySelector("#tree a.current") !== null`) {
		t.Fatal("the open note is not marked in the tree")
	}
}

// TestBrowser_OneTimeLink: the link norn serve prints logs in once and leaves the
// URL; used again it is refused and the page says so.
func TestBrowser_OneTimeLink(t *testing.T) {
	s := demoServer(t)
	m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/\?token=\S+)\)`).FindStringSubmatch(s.log())
	if m == nil {
		t.Fatalf("norn serve printed no one-time login link:\n%s", s.log())
	}
	tb := newTab(t)
	tb.do(chromedp.Navigate(m[1]), chromedp.WaitVisible(chromedp.CSS(".tree-root")))
	if u := eval[string](tb, `location.href`); u != s.base+"/" {
		t.Fatalf("after the link the URL is %q, want %q (the token must leave it)", u, s.base+"/")
	}
	again := newTab(t)
	again.do(chromedp.Navigate(m[1]), chromedp.WaitVisible(chromedp.ID("token")))
	again.waitJS(`document.getElementById("login-error").textContent.includes("not valid")`)
	if strings.Contains(eval[string](again, `location.href`), "token=") {
		t.Fatal("a refused link left its token in the URL")
	}
}

// TestBrowser_SearchOpensHit: / focuses the search box; Enter searches; hits show
// their snippet, line and the engine; Enter on a hit opens it.
func TestBrowser_SearchOpensHit(t *testing.T) {
	s := demoServer(t)
	tb := newTab(t)
	tb.login(s, "owner")
	tb.do(chromedp.KeyEvent("/"))
	if id := eval[string](tb, `document.activeElement.id`); id != "q" {
		t.Fatalf("/ focused %q, want the search box", id)
	}
	tb.do(chromedp.KeyEvent("expected revision conflict"), chromedp.KeyEvent("\r"))
	tb.waitJS(`document.getElementById("view").dataset.route === "search" && document.getElementById("view").dataset.loaded === "1"`)
	if engine := eval[string](tb, `document.getElementById("engine").textContent`); !strings.HasPrefix(engine, "bm25") {
		t.Fatalf("engine label %q", engine)
	}
	if !eval[bool](tb, `!!document.querySelector(".hit .snippet") && /:\d+/.test(document.querySelector(".hit-meta").textContent)`) {
		t.Fatal("the first hit has no snippet or line number")
	}
	tb.screenshot("search")
	hit := eval[string](tb, `(() => { const a = document.querySelector(".hit-link"); a.focus(); return a.dataset.path })()`)
	tb.do(chromedp.KeyEvent("\r"))
	tb.waitJS(fmt.Sprintf(`document.getElementById("view").dataset.path === %q && document.getElementById("view").dataset.loaded === "1"`, hit))
}

// TestBrowser_GraphClickNode: the neighbourhood graph draws; a click on a node
// (a real mouse click on the canvas) opens that note; the hubs graph draws.
func TestBrowser_GraphClickNode(t *testing.T) {
	s := demoServer(t)
	tb := newTab(t)
	tb.login(s, "owner")
	tb.open("#/hubs")
	tb.waitJS(`Number(document.getElementById("graph").dataset.nodes) > 5`)
	tb.screenshot("hubs")
	tb.open("#/graph/concepts/vault.md?depth=2")
	tb.waitJS(`window.nornGraph && nornGraph.nodes().length > 2`)
	tb.screenshot("graph")
	var pos struct {
		ID   string
		X, Y float64
	}
	raw := eval[string](tb, `(() => {
		const n = nornGraph.nodes().filter(n => !n.hasClass("center"))[0];
		const p = n.renderedPosition(), r = document.getElementById("graph").getBoundingClientRect();
		return JSON.stringify({id: n.id(), x: r.left + p.x, y: r.top + p.y});
	})()`)
	if err := json.Unmarshal([]byte(raw), &pos); err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.MouseClickXY(pos.X, pos.Y))
	tb.waitJS(fmt.Sprintf(`document.getElementById("view").dataset.route === "note" && document.getElementById("view").dataset.path === %q && document.getElementById("view").dataset.loaded === "1"`, pos.ID))
}

// TestBrowser_LiveWrite: a write made over MCP shows on the open note (with who
// made it) and at the top of an open timeline; then a diff between two commits.
func TestBrowser_LiveWrite(t *testing.T) {
	s := demoServer(t)
	const path = "concepts/revision.md"
	note := newTab(t)
	note.login(s, "owner")
	note.open("#/note/" + path)
	note.waitJS(`document.getElementById("live").dataset.state === "live"`)
	timeline := newTab(t)
	timeline.login(s, "owner")
	timeline.open("#/history")
	timeline.waitJS(`document.getElementById("live").dataset.state === "live"`)

	c, ctx := s.agent(t, "agent")
	start := time.Now()
	commit := appendTo(t, c, ctx, path, "\nAn agent added this line live.\n")
	note.waitJS(`(document.getElementById("changed-by") || {}).textContent?.includes("agent") && document.querySelector(".note-body").textContent.includes("added this line live")`)
	t.Logf("the write reached the open note in %v", time.Since(start))
	timeline.waitJS(fmt.Sprintf(`!!document.querySelector('#timeline li.commit.new[data-commit=%q]')`, commit))
	t.Logf("and the open timeline in %v", time.Since(start))
	note.screenshot("live")

	note.open("#/history/" + path)
	note.waitJS(`document.querySelectorAll("#timeline li.commit").length >= 2`)
	note.do(chromedp.Click(chromedp.CSS("button.compare")))
	note.waitJS(`!!document.querySelector("#diff-table tr.d-add")`)
	if !eval[bool](note, `[...document.querySelectorAll("#diff-table tr.d-add")].some(r => r.textContent.includes("added this line live"))`) {
		t.Fatal("the diff does not show the added line")
	}
	note.do(chromedp.ScrollIntoView(chromedp.ID("timeline")))
	note.screenshot("history")
}

// TestBrowser_ReaderSeesNoPrivate: a reader without the private scope walks
// every view (and gets live events of a private note's edit): no private path or
// title in the DOM, in any response body or in any websocket frame. The owner,
// walking the same way, does see them: the markers are real.
func TestBrowser_ReaderSeesNoPrivate(t *testing.T) {
	s := demoServer(t)
	walk := func(tb *tab) {
		for _, h := range []string{"#/", "#/note/concepts/vault.md", "#/note/concepts/private-notes.md", "#/note/README.md",
			"#/search?q=zanzibar", "#/search?q=rules%20for%20agents", "#/hubs?max=500",
			"#/graph/concepts/vault.md?depth=3&max=500", "#/history"} {
			tb.open(h)
		}
	}
	owner := newTab(t)
	owner.login(s, "owner")
	walk(owner)
	owner.open("#/search?q=zanzibar")
	if !strings.Contains(strings.ToLower(owner.html()), "zanzibar") {
		t.Fatal("the owner does not find the private note: the markers prove nothing")
	}

	reader := newTab(t)
	reader.login(s, "reader")
	reader.waitJS(`document.getElementById("live").dataset.state === "live"`)
	walk(reader)
	reader.open("#/history")
	c, ctx := s.agent(t, "owner")
	appendTo(t, c, ctx, "concepts/zanzibar-plan.md", "\nA private zanzibar edit.\n")
	commit := appendTo(t, c, ctx, "guides/writing-a-note-safely.md", "\nA public edit after the private one.\n")
	reader.waitJS(fmt.Sprintf(`!!document.querySelector('#timeline li.commit[data-commit=%q]')`, commit))
	status := eval[float64](reader, `fetch("/web/api/note?path=personal-notes/my-rules-for-agents.md").then(r => r.status)`)
	if status != 404 {
		t.Fatalf("a reader reading a private note by path: status %v, want 404", status)
	}

	leaks := func(where, s string) {
		for _, m := range demoPrivateMarkers {
			if strings.Contains(strings.ToLower(s), strings.ToLower(m)) {
				t.Errorf("%s names %q", where, m)
			}
		}
	}
	leaks("the reader's DOM", reader.html())
	bodies, frames := reader.received()
	if len(bodies) < 10 || len(frames) < 2 {
		t.Fatalf("recorded %d responses and %d frames: the capture is not working", len(bodies), len(frames))
	}
	for u, b := range bodies {
		if strings.Contains(u, "my-rules-for-agents") { // the probe above: its answer must still not name the title
			if strings.Contains(b, "My rules for agents") {
				t.Errorf("the refused read answers with the private title: %s", b)
			}
			continue
		}
		leaks("the response of "+u, b)
	}
	for _, f := range frames {
		leaks("a feed frame", f)
	}
}

// TestBrowser_CrossSiteWriteRefused: with a live session cookie, a write without
// the CSRF token (from another origin's page, or a plain client) is refused and
// changes nothing; the page's own Restore (with the token) works.
func TestBrowser_CrossSiteWriteRefused(t *testing.T) {
	s := demoServer(t)
	const path = "guides/old-guide.md"
	c, ctx := s.agent(t, "owner")
	var read struct{ Revision string }
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": path}, &read)
	testmcp.MustCall(t, c, ctx, "archive_note", map[string]any{"path": path, "reason": "superseded", "expected_revision": read.Revision}, nil)
	restored := func() bool {
		out, err := s.cli("ls", "guides")
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(string(out), "old-guide")
	}

	// A plain client with the cookie: no token → 403 forbidden; a token from a
	// cross-site origin → 403 too.
	resp, err := http.Post(s.base+"/web/login", "application/json", strings.NewReader(fmt.Sprintf(`{"token":%q}`, s.tokens["owner"])))
	if err != nil {
		t.Fatal(err)
	}
	var sess struct{ CSRF string }
	_ = json.NewDecoder(resp.Body).Decode(&sess)
	resp.Body.Close()
	cookies := resp.Cookies()
	if len(cookies) == 0 || sess.CSRF == "" {
		t.Fatalf("login: %v, cookies %v", resp.Status, cookies)
	}
	body := fmt.Sprintf(`{"path":%q,"revision":%q}`, path, read.Revision)
	for name, hdr := range map[string]map[string]string{
		"no csrf token":     {"Origin": s.base},
		"cross-site origin": {"Origin": "http://evil.example", "X-CSRF-Token": sess.CSRF},
	} {
		req, _ := http.NewRequest(http.MethodPost, s.base+"/web/api/restore", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		for _, ck := range cookies {
			req.AddCookie(ck)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "forbidden") {
			t.Errorf("%s: %s %s, want 403 forbidden", name, resp.Status, b)
		}
	}

	// Another origin's page in the logged-in browser posts with the cookie.
	tb := newTab(t)
	tb.login(s, "owner")
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/evil.js" {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprintf(w, `fetch(%q, {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body: %q})
				.then(() => { document.title = "sent" }, () => { document.title = "sent" });`, s.base+"/web/api/restore", body)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>evil</title><script src="/evil.js"></script>`)
	}))
	defer evil.Close()
	tb.do(chromedp.Navigate(evil.URL + "/"))
	tb.waitJS(`document.title === "sent"`)
	if restored() {
		t.Fatal("a cross-site POST restored the note")
	}

	tb.do(chromedp.Navigate(s.base + "/#/note/" + path))
	tb.waitJS(`document.getElementById("view").dataset.loaded === "1" && !!document.querySelector("button.restore")`)
	tb.screenshot("archived")
	tb.do(chromedp.Click(chromedp.CSS("button.restore")))
	tb.waitJS(`document.getElementById("view").dataset.loaded === "1" && !document.querySelector(".badge.archived") && document.getElementById("view").dataset.path === "guides/old-guide.md"`)
	if !restored() {
		t.Fatal("the page's Restore did not bring the note back")
	}
}

// TestBrowser_Narrow: at 360 px wide nothing scrolls sideways, the tree opens
// from its button, and the first Tab reaches the skip link.
func TestBrowser_Narrow(t *testing.T) {
	s := demoServer(t)
	tb := newTab(t)
	tb.login(s, "owner")
	tb.do(chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile))
	for _, h := range []string{"#/note/concepts/write-gates.md", "#/search?q=commit", "#/history", "#/hubs"} {
		tb.open(h)
		if w := eval[float64](tb, `document.documentElement.scrollWidth`); w > 360 {
			t.Errorf("%s is %v px wide at 360 px: it scrolls sideways", h, w)
		}
		if h == "#/note/concepts/write-gates.md" {
			tb.screenshot("narrow")
		}
	}
	tb.do(chromedp.Click(chromedp.ID("tree-toggle")))
	tb.waitJS(`getComputedStyle(document.getElementById("tree")).display !== "none"`)
	tb.do(chromedp.Navigate("about:blank"), chromedp.Navigate(s.base+"/#/"), chromedp.WaitReady(chromedp.CSS(".tree-root")))
	tb.do(chromedp.KeyEvent("\t"))
	if cls := eval[string](tb, `document.activeElement.className`); cls != "skip" {
		t.Fatalf("the first Tab focused %q, want the skip link", cls)
	}
}
