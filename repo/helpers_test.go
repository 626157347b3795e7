package repo_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// clock returns a pinned, advancing clock so commit ids are stable.
func clock() func() time.Time {
	var n atomic.Int64
	base := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time { return base.Add(time.Duration(n.Add(1)) * time.Second) }
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

// assertClean checks the vault with the git CLI: fsck --strict clean and no
// working-tree changes.
func assertClean(t testing.TB, v *repo.Vault) {
	t.Helper()
	gitCmd(t, v.Dir(), "fsck", "--strict", "--no-progress")
	if st := gitCmd(t, v.Dir(), "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("git status not clean:\n%s", st)
	}
}

func put(p string, content string, rev repo.Revision) repo.Change {
	return repo.Change{Kind: repo.Put, Path: note.Path(p), Content: []byte(content), ExpectedRevision: rev}
}

func write(t testing.TB, v *repo.Vault, changes ...repo.Change) *repo.Result {
	t.Helper()
	res, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "agent-a"}, Op: repo.OpWrite, Changes: changes})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func readFile(t testing.TB, v *repo.Vault, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(v.Dir(), p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
