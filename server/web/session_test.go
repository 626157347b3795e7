package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/web"
)

// safety bounds a wait for something that should happen at once.
const safety = 20 * time.Second

// TestHandler_LoginForm: a token posted to /web/login sets an HttpOnly,
// SameSite=Strict session cookie (Path=/, not Secure over plain HTTP) and
// answers the session; a wrong token is 401 without a cookie; the API answers
// 401 without a session.
func TestHandler_LoginForm(t *testing.T) {
	e := newEnv(t, fixture)
	b := e.browser()
	resp, body := b.do(http.MethodGet, "/web/api/session", "", nil)
	if resp.StatusCode != http.StatusUnauthorized || errCode(t, body) != "forbidden" {
		t.Fatalf("no session: %d %s", resp.StatusCode, body)
	}
	resp, body = b.do(http.MethodPost, "/web/login", `{"token": "norn_wrong"}`, nil)
	if resp.StatusCode != http.StatusUnauthorized || sessionCookie(resp) != nil {
		t.Fatalf("wrong token: %d %s, cookie %v", resp.StatusCode, body, sessionCookie(resp))
	}
	resp, body = b.do(http.MethodPost, "/web/login", `{"token": "`+e.secrets["writer"]+`"}`, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("login: %d %s", resp.StatusCode, body)
	}
	c := sessionCookie(resp)
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure || len(c.Value) < 40 {
		t.Fatalf("session cookie %+v", c)
	}
	if strings.Contains(resp.Header.Get("Set-Cookie"), e.secrets["writer"]) {
		t.Fatal("the cookie carries the token")
	}
	var s struct {
		Principal string
		Scopes    []string
		CSRF      string
		Vault     string
	}
	if err := json.Unmarshal(body, &s); err != nil || s.Principal != "writer" || strings.Join(s.Scopes, ",") != "read,write" || len(s.CSRF) < 40 || s.Vault != "demo" {
		t.Fatalf("login answer %s", body)
	}
	var again struct{ Principal, CSRF string }
	b.get("/web/api/session", &again)
	if again.Principal != "writer" || again.CSRF != s.CSRF {
		t.Fatalf("session %+v, want writer with the login's csrf", again)
	}
	// A body over the server's bound: 413, as for MCP.
	resp, _ = e.browser().do(http.MethodPost, "/web/login", `{"token": "`+strings.Repeat("x", 5<<20)+`"}`, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || sessionCookie(resp) != nil {
		t.Fatalf("5 MiB login: %d", resp.StatusCode)
	}
	// Not JSON: refused, no cookie.
	resp, _ = e.browser().do(http.MethodPost, "/web/login", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if resp.StatusCode != http.StatusBadRequest || sessionCookie(resp) != nil {
		t.Fatalf("form-encoded login: %d", resp.StatusCode)
	}
}

// TestHandler_LoginLink: a one-time link logs in once and sends the browser to
// / without the token; used again (or a bearer token in the address) it sends
// it to /?login=failed without a cookie.
func TestHandler_LoginLink(t *testing.T) {
	e := newEnv(t, fixture)
	link, err := e.web.LoginLink(auth.Principal{Name: "o", Owner: true, Scopes: []auth.Scope{auth.ScopeRead, auth.ScopePrivate}}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	// A HEAD (a link preview) does not use the link up.
	if resp, _ := b.do(http.MethodHead, "/?token="+q(link), "", nil); resp.StatusCode != http.StatusOK || sessionCookie(resp) != nil {
		t.Fatalf("HEAD of the link: %d, cookie %v", resp.StatusCode, sessionCookie(resp))
	}
	resp, _ := b.do(http.MethodGet, "/?token="+q(link), "", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" || sessionCookie(resp) == nil {
		t.Fatalf("link: %d to %q, cookie %v", resp.StatusCode, resp.Header.Get("Location"), sessionCookie(resp))
	}
	var s struct{ Principal string }
	b.get("/web/api/session", &s)
	if s.Principal != "o" {
		t.Fatalf("session of %q, want o", s.Principal)
	}
	// A browser following the redirects ends at / with no token in the address.
	jarred := e.browser()
	jarred.c.CheckRedirect = nil
	link2, _ := e.web.LoginLink(auth.Principal{Name: "o", Scopes: []auth.Scope{auth.ScopeRead}}, time.Hour)
	resp, body := jarred.do(http.MethodGet, "/?token="+q(link2), "", nil)
	if resp.StatusCode != http.StatusOK || resp.Request.URL.RawQuery != "" || resp.Request.URL.Path != "/" || !strings.Contains(string(body), "<html") {
		t.Fatalf("followed: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	for name, tok := range map[string]string{"used link": link, "bearer token": e.secrets["owner"], "unknown link": web.LinkPrefix + "nope"} {
		resp, _ := e.browser().do(http.MethodGet, "/?token="+q(tok), "", nil)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/?login=failed" || sessionCookie(resp) != nil {
			t.Errorf("%s: %d to %q, cookie %v", name, resp.StatusCode, resp.Header.Get("Location"), sessionCookie(resp))
		}
	}
	// An expired link.
	old, _ := e.web.LoginLink(auth.Principal{Name: "o", Scopes: []auth.Scope{auth.ScopeRead}}, time.Minute)
	e.clock.add(time.Minute)
	if resp, _ := e.browser().do(http.MethodGet, "/?token="+q(old), "", nil); resp.Header.Get("Location") != "/?login=failed" {
		t.Errorf("expired link: to %q", resp.Header.Get("Location"))
	}
}

// TestHandler_CSRF: a request other than a GET needs the session's CSRF token
// and the page's own origin; refused, it writes nothing.
func TestHandler_CSRF(t *testing.T) {
	e := newEnv(t, fixture)
	b := e.login("writer")
	before := headCommit(t, e.v)
	body := `{"path": "tech/bloom.md", "revision": "0123456789012345678901234567890123456789"}`
	for name, hdr := range map[string]map[string]string{
		"no token":          nil,
		"wrong token":       {web.CSRFHeader: "x" + b.csrf},
		"other site":        {web.CSRFHeader: b.csrf, "Origin": "http://evil.example"},
		"other local":       {web.CSRFHeader: b.csrf, "Origin": "http://localhost:1"},
		"cross-site, blind": {web.CSRFHeader: b.csrf, "Sec-Fetch-Site": "cross-site"},
	} {
		resp, out := b.do(http.MethodPost, "/web/api/restore", body, hdr)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d %s, want 403", name, resp.StatusCode, out)
		}
		if name == "no token" && errCode(t, out) != "forbidden" {
			t.Errorf("%s: code %s", name, errCode(t, out))
		}
	}
	if resp, out := b.do(http.MethodPost, "/web/logout", "", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("logout without the token: %d %s", resp.StatusCode, out)
	}
	if headCommit(t, e.v) != before {
		t.Fatal("a refused request wrote")
	}
	// With the token the request reaches the endpoint (and fails there: no such revision).
	if resp, out := b.post("/web/api/restore", body); resp.StatusCode == http.StatusForbidden {
		t.Fatalf("with the token: %d %s", resp.StatusCode, out)
	}
}

// TestHandler_SessionEnds: logout, a revoked token and 12 idle hours end a
// session.
func TestHandler_SessionEnds(t *testing.T) {
	e := newEnv(t, fixture)
	b := e.login("reader")
	resp, _ := b.post("/web/logout", "")
	if c := sessionCookie(resp); resp.StatusCode != http.StatusOK || c == nil || c.MaxAge >= 0 {
		t.Fatalf("logout: %d, cookie %+v", resp.StatusCode, c)
	}
	if resp, _ := b.do(http.MethodGet, "/web/api/session", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("after logout: %d", resp.StatusCode)
	}

	b = e.login("reader")
	if err := e.tok.Revoke("reader"); err != nil {
		t.Fatal(err)
	}
	if resp, _ := b.do(http.MethodGet, "/web/api/tree", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("after the revoke: %d", resp.StatusCode)
	}

	b = e.login("writer")
	e.clock.add(web.DefaultIdle - time.Second)
	b.get("/web/api/session", nil) // used: idle again from now
	e.clock.add(web.DefaultIdle - time.Second)
	b.get("/web/api/session", nil)
	e.clock.add(web.DefaultIdle)
	if resp, _ := b.do(http.MethodGet, "/web/api/session", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("after 12 idle hours: %d", resp.StatusCode)
	}
}

// TestHandler_Page: the page and its assets carry the Content-Security-Policy
// and are served behind the same host checks as MCP.
func TestHandler_Page(t *testing.T) {
	e := newEnv(t, fixture)
	b := e.browser()
	resp, body := b.do(http.MethodGet, "/", "", nil)
	csp := resp.Header.Get("Content-Security-Policy")
	if resp.StatusCode != http.StatusOK || !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "connect-src 'self' ws: wss:") ||
		!strings.Contains(string(body), "<html") || strings.Contains(string(body), "<script>") {
		t.Fatalf("page: %d, CSP %q\n%s", resp.StatusCode, csp, body)
	}
	if resp, _ := b.do(http.MethodGet, "/assets/missing.js", "", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("missing asset: %d", resp.StatusCode)
	}
	if resp, _ := b.do(http.MethodGet, "/", "", map[string]string{"Origin": "http://evil.example"}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodGet, e.base+"/", nil)
	req.Host = "evil.example"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign host: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// MCP still answers beside it.
	if resp, _ := testmcp.RawPost(t, e.mcpURL, testmcp.Bearer(e.secrets["reader"]), testmcp.InitializeBody); resp.StatusCode != http.StatusOK {
		t.Fatalf("MCP initialize: %d", resp.StatusCode)
	}
}

// TestHandler_APIUnderPrincipalBound: the explorer's API requests count against
// a principal's bound on requests at once together with its MCP calls: with a
// bound of 1 and the reader's wait_for_changes holding its slot, the reader's
// API request is refused 429 too_many_requests (Retry-After), the owner's is
// not, and once the wait is answered the reader's goes through again.
func TestHandler_APIUnderPrincipalBound(t *testing.T) {
	e := newEnvWith(t, fixture, server.HTTPOptions{MaxConcurrent: 1})
	reader, owner := e.login("reader"), e.login("owner")
	c, err := testmcp.Dial(t, e.mcpURL, testmcp.Bearer(e.secrets["reader"]), false)
	if err != nil {
		t.Fatal(err)
	}
	// The reader's wait is asked again whenever it answers (a commit made as the
	// vault opened may answer the first at once), until the test has seen the
	// 429 and stops it.
	stop, waited := make(chan struct{}), make(chan error, 1)
	go func() {
		since := ""
		for {
			req := mcpgo.CallToolRequest{}
			req.Params.Name = "wait_for_changes"
			req.Params.Arguments = map[string]any{"timeout": 60}
			if since != "" {
				req.Params.Arguments = map[string]any{"timeout": 60, "since": since}
			}
			res, err := c.CallTool(context.Background(), req)
			if err != nil {
				waited <- err
				return
			}
			if m, ok := res.StructuredContent.(map[string]any); ok {
				since, _ = m["cursor"].(string)
			}
			select {
			case <-stop:
				waited <- nil
				return
			default:
			}
		}
	}()
	deadline := time.Now().Add(safety)
	for {
		resp, body := reader.do(http.MethodGet, "/web/api/tree", "", nil)
		if resp.StatusCode == http.StatusTooManyRequests {
			if resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"too_many_requests"`) {
				t.Fatalf("429 without Retry-After or code: %v %s", resp.Header, body)
			}
			break
		}
		if resp.StatusCode != http.StatusOK || time.Now().After(deadline) {
			t.Fatalf("reader's API request while its wait holds the only slot: %d %s", resp.StatusCode, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if resp, body := owner.do(http.MethodGet, "/web/api/tree", "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("owner's API request: %d %s", resp.StatusCode, body)
	}
	close(stop)
	if err := testvault.Write(e.v, "new.md", "# New\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(safety):
		t.Fatal("wait_for_changes not answered after a write")
	}
	if resp, body := reader.do(http.MethodGet, "/web/api/tree", "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("reader's API request after the wait: %d %s", resp.StatusCode, body)
	}
}
