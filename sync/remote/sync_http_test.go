package remote_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/internal/gitserve"
	"github.com/norn-vault/norn/sync/remote"
)

// TestRemotes_SyncOverHTTP: two replicas sync through a smart-HTTP server with
// token auth and merge; a wrong token is refused, recorded in Status, and
// changes nothing.
func TestRemotes_SyncOverHTTP(t *testing.T) {
	const token = "ghp_syncTOKENvalue"
	bare := newBare(t)
	git(t, bare, "config", "http.receivepack", "true")
	url := gitserve.HTTP(t, filepath.Dir(bare), token) + "/" + filepath.Base(bare)
	a := newReplica(t, "laptop", bare, true)
	a.sync(t) // over the path, then only HTTP
	b := newReplica(t, "desktop", bare, false)
	for _, rp := range []*replica{a, b} {
		git(t, rp.v.Dir(), "remote", "set-url", "origin", url)
		rp.r = open(t, rp.v.Dir(), remote.Options{Credentials: func(string) remote.Credentials {
			return remote.Credentials{Token: config.Secret(token)}
		}})
	}
	a.put(t, "a.md", "from a\n")
	b.put(t, "b.md", "from b\n")
	a.sync(t)
	if res := b.sync(t); res.Outcome != remote.Merged {
		t.Fatalf("over http: %+v", res)
	}
	a.sync(t)
	if a.v.Head() != b.v.Head() || remoteTip(t, bare) != a.v.Head() {
		t.Fatal("replicas differ after syncing over http")
	}
	checkRepl(t, a)

	wrong := open(t, b.v.Dir(), remote.Options{Credentials: func(string) remote.Credentials {
		return remote.Credentials{Token: "ghp_wrongTOKENvalue"}
	}})
	b.put(t, "c.md", "unsent\n")
	before := remoteTip(t, bare)
	_, err := wrong.Sync(context.Background(), b.v, "origin", remote.SyncOptions{Machine: "desktop"})
	if !errors.Is(err, remote.ErrAuth) || strings.Contains(err.Error(), "TOKENvalue") {
		t.Fatalf("wrong token: %v", err)
	}
	if remoteTip(t, bare) != before {
		t.Fatal("a refused sync moved the remote")
	}
	st, err := wrong.Status(context.Background(), "origin", b.v.Head())
	if err != nil {
		t.Fatal(err)
	}
	if st.Ahead != 1 || st.LastError == "" || st.ErrorSince.IsZero() || strings.Contains(st.LastError, "TOKENvalue") {
		t.Fatalf("status after a refused sync: %+v", st)
	}
}
