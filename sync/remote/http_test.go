package remote_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/internal/gitserve"
	"github.com/norn-vault/norn/sync/remote"
)

func TestRemotes_HTTPToken(t *testing.T) {
	ctx := t.Context()
	const token = "ghp_s3cretTOKENvalue"
	bare := newBare(t)
	git(t, bare, "config", "http.receivepack", "true")
	url := gitserve.HTTP(t, filepath.Dir(bare), token) + "/" + filepath.Base(bare)
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
	url := gitserve.HTTP(t, filepath.Dir(bare), "pa55word") + "/" + filepath.Base(bare)
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
