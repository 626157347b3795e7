package vault_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
	"github.com/norn-vault/norn/vault"
)

// syncFixture is a served vault with remote origin, a bare repository on disk.
type syncFixture struct {
	v    *vault.Vault
	rs   *remote.Remotes
	s    *vault.Syncer
	bare string
}

func newSyncFixture(t *testing.T, files map[string]string) *syncFixture {
	t.Helper()
	v := testvault.Served(t, files)
	bare := filepath.Join(t.TempDir(), "remote.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	rs, err := remote.Open(v.GitDir(), remote.Options{Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Add("origin", bare); err != nil {
		t.Fatal(err)
	}
	return &syncFixture{v: v, rs: rs, bare: bare, s: vault.NewSyncer(v, rs, vault.SyncerOptions{Machine: "test"})}
}

func (f *syncFixture) viewer(t *testing.T, private bool) *vault.Viewer {
	t.Helper()
	vw, err := f.v.Viewer(context.Background(), vault.Actor{Private: private})
	if err != nil {
		t.Fatal(err)
	}
	return vw
}

// remoteTip is the bare remote's main per the git CLI ("" if absent).
func (f *syncFixture) remoteTip(t *testing.T) repo.CommitID {
	t.Helper()
	out, err := exec.Command("git", "-C", f.bare, "rev-parse", "--verify", "-q", "refs/heads/main").Output()
	if err != nil {
		return ""
	}
	return repo.CommitID(strings.TrimSpace(string(out)))
}

func (f *syncFixture) status(t *testing.T, private bool) vault.RemoteStatus {
	t.Helper()
	st, err := f.s.Status(context.Background(), f.viewer(t, private), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Remotes) != 1 {
		t.Fatalf("status: %+v, want one remote", st)
	}
	return st.Remotes[0]
}

// TestSyncer_StatusPrivacy: the owner sees every commit ahead and the error as
// it was; a viewer without the private scope counts only commits that changed
// notes it may see, gets no commit ids, and gets the error's code, not its text.
func TestSyncer_StatusPrivacy(t *testing.T) {
	ctx := context.Background()
	f := newSyncFixture(t, map[string]string{"pub.md": "# Pub\n"})
	if _, err := f.s.Sync(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	if got := f.status(t, true); got.Ahead != 0 || got.Behind != 0 || got.Tip != f.v.Head() || got.LastPush.IsZero() {
		t.Fatalf("after the first push: %+v", got)
	}
	for _, w := range [][2]string{{"personal-notes/diary.md", "# Diary\n"}, {"personal-notes/more.md", "# More\n"}, {"pub2.md", "# Pub two\n"}} {
		if err := testvault.Write(f.v, w[0], w[1]); err != nil {
			t.Fatal(err)
		}
	}
	owner, reader := f.status(t, true), f.status(t, false)
	if owner.Ahead != 3 || owner.Tip == "" {
		t.Errorf("owner: %+v, want 3 ahead and the tip", owner)
	}
	if reader.Ahead != 1 || reader.Tip != "" || reader.Partial {
		t.Errorf("reader: %+v, want 1 ahead (the private-only commits uncounted), no tip", reader)
	}
	st, _ := f.s.Status(ctx, f.viewer(t, false), nil)
	if st.Head != "" {
		t.Errorf("reader sees head %s", st.Head)
	}

	// A failing sync: the remote is gone.
	if err := os.RemoveAll(f.bare); err != nil {
		t.Fatal(err)
	}
	_, err := f.s.Sync(ctx, "origin")
	if errcode.Classify(err) != errcode.RemoteUnreachable {
		t.Fatalf("sync of a removed remote: %v (%s), want remote_unreachable", err, errcode.Classify(err))
	}
	owner, reader = f.status(t, true), f.status(t, false)
	if owner.LastErrorCode != string(errcode.RemoteUnreachable) || !strings.Contains(owner.LastError, "repository not found") || owner.ErrorSince.IsZero() {
		t.Errorf("owner after a failure: %+v", owner)
	}
	if reader.LastErrorCode != string(errcode.RemoteUnreachable) || strings.Contains(reader.LastError, owner.LastError) ||
		!strings.HasPrefix(reader.LastError, "remote_unreachable") || reader.ErrorSince != owner.ErrorSince {
		t.Errorf("reader after a failure: %+v", reader)
	}
}

// TestSyncer_StatusRefused: paths the sync left out are in the status; a viewer
// without the private scope does not see those in private folders.
func TestSyncer_StatusRefused(t *testing.T) {
	ctx := context.Background()
	f := newSyncFixture(t, map[string]string{"pub.md": "# Pub\n"})
	if _, err := f.s.Sync(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	person := filepath.Join(t.TempDir(), "person")
	for _, args := range [][]string{{"clone", "-q", f.bare, person}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(person, "personal-notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"link.md", "personal-notes/link.md"} {
		if err := os.Symlink("/etc/passwd", filepath.Join(person, l)); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.name=P", "-c", "user.email=p@x", "commit", "-q", "-m", "links"}, {"push", "-q", "origin", "main"}} {
		if out, err := exec.Command("git", append([]string{"-C", person}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	res, err := f.s.Sync(ctx, "origin")
	if err != nil || len(res.Refused) != 2 {
		t.Fatalf("sync: %+v, %v", res, err)
	}
	if owner := f.status(t, true); len(owner.Refused) != 2 {
		t.Errorf("owner: %+v", owner.Refused)
	}
	if reader := f.status(t, false); len(reader.Refused) != 1 || reader.Refused[0].Path != "link.md" {
		t.Errorf("reader: %+v", reader.Refused)
	}
}

// TestSyncer_WaitPushedBounded: a write waiting for its push while another sync
// holds the turn (one stuck in the remote's hook) gives up at its bound and says
// so, instead of waiting for the other sync.
func TestSyncer_WaitPushedBounded(t *testing.T) {
	ctx := context.Background()
	f := newSyncFixture(t, map[string]string{"pub.md": "# Pub\n"})
	s := vault.NewSyncer(f.v, f.rs, vault.SyncerOptions{Machine: "test", WaitBound: 100 * time.Millisecond})
	if _, err := s.Sync(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fifo, started := filepath.Join(dir, "release"), filepath.Join(dir, "started")
	if out, err := exec.Command("mkfifo", fifo).CombinedOutput(); err != nil {
		t.Skipf("mkfifo: %v %s", err, out)
	}
	hook := "#!/bin/sh\ntouch " + started + "\ncat " + fifo + " >/dev/null\nexit 0\n"
	if err := os.WriteFile(filepath.Join(f.bare, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := testvault.Write(f.v, "a.md", "# A\n"); err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() { _, err := s.Sync(ctx, "origin"); first <- err }()
	for deadline := time.Now().Add(60 * time.Second); ; { // a hang guard
		if _, err := os.Stat(started); err == nil {
			break // the first sync is in the remote's hook, holding the turn
		}
		if time.Now().After(deadline) {
			t.Fatal("the first sync never reached the hook")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := testvault.Write(f.v, "b.md", "# B\n"); err != nil {
		t.Fatal(err)
	}
	wr, err := s.WaitPushed(ctx, f.viewer(t, true), f.v.Head())
	if err != nil || wr == nil || wr.Pushed || wr.LastErrorCode != string(errcode.Canceled) || !strings.Contains(wr.LastError, "not on the remote after 100ms") {
		t.Fatalf("wait while another sync holds the turn: %+v, %v", wr, err)
	}
	if err := os.WriteFile(fifo, []byte("go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatalf("the first sync: %v", err)
	}
}

// TestSyncer_WriteRemoteAheadPartial: a write's answer counts, for a viewer
// without the private scope, at most maxWriteScan (200) commits apart, and says
// when there were more (ahead_partial); the owner's count is exact.
func TestSyncer_WriteRemoteAheadPartial(t *testing.T) {
	ctx := context.Background()
	f := newSyncFixture(t, map[string]string{"pub.md": "# Pub\n"})
	if _, err := f.s.Sync(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	check := func(n int, wantReader int, wantPartial bool) {
		t.Helper()
		owner, err := f.s.WriteRemote(ctx, f.viewer(t, true), f.v.Head())
		if err != nil {
			t.Fatal(err)
		}
		reader, err := f.s.WriteRemote(ctx, f.viewer(t, false), f.v.Head())
		if err != nil {
			t.Fatal(err)
		}
		if owner.Ahead != n || owner.AheadPartial || owner.Pushed {
			t.Errorf("after %d writes, owner: %+v, want %d ahead, exact", n, owner, n)
		}
		if reader.Ahead != wantReader || reader.AheadPartial != wantPartial || reader.Pushed {
			t.Errorf("after %d writes, reader: %+v, want %d ahead, partial %v", n, reader, wantReader, wantPartial)
		}
	}
	n := 0
	write := func(path string) {
		t.Helper()
		if err := testvault.Write(f.v, path, fmt.Sprintf("# Note %d\n", n)); err != nil {
			t.Fatal(err)
		}
		n++
	}
	write("personal-notes/diary.md")
	for n < 200 {
		write(fmt.Sprintf("pub/%d.md", n))
	}
	check(200, 199, false)
	for n < 205 {
		write(fmt.Sprintf("pub/%d.md", n))
	}
	// 200 commits examined, oldest first: the private one among them.
	check(205, 199, true)
}
