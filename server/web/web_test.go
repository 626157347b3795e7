package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/web"
	"github.com/norn-vault/norn/vault"
)

// fixture is a small vault: public notes, a note in the private folder and one
// private by its frontmatter. The private notes' markers (privateMarkers) appear
// in nothing public.
var fixture = map[string]string{
	"README.md":               "---\ntitle: Readme\n---\n# Readme\nStart at [[Bloom filters]].\n",
	"tech/bloom.md":           "---\ntitle: Bloom filters\ntags: [data-structures, hashing]\nedges:\n  - to: \"[[Count-min sketch]]\"\n    type: same_mechanism_as\n    why: Both hash items into a small array and trade exactness for memory.\n---\n# Bloom filters\nA set sketch. See [[cms|the sketch]] and [[Count-min sketch#Usage]].\n\n## Usage\nUse k hash functions. Broken: [[Nowhere]]. Embed: ![[cms]]. Self: [[#Usage]].\n",
	"tech/cms.md":             "---\ntitle: Count-min sketch\ntags: [hashing]\n---\n# Count-min sketch\nLike [[Bloom filters]] but counting. Not [[Secret plan]].\n\n## Usage\nCount.\n",
	"tech/secret.md":          "---\ntitle: Secret plan\nprivate: true\ntags: [hashing]\n---\n# Secret plan\nxylophone hashing and [[Bloom filters]].\n",
	"personal-notes/diary.md": "# Diary\nquokka day; thinking about [[Bloom filters]].\n",
}

// privateMarkers name or quote the fixture's private notes (the public cms.md
// names "Secret plan" in its own text, so that title is checked apart).
var privateMarkers = []string{"tech/secret.md", "personal-notes", "xylophone", "quokka", "Diary"}

// clock is a settable clock for the sessions.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// env is a vault served over HTTP on 127.0.0.1 with MCP, the feed and the web
// explorer mounted, and tokens: owner (read, write, private), reader (read),
// writer (read, write).
type env struct {
	t       *testing.T
	v       *vault.Vault
	base    string
	tok     *auth.Tokens
	secrets map[string]string
	web     *web.Handler
	clock   *clock
	mcpURL  string
}

func newEnv(t *testing.T, files map[string]string) *env {
	t.Helper()
	return newEnvWith(t, files, server.HTTPOptions{})
}

// newEnvWith is newEnv with HTTP options (the tokens and logger are set here).
func newEnvWith(t *testing.T, files map[string]string, opts server.HTTPOptions) *env {
	t.Helper()
	v, e := testmcp.NewEnv(t, files)
	tok, secrets := testmcp.Tokens(t, v, map[string][]auth.Scope{
		"owner":  {auth.ScopeRead, auth.ScopeWrite, auth.ScopePrivate},
		"reader": {auth.ScopeRead},
		"writer": {auth.ScopeRead, auth.ScopeWrite},
	})
	clk := &clock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	w := web.New(v, web.Options{Tokens: tok, Logger: testmcp.Quiet, Now: clk.Now, Name: "demo"})
	opts.Tokens, opts.Logger = tok, testmcp.Quiet
	u, _ := testmcp.ServeMounted(t, e.S, opts, func(h *server.HTTPHandler) {
		h.MountWeb(w)
		h.MountFeed(v, e.Hub)
	})
	return &env{t: t, v: v, base: strings.TrimSuffix(u, server.MCPPath), tok: tok, secrets: secrets, web: w, clock: clk, mcpURL: u}
}

// browser is an HTTP client with a cookie jar, as a browser on the page is.
type browser struct {
	e    *env
	c    *http.Client
	csrf string
}

func (e *env) browser() *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return &browser{e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// login logs a new browser in with name's token.
func (e *env) login(name string) *browser {
	e.t.Helper()
	b := e.browser()
	resp, body := b.do(http.MethodPost, "/web/login", `{"token": "`+e.secrets[name]+`"}`, nil)
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("login as %s: %d %s", name, resp.StatusCode, body)
	}
	var s struct{ CSRF string }
	if err := json.Unmarshal(body, &s); err != nil || s.CSRF == "" {
		e.t.Fatalf("login as %s: %s", name, body)
	}
	b.csrf = s.CSRF
	return b
}

// do sends a request with a JSON body (when body is not "") and returns the
// response and its body.
func (b *browser) do(method, path, body string, hdr map[string]string) (*http.Response, []byte) {
	b.e.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, b.e.base+path, r)
	if err != nil {
		b.e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		b.e.t.Fatal(err)
	}
	return resp, out
}

// get GETs an API path and decodes a 200 answer into out (when not nil); it
// returns the raw body.
func (b *browser) get(path string, out any) []byte {
	b.e.t.Helper()
	resp, body := b.do(http.MethodGet, path, "", nil)
	if resp.StatusCode != http.StatusOK {
		b.e.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			b.e.t.Fatalf("GET %s: %v\n%s", path, err, body)
		}
	}
	return body
}

// post POSTs JSON to an API path with the session's CSRF token.
func (b *browser) post(path, body string) (*http.Response, []byte) {
	b.e.t.Helper()
	return b.do(http.MethodPost, path, body, map[string]string{web.CSRFHeader: b.csrf})
}

// errCode is the code of an API error body.
func errCode(t *testing.T, body []byte) string {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("not an API error body: %s", body)
	}
	return e.Error.Code
}

func q(s string) string { return url.QueryEscape(s) }

func sessionCookie(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == web.CookieName {
			return c
		}
	}
	return nil
}

func headCommit(t *testing.T, v *vault.Vault) string {
	t.Helper()
	c, err := v.Commit(context.Background(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return string(c.ID)
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
