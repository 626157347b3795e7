package remote_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
)

func TestRemotes_AddListRemove(t *testing.T) {
	dir := newVault(t)
	bare := newBare(t)
	git(t, dir, "config", "user.name", "Keep Me")
	r := open(t, dir, remote.Options{})

	if err := r.Add("origin", bare); err != nil {
		t.Fatal(err)
	}
	if err := r.Add("backup", "file://"+bare); err != nil {
		t.Fatal(err)
	}
	if err := r.Add("hub", "git@github.com:me/notes.git"); err != nil {
		t.Fatal(err)
	}
	// The git CLI is the oracle: it sees the same remotes, URLs and refspecs.
	want := "backup\tfile://" + bare + " (fetch)\nbackup\tfile://" + bare + " (push)\n" +
		"hub\tgit@github.com:me/notes.git (fetch)\nhub\tgit@github.com:me/notes.git (push)\n" +
		"origin\t" + bare + " (fetch)\norigin\t" + bare + " (push)"
	if got := git(t, dir, "remote", "-v"); got != want {
		t.Fatalf("git remote -v:\n%s\nwant:\n%s", got, want)
	}
	if got := git(t, dir, "config", "remote.origin.fetch"); got != "+refs/heads/*:refs/remotes/origin/*" {
		t.Errorf("fetch refspec %q", got)
	}
	if got := git(t, dir, "config", "user.name"); got != "Keep Me" {
		t.Errorf("other settings lost: user.name = %q", got)
	}
	list, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	wantList := []remote.Remote{
		{Name: "backup", URL: "file://" + bare, Kind: remote.KindLocal},
		{Name: "hub", URL: "git@github.com:me/notes.git", Kind: remote.KindSSH},
		{Name: "origin", URL: bare, Kind: remote.KindLocal},
	}
	if len(list) != len(wantList) {
		t.Fatalf("List = %v", list)
	}
	for i := range list {
		if list[i] != wantList[i] {
			t.Errorf("List[%d] = %+v, want %+v", i, list[i], wantList[i])
		}
	}

	// Remove drops the remote and its tracking refs, loose and packed.
	git(t, dir, "fetch", "-q", "origin")
	if err := r.Push(t.Context(), "origin", head(t, dir), "", nil); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "fetch", "-q", "origin")
	git(t, dir, "pack-refs", "--all")
	git(t, dir, "fetch", "-q", "backup")
	if err := r.Remove("origin"); err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "for-each-ref", "refs/remotes/origin"); got != "" {
		t.Errorf("tracking refs left: %s", got)
	}
	if got := git(t, dir, "for-each-ref", "--format=%(refname)", "refs/remotes/backup"); got != "refs/remotes/backup/main" {
		t.Errorf("another remote's refs touched: %q", got)
	}
	if got := git(t, dir, "remote"); got != "backup\nhub" {
		t.Errorf("git remote after remove: %q", got)
	}
	if err := r.Remove("origin"); !errors.Is(err, remote.ErrNotFound) || !errors.Is(err, repo.ErrNotFound) {
		t.Errorf("second remove: %v, want ErrNotFound", err)
	}
	git(t, dir, "fsck", "--strict")
}

func TestRemotes_AddRefusesBadInput(t *testing.T) {
	dir := newVault(t)
	r := open(t, dir, remote.Options{})
	if err := r.Add("origin", "/srv/git/notes.git"); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, ".git", "config")
	before := readFile(t, cfgPath)
	for _, tc := range []struct {
		name, url string
		want      error
		absent    string // must not be in the error
	}{
		{"", "/x.git", remote.ErrInvalid, ""},
		{"-x", "/x.git", remote.ErrInvalid, ""},
		{".hidden", "/x.git", remote.ErrInvalid, ""},
		{"a..b", "/x.git", remote.ErrInvalid, ""},
		{"a/b", "/x.git", remote.ErrInvalid, ""},
		{"a b", "/x.git", remote.ErrInvalid, ""},
		{"x.lock", "/x.git", remote.ErrInvalid, ""},
		{"a\"b", "/x.git", remote.ErrInvalid, ""},
		{strings.Repeat("n", 65), "/x.git", remote.ErrInvalid, ""},
		{"ok", "", remote.ErrInvalid, ""},
		{"ok", "relative/path.git", remote.ErrInvalid, ""},
		{"ok", "-oProxyCommand=touch /tmp/pwned", remote.ErrInvalid, ""},
		{"ok", "ssh://-oProxyCommand=x/y", remote.ErrInvalid, ""},
		{"ok", "https://me:hunter2secret@github.com/me/notes.git", remote.ErrInvalid, "hunter2secret"},
		{"ok", "https://ghp_tokenvalue123@github.com/me/notes.git", remote.ErrInvalid, "ghp_tokenvalue123"},
		{"ok", "ssh://me:sshpass99@host/x.git", remote.ErrInvalid, "sshpass99"},
		{"ok", "https://host/x.git?a=b", remote.ErrInvalid, ""},
		{"ok", "https:///x.git", remote.ErrInvalid, ""},
		{"ok", "ftp://host/x.git", remote.ErrInvalid, ""},
		{"ok", "ext::sh -c touch% /tmp/pwned", remote.ErrInvalid, ""},
		{"ok", "file://host/x.git", remote.ErrInvalid, ""},
		{"ok", "/x.git\n[core]", remote.ErrInvalid, ""},
		{"ok", "@host:x", remote.ErrInvalid, ""},
		{"origin", "/other.git", remote.ErrExists, ""},
	} {
		err := r.Add(tc.name, tc.url)
		if !errors.Is(err, tc.want) || !errors.Is(err, repo.ErrInvalid) {
			t.Errorf("Add(%q, %q) = %v, want %v", tc.name, tc.url, err, tc.want)
			continue
		}
		if tc.absent != "" && strings.Contains(err.Error(), tc.absent) {
			t.Errorf("Add(%q): error shows the secret: %v", tc.url, err)
		}
	}
	if after := readFile(t, cfgPath); !bytes.Equal(before, after) {
		t.Errorf(".git/config changed by refused adds:\n%s", after)
	}
	if _, err := os.Stat(cfgPath + ".lock"); err == nil {
		t.Error("config.lock left behind")
	}
	if err := r.Remove("nope"); !errors.Is(err, remote.ErrNotFound) {
		t.Errorf("Remove(nope) = %v", err)
	}
	if after := readFile(t, cfgPath); !bytes.Equal(before, after) {
		t.Errorf(".git/config changed by a refused remove")
	}
}

// A git process holding config.lock makes Add fail, not race.
func TestRemotes_AddRespectsGitLock(t *testing.T) {
	dir := newVault(t)
	r := open(t, dir, remote.Options{})
	lock := filepath.Join(dir, ".git", "config.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.Add("origin", "/x.git"); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("Add under a held lock = %v", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatal("the other process's lock was removed")
	}
	if got, _ := gitErr(dir, "remote"); strings.TrimSpace(got) != "" {
		t.Errorf("remote added despite the lock: %q", got)
	}
}

// The package's errors match the repo sentinels one classifier renders.
func TestErrors_Kinds(t *testing.T) {
	for _, tc := range []struct {
		err, kind error
	}{
		{remote.ErrInvalid, repo.ErrInvalid},
		{remote.ErrExists, repo.ErrInvalid},
		{remote.ErrNotFound, repo.ErrNotFound},
		{remote.ErrNotCommit, repo.ErrNotFound},
		{remote.ErrRemoteMoved, repo.ErrConflict},
		{remote.ErrNotFastForward, repo.ErrConflict},
		{remote.ErrAuth, repo.ErrInvalid},
		{&remote.HostKeyError{Host: "h"}, repo.ErrInvalid},
		{&remote.HostKeyError{Host: "h"}, remote.ErrHostKey},
	} {
		if !errors.Is(tc.err, tc.kind) {
			t.Errorf("%v does not match %v", tc.err, tc.kind)
		}
	}
	if errors.Is(remote.ErrRemoteMoved, remote.ErrNotFastForward) || errors.Is(remote.ErrAuth, remote.ErrHostKey) {
		t.Error("distinct sentinels match each other")
	}
}
