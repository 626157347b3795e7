package remote_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/sync/remote"
)

// gitHTTPServer serves the bare repositories under root over real smart HTTP
// (git http-backend through CGI) on 127.0.0.1, taking only Basic auth whose
// password is token. A refusal echoes the password it got, as a careless proxy
// might: the client must keep it out of its errors anyway.
func gitHTTPServer(t *testing.T, root, token string) string {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	backend := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=tester", "GIT_CONFIG_NOSYSTEM=1"},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pass, ok := r.BasicAuth()
		if !ok || pass != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "bad credentials: "+pass, http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRemotes_HTTPToken(t *testing.T) {
	ctx := t.Context()
	const token = "ghp_s3cretTOKENvalue"
	bare := newBare(t)
	git(t, bare, "config", "http.receivepack", "true")
	url := gitHTTPServer(t, filepath.Dir(bare), token) + "/" + filepath.Base(bare)
	dir := newVault(t)
	creds := map[string]remote.Credentials{
		"origin": {Token: token},
		"wrong":  {Token: "ghp_wrongTOKENvalue"},
		"none":   {},
	}
	var logs logBuffer
	r := open(t, dir, remote.Options{
		Logger:      logs.logger(),
		Credentials: func(name string) remote.Credentials { return creds[name] },
	})
	for name := range creds {
		if err := r.Add(name, url); err != nil {
			t.Fatal(err)
		}
	}
	if tip, err := r.Fetch(ctx, "origin", nil); err != nil || tip != "" {
		t.Fatalf("Fetch(empty over http) = %q, %v", tip, err)
	}
	c1 := head(t, dir)
	if err := r.Push(ctx, "origin", c1, "", nil); err != nil {
		t.Fatalf("push over http: %v", err)
	}
	if got := remoteTip(t, bare); got != c1 {
		t.Fatalf("remote main = %q", got)
	}
	c2 := commit(t, dir, "b.md", "# B\n")
	if err := r.Push(ctx, "origin", c2, c1, nil); err != nil {
		t.Fatal(err)
	}
	if tip, err := r.Fetch(ctx, "origin", nil); err != nil || tip != c2 {
		t.Fatalf("Fetch = %q, %v", tip, err)
	}
	if err := r.Push(ctx, "origin", commit(t, dir, "c.md", "# C\n"), c1, nil); !errors.Is(err, remote.ErrRemoteMoved) {
		t.Fatalf("stale push over http = %v", err)
	}

	// A wrong token and no token are refused with a clear error, which never
	// shows a token (the server echoed the wrong one in its reply).
	for _, name := range []string{"wrong", "none"} {
		_, ferr := r.Fetch(ctx, name, nil)
		perr := r.Push(ctx, name, head(t, dir), c2, nil)
		for _, err := range []error{ferr, perr} {
			if !errors.Is(err, remote.ErrAuth) {
				t.Errorf("%s: %v, want ErrAuth", name, err)
				continue
			}
			if strings.Contains(err.Error(), "TOKENvalue") {
				t.Errorf("%s: the error shows a token: %v", name, err)
			}
		}
	}
	if got := remoteTip(t, bare); got != c2 {
		t.Fatalf("refused pushes changed the remote: %q", got)
	}
	if strings.Contains(logs.String(), "TOKENvalue") {
		t.Errorf("a token reached the log:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "msg=pushed") {
		t.Errorf("no transfer was logged:\n%s", logs.String())
	}
	git(t, bare, "fsck", "--strict")
}

// Username and password go as Basic auth as they are.
func TestRemotes_HTTPPassword(t *testing.T) {
	bare := newBare(t)
	url := gitHTTPServer(t, filepath.Dir(bare), "pa55word") + "/" + filepath.Base(bare)
	dir := newVault(t)
	r := open(t, dir, remote.Options{Credentials: func(string) remote.Credentials {
		return remote.Credentials{Username: "me", Password: config.Secret("pa55word")}
	}})
	if err := r.Add("origin", url); err != nil {
		t.Fatal(err)
	}
	if err := r.Push(t.Context(), "origin", head(t, dir), "", nil); err != nil {
		t.Fatal(err)
	}
	if got := remoteTip(t, bare); got != head(t, dir) {
		t.Fatalf("remote main = %q", got)
	}
}
