package web_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// TestAPI_Privacy: a session without the private scope sees no private note,
// title, count, edge, backlink, search hit, history entry or diff anywhere: the
// raw bytes of every answer are checked. The owner's same requests do show
// them (the check can fail).
func TestAPI_Privacy(t *testing.T) {
	e := newEnv(t, fixture)
	first := headCommit(t, e.v)
	secretRev := string(e.v.Revision("tech/secret.md"))
	// A commit of a private note alone, then one of a public and a private note.
	testvault.CommitFiles(t, e.v, map[string]string{"personal-notes/diary.md": "# Diary\nquokka again.\n"})
	testvault.CommitFiles(t, e.v, map[string]string{
		"tech/secret.md": "---\ntitle: Secret plan\nprivate: true\ntags: [hashing]\n---\n# Secret plan\nxylophone twice and [[Bloom filters]].\n",
		"tech/cms.md":    strings.Replace(fixture["tech/cms.md"], "Count.", "Count more.", 1),
	})
	paths := []string{
		"/web/api/session", "/web/api/tree",
		"/web/api/note?path=README.md", "/web/api/note?path=tech/bloom.md",
		"/web/api/note?path=tech/secret.md", "/web/api/note?path=personal-notes/diary.md",
		"/web/api/note?path=tech/bloom.md&at=" + secretRev,
		"/web/api/note?path=tech/secret.md&at=" + first,
		"/web/api/search?q=xylophone", "/web/api/search?q=quokka", "/web/api/search?q=hashing&limit=50", "/web/api/search?q=Secret+plan",
		"/web/api/graph?path=tech/bloom.md&depth=5&max=1000", "/web/api/graph?path=tech/secret.md",
		"/web/api/hubs?max=200",
		"/web/api/history?n=100", "/web/api/history?path=tech/secret.md", "/web/api/history?path=personal-notes/diary.md",
		"/web/api/diff?path=tech/secret.md&from=" + first, "/web/api/diff?path=personal-notes/diary.md&from=" + first,
		"/web/api/diff?path=tech/cms.md&from=" + first,
	}
	fetch := func(b *browser) map[string][]byte {
		out := map[string][]byte{}
		for _, p := range paths {
			_, body := b.do(http.MethodGet, p, "", nil)
			out[p] = body
		}
		return out
	}
	reader := fetch(e.login("reader"))
	for p, body := range reader {
		// A request that names a private path is answered as one naming a path
		// with no note: the path it was given comes back, nothing else.
		for _, named := range []string{"tech/secret.md", "personal-notes/diary.md"} {
			if strings.Contains(p, "path="+named) {
				body = bytes.ReplaceAll(body, []byte(named), []byte("tech/nothing.md"))
				_, missing := e.login("reader").do(http.MethodGet, strings.ReplaceAll(p, named, "tech/nothing.md"), "", nil)
				if !bytes.Equal(body, missing) {
					t.Errorf("reader: %s differs from a missing note's answer:\n%s\n%s", p, body, missing)
				}
			}
		}
		for _, m := range privateMarkers {
			if bytes.Contains(body, []byte(m)) {
				t.Errorf("reader: %s names %q:\n%s", p, m, body)
			}
		}
		if p != "/web/api/note?path=tech/bloom.md" && !strings.Contains(p, "cms.md") && bytes.Contains(body, []byte("Secret plan")) {
			t.Errorf("reader: %s names the private title:\n%s", p, body)
		}
	}
	if !bytes.Contains(reader["/web/api/tree"], []byte(`"count":3`)) {
		t.Errorf("reader's tree does not count 3 notes: %s", reader["/web/api/tree"])
	}
	for _, p := range []string{"/web/api/note?path=tech/secret.md", "/web/api/note?path=tech/bloom.md&at=" + secretRev} {
		if !bytes.Contains(reader[p], []byte(`"not_found"`)) {
			t.Errorf("reader: %s is not a not_found: %s", p, reader[p])
		}
	}
	owner := fetch(e.login("owner"))
	seen := map[string]bool{}
	for _, body := range owner {
		for _, m := range privateMarkers {
			if bytes.Contains(body, []byte(m)) {
				seen[m] = true
			}
		}
	}
	if len(seen) != len(privateMarkers) {
		t.Fatalf("the owner's answers show only %v of %v: the check proves nothing", seen, privateMarkers)
	}

	// A writer without the private scope cannot copy a private note's revision
	// elsewhere by restoring it.
	before := headCommit(t, e.v)
	w := e.login("writer")
	resp, body := w.post("/web/api/restore", `{"path": "tech/leak.md", "revision": "`+secretRev+`"}`)
	if resp.StatusCode != http.StatusNotFound || bytes.Contains(body, []byte("xylophone")) {
		t.Fatalf("writer restores a private revision: %d %s", resp.StatusCode, body)
	}
	if headCommit(t, e.v) != before || e.v.Revision(note.Path("tech/leak.md")) != "" {
		t.Fatal("the refused restore wrote")
	}
}

// TestFeed_SessionCookie: the change feed takes the web session's cookie from
// the page's own origin (no token), tells a reader's session nothing of private
// notes, and refuses the cookie from another origin or without a session.
func TestFeed_SessionCookie(t *testing.T) {
	e := newEnv(t, fixture)
	b := e.login("reader")
	u := "ws" + strings.TrimPrefix(e.base, "http") + feed.Path
	cookie := ""
	for _, c := range b.c.Jar.Cookies(mustURL(t, e.base)) {
		cookie = c.Name + "=" + c.Value
	}
	dial := func(hdr http.Header) (*websocket.Conn, int) {
		c, resp, err := websocket.DefaultDialer.Dial(u, hdr)
		if err != nil {
			if resp == nil {
				t.Fatal(err)
			}
			return nil, resp.StatusCode
		}
		t.Cleanup(func() { c.Close() })
		return c, http.StatusSwitchingProtocols
	}
	if _, status := dial(http.Header{"Origin": {e.base}}); status != http.StatusUnauthorized {
		t.Fatalf("no cookie: %d", status)
	}
	if _, status := dial(http.Header{"Cookie": {cookie}, "Origin": {"http://localhost:1"}}); status != http.StatusUnauthorized {
		t.Fatalf("cookie from another origin: %d", status)
	}
	if _, status := dial(http.Header{"Cookie": {bogusCookie()}, "Origin": {e.base}}); status != http.StatusUnauthorized {
		t.Fatalf("unknown session: %d", status)
	}
	c, status := dial(http.Header{"Cookie": {cookie}, "Origin": {e.base}})
	if status != http.StatusSwitchingProtocols {
		t.Fatalf("cookie: %d", status)
	}
	var hello feed.Message
	if err := c.ReadJSON(&hello); err != nil || hello.Type != feed.TypeHello || hello.Principal != "reader" {
		t.Fatalf("hello %+v %v", hello, err)
	}
	for _, ch := range []repo.Change{
		{Kind: repo.Put, Path: "personal-notes/more.md", Content: []byte("# quokka\n")},
		{Kind: repo.Put, Path: "tech/public.md", Content: []byte("# Public\n")},
	} {
		if _, err := e.v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "a"}, Op: repo.OpWrite, Changes: []repo.Change{ch}}); err != nil {
			t.Fatal(err)
		}
	}
	for {
		_, raw, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte("personal-notes")) || bytes.Contains(raw, []byte("quokka")) {
			t.Fatalf("the reader's feed names a private note: %s", raw)
		}
		if bytes.Contains(raw, []byte("tech/public.md")) {
			break
		}
	}
	// Logging out closes the feed at its next message.
	b.post("/web/logout", "")
	if _, err := e.v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "a"}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: "tech/later.md", Content: []byte("# Later\n")}}}); err != nil {
		t.Fatal(err)
	}
	for {
		_, raw, err := c.ReadMessage()
		if err != nil {
			break
		}
		if bytes.Contains(raw, []byte("tech/later.md")) {
			t.Fatalf("a logged-out session was told of a commit: %s", raw)
		}
	}
}

func bogusCookie() string { return "norn_session=bogus" }
