package remote_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/internal/gitserve"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
)

func TestRemotes_FetchPushLocal(t *testing.T) {
	for _, scheme := range []string{"path", "file"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := t.Context()
			dir, bare := newVault(t), newBare(t)
			url := bare
			if scheme == "file" {
				url = "file://" + bare
			}
			r := open(t, dir, remote.Options{})
			if err := r.Add("origin", url); err != nil {
				t.Fatal(err)
			}
			// An empty remote: no tip, and the first push creates the branch.
			tip, err := r.Fetch(ctx, "origin", nil)
			if err != nil || tip != "" {
				t.Fatalf("Fetch(empty) = %q, %v", tip, err)
			}
			c1 := head(t, dir)
			if err := r.Push(ctx, "origin", c1, "", nil); err != nil {
				t.Fatalf("first push: %v", err)
			}
			if got := remoteTip(t, bare); got != c1 {
				t.Fatalf("remote main = %q, want %q", got, c1)
			}
			// Pushing what is there already is a success.
			if err := r.Push(ctx, "origin", c1, c1, nil); err != nil {
				t.Fatalf("push of the same tip: %v", err)
			}
			c2 := commit(t, dir, "b.md", "# B\n")
			if err := r.Push(ctx, "origin", c2, c1, nil); err != nil {
				t.Fatalf("fast-forward push: %v", err)
			}
			if got := remoteTip(t, bare); got != c2 {
				t.Fatalf("remote main = %q, want %q", got, c2)
			}

			// Another replica (the git CLI) pushes: Fetch returns its tip and brings
			// its objects; the vault's own branch does not move.
			other := filepath.Join(t.TempDir(), "other")
			git(t, "", "clone", "-q", bare, other)
			c3 := commit(t, other, "c.md", "# C\n")
			git(t, other, "push", "-q", "origin", "main")
			var lines []string
			tip, err = r.Fetch(ctx, "origin", func(l string) { lines = append(lines, l) })
			if err != nil || tip != c3 {
				t.Fatalf("Fetch = %q, %v; want %q", tip, err, c3)
			}
			if got := repo.CommitID(git(t, dir, "rev-parse", "refs/remotes/origin/main")); got != c3 {
				t.Errorf("tracking ref = %q", got)
			}
			if head(t, dir) != c2 || git(t, dir, "status", "--porcelain") != "" {
				t.Errorf("fetch moved the vault's branch or touched its working tree")
			}
			git(t, dir, "cat-file", "-e", string(c3)+"^{commit}")
			if len(lines) == 0 {
				t.Errorf("no progress lines reported")
			}

			// Our local commit on the old tip: the remote moved.
			c4 := commit(t, dir, "d.md", "# D\n")
			err = r.Push(ctx, "origin", c4, c2, nil)
			if !errors.Is(err, remote.ErrRemoteMoved) || !errors.Is(err, repo.ErrConflict) {
				t.Fatalf("push over a moved remote = %v, want ErrRemoteMoved", err)
			}
			if got := remoteTip(t, bare); got != c3 {
				t.Fatalf("refused push changed the remote: %q", got)
			}
			// Expecting the right tip but not descending from it: not a fast-forward.
			if err := r.Push(ctx, "origin", c4, c3, nil); !errors.Is(err, remote.ErrNotFastForward) {
				t.Fatalf("non-fast-forward push = %v", err)
			}
			// Expecting an empty remote that is not.
			if err := r.Push(ctx, "origin", c4, "", nil); !errors.Is(err, remote.ErrRemoteMoved) {
				t.Fatalf("push expecting empty = %v", err)
			}
			if got := remoteTip(t, bare); got != c3 {
				t.Fatalf("refused push changed the remote: %q", got)
			}
			git(t, bare, "fsck", "--strict")
			git(t, dir, "fsck", "--strict")
		})
	}
}

func TestRemotes_PushRefusesBadCommits(t *testing.T) {
	ctx := t.Context()
	dir, bare := newVault(t), newBare(t)
	r := open(t, dir, remote.Options{})
	if err := r.Add("origin", bare); err != nil {
		t.Fatal(err)
	}
	blob := repo.CommitID(git(t, dir, "rev-parse", "HEAD:a.md"))
	for _, c := range []repo.CommitID{"", "abc", "zz" + head(t, dir)[2:], blob, "0123456789012345678901234567890123456789"} {
		if err := r.Push(ctx, "origin", c, "", nil); !errors.Is(err, remote.ErrNotCommit) {
			t.Errorf("Push(%q) = %v, want ErrNotCommit", c, err)
		}
	}
	if err := r.Push(ctx, "origin", head(t, dir), "nothex", nil); !errors.Is(err, remote.ErrNotCommit) {
		t.Errorf("Push(expected nothex) = %v", err)
	}
	if err := r.Push(ctx, "nope", head(t, dir), "", nil); !errors.Is(err, remote.ErrNotFound) {
		t.Errorf("Push to an unknown remote = %v", err)
	}
	if _, err := r.Fetch(ctx, "nope", nil); !errors.Is(err, remote.ErrNotFound) {
		t.Errorf("Fetch from an unknown remote = %v", err)
	}
	if got := remoteTip(t, bare); got != "" {
		t.Errorf("refused pushes wrote to the remote: %q", got)
	}
}

// Another pusher wins between our look at the remote and its ref update: the
// remote's own old-value check refuses ours, reported as ErrRemoteMoved.
func TestRemotes_PushLosesRaceAtTheRemote(t *testing.T) {
	ctx := t.Context()
	dir, bare := newVault(t), newBare(t)
	r := open(t, dir, remote.Options{})
	if err := r.Add("origin", bare); err != nil {
		t.Fatal(err)
	}
	c1 := head(t, dir)
	if err := r.Push(ctx, "origin", c1, "", nil); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	git(t, "", "clone", "-q", bare, other)
	theirs := commit(t, other, "t.md", "# T\n")
	git(t, other, "push", "-q", "origin", "main:refs/heads/staging")
	// The hook runs after receive-pack read the old value and before it updates
	// the ref: it moves main, as a concurrent push would.
	hook := filepath.Join(bare, "hooks", "pre-receive")
	script := "#!/bin/sh\ncat >/dev/null\nunset GIT_QUARANTINE_PATH\ngit update-ref refs/heads/main " + string(theirs) + "\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	mine := commit(t, dir, "m.md", "# M\n")
	err := r.Push(ctx, "origin", mine, c1, nil)
	if !errors.Is(err, remote.ErrRemoteMoved) {
		t.Fatalf("push that lost the race = %v, want ErrRemoteMoved", err)
	}
	t.Logf("refused: %v", err)
	if got := remoteTip(t, bare); got != theirs {
		t.Fatalf("remote main = %q, want the winner %q", got, theirs)
	}
}

func TestRemotes_FetchUnreachable(t *testing.T) {
	dir := newVault(t)
	r := open(t, dir, remote.Options{})
	missing := filepath.Join(t.TempDir(), "missing.git")
	if err := r.Add("gone", missing); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fetch(t.Context(), "gone", nil); !errors.Is(err, remote.ErrUnreachable) {
		t.Fatalf("fetch from a missing repository = %v, want ErrUnreachable", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	bare := newBare(t)
	if err := r.Add("origin", bare); err != nil {
		t.Fatal(err)
	}
	if err := r.Push(ctx, "origin", head(t, dir), "", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("push with a cancelled context = %v", err)
	}
	if got := remoteTip(t, bare); got != "" {
		t.Errorf("cancelled push wrote %q", got)
	}
	if strings.Contains(git(t, dir, "for-each-ref"), "refs/remotes/origin") {
		t.Errorf("cancelled push left a tracking ref")
	}
}

// The remote's own refusals: a branch that is expected but absent is a moved
// remote; a non-bare repository with the branch checked out refuses for itself.
func TestRemotes_PushRefusedByRemote(t *testing.T) {
	ctx := t.Context()
	dir, bare := newVault(t), newBare(t)
	r := open(t, dir, remote.Options{})
	if err := r.Add("origin", bare); err != nil {
		t.Fatal(err)
	}
	c1 := head(t, dir)
	if err := r.Push(ctx, "origin", c1, c1, nil); !errors.Is(err, remote.ErrRemoteMoved) {
		t.Errorf("push expecting a tip on an empty remote = %v, want ErrRemoteMoved", err)
	}
	other := newVault(t)
	if err := r.Add("checkedout", other); err != nil {
		t.Fatal(err)
	}
	tip := head(t, other)
	if _, err := r.Fetch(ctx, "checkedout", nil); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "merge", "-q", "--allow-unrelated-histories", "-m", "m", string(tip))
	err := r.Push(ctx, "checkedout", head(t, dir), tip, nil)
	if !errors.Is(err, remote.ErrRejected) || errors.Is(err, remote.ErrRemoteMoved) {
		t.Errorf("push to a checked-out branch = %v, want ErrRejected", err)
	}
	if head(t, other) != tip {
		t.Errorf("the refused push moved the other repository")
	}
}

// A remote with other branches but not the vault's: no tip, and the first push
// creates the branch beside the others.
func TestRemotes_FetchWithoutTheBranch(t *testing.T) {
	ctx := t.Context()
	dir, bare := newVault(t), newBare(t)
	other := newVault(t)
	git(t, other, "push", "-q", bare, "main:refs/heads/elsewhere")
	r := open(t, dir, remote.Options{})
	if err := r.Add("origin", bare); err != nil {
		t.Fatal(err)
	}
	if tip, err := r.Fetch(ctx, "origin", nil); err != nil || tip != "" {
		t.Fatalf("Fetch = %q, %v; want no tip", tip, err)
	}
	if err := r.Push(ctx, "origin", head(t, dir), "", nil); err != nil {
		t.Fatal(err)
	}
	if remoteTip(t, bare) != head(t, dir) || git(t, bare, "rev-parse", "elsewhere") != string(head(t, other)) {
		t.Errorf("remote branches after the first push: %s", git(t, bare, "for-each-ref"))
	}
}

// A host nobody listens on is ErrUnreachable, over HTTP and SSH alike.
func TestRemotes_HostDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := newVault(t)
	known := filepath.Join(t.TempDir(), "known_hosts")
	_, priv := gitserve.NewKey(t)
	keyFile := writeKey(t, priv, "")
	r := open(t, dir, remote.Options{Credentials: func(string) remote.Credentials {
		return remote.Credentials{SSHKey: keyFile, KnownHosts: []string{known}, Token: "t"}
	}})
	for name, url := range map[string]string{"web": "http://" + addr + "/x.git", "ssh": "ssh://git@" + addr + "/x.git"} {
		if err := r.Add(name, url); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Fetch(t.Context(), name, nil); !errors.Is(err, remote.ErrUnreachable) {
			t.Errorf("%s: fetch from a host that is down = %v, want ErrUnreachable", name, err)
		}
	}
}
