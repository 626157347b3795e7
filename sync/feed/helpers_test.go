package feed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// Tokens the test server knows: tokAll sees everything, tokPublic nothing under
// personal-notes/.
const (
	tokAll     = "tok-all"
	tokPublic  = "tok-public"
	goodOrigin = "http://explorer.example"
)

// publicOnly hides personal-notes/ and any note whose bytes say "#private".
func publicOnly(v *repo.Vault) func(note.Path, repo.Revision) bool {
	return func(p note.Path, rev repo.Revision) bool {
		if strings.HasPrefix(string(p), "personal-notes/") {
			return false
		}
		b, err := v.ReadRevision(context.Background(), rev)
		return err == nil && !strings.Contains(string(b), "#private")
	}
}

// hangGuard bounds one read of a test client, so that a lost message fails the
// test with a message instead of hanging it (never an assertion on timing).
const hangGuard = 2 * time.Minute

func clock() func() time.Time {
	var n atomic.Int64
	base := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time { return base.Add(time.Duration(n.Add(1)) * time.Second) }
}

func newVault(t testing.TB, opts repo.Options) *repo.Vault {
	t.Helper()
	if opts.Now == nil {
		opts.Now = clock()
	}
	if opts.Owner.Name == "" {
		opts.Owner = repo.Author{Name: "Owner", Email: "owner@example.com"}
	}
	v, _, err := repo.Init(context.Background(), t.TempDir(), repo.InitOptions{Options: opts,
		Seed: map[string][]byte{".norn/config.yaml": []byte("gates:\n  profile: default\n")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func gitCmd(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func gitWrite(t testing.TB, dir, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// oracle lists the commits after from up to HEAD as git orders them.
func oracle(t testing.TB, v *repo.Vault, from repo.CommitID) []repo.CommitID {
	t.Helper()
	var ids []repo.CommitID
	for _, s := range strings.Fields(gitCmd(t, v.Dir(), "rev-list", "--reverse", "--topo-order", string(from)+"..HEAD")) {
		ids = append(ids, repo.CommitID(s))
	}
	return ids
}

func put(p, content string) repo.Change {
	return repo.Change{Kind: repo.Put, Path: note.Path(p), Content: []byte(content)}
}

func write(t testing.TB, v *repo.Vault, changes ...repo.Change) repo.CommitID {
	t.Helper()
	res, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "agent-a"}, Op: repo.OpWrite, Changes: changes})
	if err != nil {
		t.Fatal(err)
	}
	return res.Commit
}

// feedEnv is a vault, a hub over it and the endpoint on a loopback server.
type feedEnv struct {
	v   *repo.Vault
	hub *feed.Hub
	srv *httptest.Server
	url string // ws://127.0.0.1:port/v1/events
}

// authenticate knows the test tokens of a server over v.
func authenticate(v *repo.Vault) func(*http.Request, string) (feed.Access, bool) {
	return func(_ *http.Request, token string) (feed.Access, bool) {
		switch token {
		case tokAll:
			return feed.Access{Principal: "owner"}, true
		case tokPublic:
			return feed.Access{Principal: "agent", Visible: publicOnly(v)}, true
		}
		return feed.Access{}, false
	}
}

func checkOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	return o == "" || o == goodOrigin
}

// newEnv serves a hub over v (nil: a new vault); setup adjusts the server before
// it starts.
func newEnv(t testing.TB, v *repo.Vault, opts feed.Options, setup ...func(*httptest.Server)) *feedEnv {
	t.Helper()
	if v == nil {
		v = newVault(t, repo.Options{})
	}
	hub := feed.New(v, opts)
	mux := http.NewServeMux()
	mux.Handle(feed.Path, feed.NewHandler(hub, feed.HandlerOptions{Authenticate: authenticate(v), CheckOrigin: checkOrigin}))
	srv := httptest.NewUnstartedServer(mux)
	for _, f := range setup {
		f(srv)
	}
	srv.Start()
	t.Cleanup(func() {
		hub.Close()
		srv.Close()
	})
	return &feedEnv{v: v, hub: hub, srv: srv, url: "ws" + strings.TrimPrefix(srv.URL, "http") + feed.Path}
}

// wsClient is a raw websocket client of the feed that keeps every frame.
type wsClient struct {
	conn   *websocket.Conn
	frames [][]byte
}

func (e *feedEnv) dial(t testing.TB, token string, q feed.Query) *wsClient {
	t.Helper()
	c, err := e.tryDial(token, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tryDial connects; dialer nil is the default one.
func (e *feedEnv) tryDial(token string, q feed.Query, dialer *websocket.Dialer) (*wsClient, error) {
	if dialer == nil {
		dialer = websocket.DefaultDialer
	}
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	conn, resp, err := dialer.Dial(e.url+"?"+q.Values().Encode(), h)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		return nil, fmt.Errorf("dial (status %d): %w", status, err)
	}
	return &wsClient{conn: conn}, nil
}

// next reads one message (keeping its raw bytes).
func (c *wsClient) next() (feed.Message, error) {
	c.conn.SetReadDeadline(time.Now().Add(hangGuard))
	_, b, err := c.conn.ReadMessage()
	if err != nil {
		return feed.Message{}, err
	}
	c.frames = append(c.frames, b)
	var m feed.Message
	if err := json.Unmarshal(b, &m); err != nil {
		return feed.Message{}, fmt.Errorf("decode %s: %w", b, err)
	}
	return m, nil
}

func (c *wsClient) must(t testing.TB) feed.Message {
	t.Helper()
	m, err := c.next()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// expect reads one message and checks its type.
func (c *wsClient) expect(t testing.TB, typ feed.MessageType) feed.Message {
	t.Helper()
	m := c.must(t)
	if m.Type != typ {
		t.Fatalf("got a %s message %+v, want %s", m.Type, m, typ)
	}
	return m
}

func pathOf(s string) note.Path { return note.Path(s) }

func websocketDial(u string, h http.Header) (*websocket.Conn, *http.Response, error) {
	return websocket.DefaultDialer.Dial(u, h)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
