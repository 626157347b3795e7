package remote_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
)

// tick makes commit dates advance one second per commit, so hashes are stable
// within a test and committer times order commits.
var tick atomic.Int64

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

func gitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	date := fmt.Sprintf("%d +0000", 1796126400+tick.Add(1))
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T",
		"GIT_COMMITTER_EMAIL=t@x", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date,
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+os.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// newVault makes a non-bare repository on branch main with one commit.
func newVault(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	git(t, "", "init", "-q", "-b", "main", dir)
	commit(t, dir, "a.md", "# A\n")
	return dir
}

// newBare makes an empty bare repository (the remote).
func newBare(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "remote.git")
	git(t, "", "init", "-q", "--bare", "-b", "main", dir)
	return dir
}

// commit writes a file and commits it, returning the new HEAD.
func commit(t testing.TB, dir, path, content string) repo.CommitID {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", path)
	git(t, dir, "commit", "-q", "-m", "write "+path)
	return head(t, dir)
}

func head(t testing.TB, dir string) repo.CommitID {
	t.Helper()
	return repo.CommitID(git(t, dir, "rev-parse", "HEAD"))
}

// remoteTip is the remote's main per the git CLI ("" if absent).
func remoteTip(t testing.TB, bare string) repo.CommitID {
	t.Helper()
	out, err := gitErr(bare, "rev-parse", "--verify", "-q", "refs/heads/main")
	if err != nil {
		return ""
	}
	return repo.CommitID(strings.TrimSpace(out))
}

// logBuffer is a Debug-level slog sink safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// open opens the remotes of the vault at dir.
func open(t testing.TB, dir string, opts remote.Options) *remote.Remotes {
	t.Helper()
	r, err := remote.Open(filepath.Join(dir, ".git"), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
