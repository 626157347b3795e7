package feed_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// TestHandler_Privacy: a client that may not see personal-notes/ never gets a
// frame naming a path there (raw bytes checked), live or replayed: a commit of
// only hidden changes is a head message, a mixed one lists the visible changes,
// a move out of the hidden folder is an addition and one into it an archive;
// privacy by content is judged on both sides of a change (a note turned private
// is archived for the client, one turned public again added); the owner sees
// everything.
func TestHandler_Privacy(t *testing.T) {
	env := newEnv(t, nil, feed.Options{})
	v := env.v
	start := v.Head()
	pub := env.dial(t, tokPublic, feed.Query{})
	if h := pub.expect(t, feed.TypeHello); h.Principal != "agent" {
		t.Fatalf("hello %+v, want principal agent", h)
	}
	own := env.dial(t, tokAll, feed.Query{})
	own.expect(t, feed.TypeHello)
	ctx := context.Background()
	move := func(from, to string) repo.CommitID {
		res, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "mover"}, Op: repo.OpMove,
			Changes: []repo.Change{{Kind: repo.Move, From: pathOf(from), Path: pathOf(to)}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Commit
	}
	hidden := write(t, v, put("personal-notes/diary-secret.md", "# Secret\n"))
	mixed := write(t, v, put("public.md", "# P\n"), put("personal-notes/mixed-secret.md", "# S\n"))
	out := move("personal-notes/mixed-secret.md", "pub/outed.md")
	write(t, v, put("pub/x.md", "# X\n"))
	in := move("pub/x.md", "personal-notes/x-secret.md")
	// Privacy by content: a note whose bytes say #private.
	byContent := write(t, v, put("pub/content-secret.md", "# C\n#private\n"))
	write(t, v, put("pub/turned.md", "# T\n"))
	update := func(p, content string) repo.CommitID {
		ch := put(p, content)
		ch.ExpectedRevision = v.Revision(pathOf(p))
		return write(t, v, ch)
	}
	hide := update("pub/turned.md", "# T\n#private\n")
	unhide := update("pub/turned.md", "# T\nagain\n")

	want := []string{
		"head " + string(hidden),
		"event " + string(mixed) + " added public.md",
		"event " + string(out) + " added pub/outed.md",
		"", // pub/x.md added
		"event " + string(in) + " archived pub/x.md",
		"head " + string(byContent),
		"", // pub/turned.md added
		"event " + string(hide) + " archived pub/turned.md",
		"event " + string(unhide) + " added pub/turned.md",
	}
	check := func(c *wsClient) {
		t.Helper()
		for i, w := range want {
			m := c.must(t)
			got := string(m.Type) + " " + string(m.Cursor())
			for _, ch := range m.Changes {
				got += " " + string(ch.Kind) + " " + string(ch.Path)
			}
			if w != "" && got != w {
				t.Errorf("message %d: %q, want %q", i, got, w)
			}
		}
		for _, f := range c.frames {
			if bytes.Contains(f, []byte("personal-notes")) || bytes.Contains(f, []byte("secret")) {
				t.Errorf("a frame names a hidden path: %s", f)
			}
		}
	}
	check(pub)
	// The replay is filtered the same way.
	replay := env.dial(t, tokPublic, feed.Query{Since: start})
	replay.expect(t, feed.TypeHello)
	check(replay)
	// The owner sees the hidden paths.
	m := own.expect(t, feed.TypeEvent)
	if m.Commit != hidden || len(m.Changes) != 1 || m.Changes[0].Path != "personal-notes/diary-secret.md" {
		t.Fatalf("owner got %+v", m)
	}
}

// TestHandler_Filters: folders, ops and paths narrow what a client is told;
// every other commit still moves its cursor with a head message.
func TestHandler_Filters(t *testing.T) {
	env := newEnv(t, nil, feed.Options{})
	c := env.dial(t, tokAll, feed.Query{Folders: []string{"tech"}, Paths: []string{"*/b*.md"}, Ops: []repo.Op{repo.OpWrite}})
	c.expect(t, feed.TypeHello)
	a := write(t, env.v, put("life/bread.md", "# B\n"))
	b := write(t, env.v, put("tech/bloom.md", "# B\n"), put("tech/alpha.md", "# A\n"))
	if m := c.expect(t, feed.TypeHead); m.Head != a {
		t.Fatalf("head %s, want %s", m.Head.Short(), a.Short())
	}
	m := c.expect(t, feed.TypeEvent)
	if m.Commit != b || len(m.Changes) != 1 || m.Changes[0].Path != "tech/bloom.md" {
		t.Fatalf("event %+v, want only tech/bloom.md of %s", m, b.Short())
	}
}

// TestHandler_BadInput: malformed queries, missing or wrong tokens and bad
// origins are refused before the upgrade with a classified JSON error; a since
// the vault cannot replay from gets a resync with the head; nothing is written
// and the hub keeps serving.
func TestHandler_BadInput(t *testing.T) {
	env := newEnv(t, nil, feed.Options{})
	head := env.v.Head()
	httpURL := "http" + strings.TrimPrefix(env.url, "ws")
	cases := []struct {
		name, query, token, origin string
		status                     int
		code                       string
	}{
		{"malformed since", "since=xyz", tokAll, "", 400, "invalid_input"},
		{"since twice", "since=" + string(head) + "&since=" + string(head), tokAll, "", 400, "invalid_input"},
		{"folder escapes", "folders=../etc", tokAll, "", 400, "invalid_input"},
		{"unknown op", "ops=write,delete", tokAll, "", 400, "invalid_input"},
		{"bad glob", "paths=[", tokAll, "", 400, "invalid_input"},
		{"unknown parameter", "folder=tech", tokAll, "", 400, "invalid_input"},
		{"no token", "", "", "", 401, "unauthorized"},
		{"wrong token", "", "nope", "", 401, "unauthorized"},
		{"query token without origin", "token=" + tokAll, "", "", 401, "unauthorized"},
		{"query token, bad origin", "token=" + tokAll, "", "http://evil.example", 403, "forbidden_origin"},
		{"header token, bad origin", "", tokAll, "http://evil.example", 403, "forbidden_origin"},
		{"not a websocket", "", tokAll, "", 400, "invalid_input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, httpURL+"?"+tc.query, nil)
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct{ Error, Message string }
			json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tc.status || body.Error != tc.code || body.Message == "" {
				t.Fatalf("%d %+v, want %d %s with a message", resp.StatusCode, body, tc.status, tc.code)
			}
		})
	}
	// A browser's query token with an allowed origin is accepted.
	h := http.Header{"Origin": {goodOrigin}}
	conn, _, err := websocketDial(env.url+"?token="+url.QueryEscape(tokPublic), h)
	if err != nil {
		t.Fatalf("query token from an allowed origin: %v", err)
	}
	conn.Close()

	// An unknown commit, and one not on the branch, get a resync with the head.
	dir := env.v.Dir()
	gitCmd(t, dir, "switch", "-q", "-c", "side")
	gitWrite(t, dir, "side.md", "# S\n")
	gitCmd(t, dir, "add", "side.md")
	gitCmd(t, dir, "commit", "-q", "-m", "side")
	side := repo.CommitID(strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD")))
	gitCmd(t, dir, "switch", "-q", "main")
	for _, since := range []repo.CommitID{repo.CommitID(strings.Repeat("ab", 20)), side} {
		c := env.dial(t, tokAll, feed.Query{Since: since})
		c.expect(t, feed.TypeHello)
		if m := c.expect(t, feed.TypeResync); m.Head != head || m.Detail == "" {
			t.Fatalf("since %s: resync %+v, want head %s and why", since.Short(), m, head.Short())
		}
	}
	if env.v.Head() != head {
		t.Fatalf("the vault moved: %s, was %s", env.v.Head(), head)
	}
	// The hub still serves.
	c := env.dial(t, tokAll, feed.Query{Since: head})
	c.expect(t, feed.TypeHello)
	id := write(t, env.v, put("after.md", "# A\n"))
	if m := c.expect(t, feed.TypeEvent); m.Commit != id {
		t.Fatalf("event %s, want %s", m.Commit.Short(), id.Short())
	}
}
