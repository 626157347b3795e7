package vault_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// logs is a log sink safe for the maintainer's goroutine.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// watching runs a maintainer that follows the working tree's file events and, but
// for them, runs no rounds after its first (Every and Rescan are an hour): what it
// commits after that first round, the watcher told it about. It returns once that
// first round (the full scan of the start) is done: a hand edit made before it is
// committed.
func watching(t *testing.T, settle time.Duration, opts repo.WatchOptions, every time.Duration) (*repo.Vault, *logs) {
	t.Helper()
	v, s := openVault(t)
	var l logs
	m := &vault.Maintainer{Vault: assembled(t, v, s), Logger: slog.New(slog.NewTextHandler(&l, nil)), Every: every,
		Rescan: time.Hour, Settle: settle, Watch: true, WatchOptions: opts}
	runMaintainer(t, m)
	handEdit(t, v, "start.md", "the first round is done\n")
	waitHead(t, v, "start.md", "the first round is done\n")
	return v, &l
}

// handEdit writes a file of the working tree as a person would.
func handEdit(t *testing.T, v *repo.Vault, p, content string) {
	t.Helper()
	full := filepath.Join(v.Dir(), filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// atHead returns the file HEAD holds at p (git show, the oracle) and whether it does.
func atHead(v *repo.Vault, p string) (string, bool) {
	out, err := exec.Command("git", "-C", v.Dir(), "show", "HEAD:"+p).Output()
	return string(out), err == nil
}

// waitFor waits until cond holds (a generous bound, only to end a broken test).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitHead waits until HEAD holds content at p.
func waitHead(t *testing.T, v *repo.Vault, p, content string) {
	t.Helper()
	waitFor(t, "HEAD:"+p+" = "+content, func() bool {
		got, ok := atHead(v, p)
		return ok && got == content
	})
}

// waitGone waits until HEAD holds nothing at p.
func waitGone(t *testing.T, v *repo.Vault, p string) {
	t.Helper()
	waitFor(t, p+" gone from HEAD", func() bool { _, ok := atHead(v, p); return !ok })
}

// TestMaintainer_WatchCommitsHandEdits: with the watcher, each kind of hand edit
// is committed as external without a full scan (none runs after the first round):
// an edit, a new folder and a file added to it later, a deletion, a renamed file
// and folder, an editor's atomic save (write a temporary file, rename it over the
// note), and a burst of files. git is the oracle: HEAD holds the edits, the
// working tree is clean, the commits are the owner's, Norn-Op external.
func TestMaintainer_WatchCommitsHandEdits(t *testing.T) {
	v, _ := watching(t, 50*time.Millisecond, repo.WatchOptions{}, time.Hour)
	dir := v.Dir()
	first := v.Head()

	handEdit(t, v, "start.md", "edited by hand\n")
	waitHead(t, v, "start.md", "edited by hand\n")

	handEdit(t, v, "new/deep/one.md", "in a new folder\n")
	waitHead(t, v, "new/deep/one.md", "in a new folder\n")
	handEdit(t, v, "new/deep/two.md", "added to the new folder later\n")
	waitHead(t, v, "new/deep/two.md", "added to the new folder later\n")

	if err := os.Remove(filepath.Join(dir, "new", "deep", "one.md")); err != nil {
		t.Fatal(err)
	}
	waitGone(t, v, "new/deep/one.md")

	if err := os.Rename(filepath.Join(dir, "start.md"), filepath.Join(dir, "renamed.md")); err != nil {
		t.Fatal(err)
	}
	waitHead(t, v, "renamed.md", "edited by hand\n")
	waitGone(t, v, "start.md")

	if err := os.Rename(filepath.Join(dir, "new"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	waitHead(t, v, "moved/deep/two.md", "added to the new folder later\n")
	waitGone(t, v, "new/deep/two.md")
	handEdit(t, v, "moved/deep/two.md", "the moved folder is watched\n")
	waitHead(t, v, "moved/deep/two.md", "the moved folder is watched\n")

	handEdit(t, v, "renamed.md.tmp-save", "saved atomically\n")
	if err := os.Rename(filepath.Join(dir, "renamed.md.tmp-save"), filepath.Join(dir, "renamed.md")); err != nil {
		t.Fatal(err)
	}
	waitHead(t, v, "renamed.md", "saved atomically\n")

	for i := range 100 {
		handEdit(t, v, "burst/"+strconv.Itoa(i)+".md", "burst "+strconv.Itoa(i)+"\n")
	}
	handEdit(t, v, "burst-last.md", "last of the burst\n")
	waitHead(t, v, "burst-last.md", "last of the burst\n")
	waitFor(t, "the burst committed whole", func() bool {
		out, err := exec.Command("git", "-C", dir, "ls-tree", "--name-only", "HEAD", "burst/").Output()
		return err == nil && strings.Count(string(out), "\n") == 100
	})

	waitFor(t, "a clean working tree", func() bool {
		out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=all").Output()
		return err == nil && len(out) == 0
	})
	if _, ok := atHead(v, "renamed.md.tmp-save"); ok {
		t.Fatal("the atomic save's temporary file is at HEAD")
	}
	out, err := exec.Command("git", "-C", dir, "log", "--no-merges", "--format=%an %(trailers:key=Norn-Op,valueonly,separator=)", "HEAD", "^"+string(first)).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 9 {
		t.Fatalf("%d commits of hand edits, want at least one per step:\n%s", len(lines), out)
	}
	for _, line := range lines {
		if line != "o external" {
			t.Fatalf("a commit of the hand edits is not the owner's external one: %q\n%s", line, out)
		}
	}
}

// TestMaintainer_WatchLimitFallsBackToPolling: when the watcher may not watch every
// folder (the cap here; fs.inotify.max_user_watches on a real system), it says so
// in the log and every round scans the whole working tree: a hand edit in the
// folder it could not watch is still committed.
func TestMaintainer_WatchLimitFallsBackToPolling(t *testing.T) {
	v, l := watching(t, 0, repo.WatchOptions{MaxFolders: 1}, 20*time.Millisecond)
	handEdit(t, v, "unwatched/deep/x.md", "seen by the full scans\n")
	waitHead(t, v, "unwatched/deep/x.md", "seen by the full scans\n")
	if !strings.Contains(l.String(), "cannot watch the working tree") {
		t.Fatalf("no warning logged:\n%s", l.String())
	}
}

// TestMaintainer_WatchFollowsGitignore: a folder .gitignore hides is not watched;
// once the .gitignore stops hiding it, its files are committed and the folder is
// watched from then on (an edit in it is committed, with no full scan to find it).
func TestMaintainer_WatchFollowsGitignore(t *testing.T) {
	v, _ := watching(t, 0, repo.WatchOptions{}, time.Hour)
	handEdit(t, v, "sub/.gitignore", "hidden/\n")
	waitHead(t, v, "sub/.gitignore", "hidden/\n")
	handEdit(t, v, "sub/hidden/a.md", "hidden at first\n")
	handEdit(t, v, "sub/.gitignore", "# nothing hidden\n")
	waitHead(t, v, "sub/.gitignore", "# nothing hidden\n")
	waitHead(t, v, "sub/hidden/a.md", "hidden at first\n")
	handEdit(t, v, "sub/hidden/a.md", "edited in the folder now watched\n")
	waitHead(t, v, "sub/hidden/a.md", "edited in the folder now watched\n")
}

// TestMaintainer_WatchTakesInHandCommitAtOnce: a commit made with the git CLI is
// taken in — HEAD, and the search index through it — as soon as the watcher sees
// the branch move, without waiting for Settle or the next round (both an hour
// here: before, it waited for them). The first hand commit is the mark that the
// maintainer's first round is done (taken in by that round or by the watcher);
// the second lands after it, so only the watcher can bring it in.
func TestMaintainer_WatchTakesInHandCommitAtOnce(t *testing.T) {
	v, s := openVault(t)
	sv := assembled(t, v, s)
	m := &vault.Maintainer{Vault: sv, Logger: slog.New(slog.NewTextHandler(&logs{}, nil)), Every: time.Hour,
		Rescan: time.Hour, Settle: time.Hour, Watch: true}
	runMaintainer(t, m)
	git := func(args ...string) string {
		return strings.TrimSpace(gitIn(t, v.Dir(), append([]string{"-c", "user.name=T", "-c", "user.email=t@x"}, args...)...))
	}
	indexed := func(head string) func() bool {
		return func() bool { c, _ := sv.Index.Status(); return c == head }
	}
	for i, word := range []string{"quokka", "axolotl"} {
		p := "hand" + strconv.Itoa(i) + ".md"
		handEdit(t, v, p, "---\ntitle: Hand "+word+"\n---\n# Hand\nA note about the "+word+".\n")
		git("add", p)
		git("commit", "-q", "-m", "by hand: "+word)
		head := git("rev-parse", "HEAD")
		waitFor(t, "the index at the hand commit "+head, indexed(head))
		if got := string(v.Head()); got != head {
			t.Fatalf("vault HEAD %s, git's %s", got, head)
		}
		r, err := sv.Index.Search(context.Background(), vault.SearchRequest{Query: word, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Hits) != 1 || string(r.Hits[0].Path) != p {
			t.Fatalf("search %q after the hand commit: %+v", word, r.Hits)
		}
	}
	if st := git("status", "--porcelain"); st != "" {
		t.Fatalf("git status after the hand commits: %q", st)
	}
}

// runMaintainer runs m until the test ends, and fails the test if it ends with
// an error.
func runMaintainer(t *testing.T, m *vault.Maintainer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}
