package remote_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/sync/remote"
)

// pushFromGit commits, in a git clone of bare, what add does to its folder, and
// pushes it.
func pushFromGit(t *testing.T, bare string, add func(dir string)) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "person")
	git(t, "", "clone", "-q", bare, dir)
	add(dir)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "from git")
	git(t, dir, "push", "-q", "origin", "main")
}

func writeIn(t *testing.T, dir, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRemotes_SyncRefusedPaths: paths the vault cannot take — a symbolic link,
// names repo refuses (a backslash, Norn's temporary prefix), a file where this
// vault has a folder — do not fail the sync: the rest is taken, the refused
// paths are reported (result, Norn-Refused trailers, status, log) and stay in
// history. A remote that is only ahead (a fast-forward) with such a path is
// merged instead, so the vault's tree never holds them.
func TestRemotes_SyncRefusedPaths(t *testing.T) {
	bare := newBare(t)
	a := newReplica(t, "laptop", bare, true)
	var logs logBuffer
	a.r = open(t, a.v.Dir(), remote.Options{Logger: logs.logger()})
	a.sync(t)

	pushFromGit(t, bare, func(dir string) {
		writeIn(t, dir, "ok.md", "# Fine\n")
		writeIn(t, dir, `a\b.md`, "# Backslash\n")
		writeIn(t, dir, ".norn-tmp-x.md", "# Temp\n")
		if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link.md")); err != nil {
			t.Fatal(err)
		}
	})
	theirs := remoteTip(t, bare)
	res := a.sync(t)
	if res.Outcome != remote.Merged || len(res.Refused) != 3 {
		t.Fatalf("sync of a remote ahead with refused paths: %+v", res)
	}
	want := map[string]string{`a\b.md`: "backslash", ".norn-tmp-x.md": "temporary", "link.md": "symbolic link"}
	for _, r := range res.Refused {
		if !strings.Contains(r.Reason, want[r.Path]) || want[r.Path] == "" {
			t.Errorf("refused %q: %q", r.Path, r.Reason)
		}
	}
	if a.read(t, "ok.md") != "# Fine\n" {
		t.Fatal("ok.md not taken")
	}
	for _, p := range []string{`a\b.md`, ".norn-tmp-x.md", "link.md"} {
		if _, err := os.Lstat(filepath.Join(a.v.Dir(), p)); err == nil {
			t.Errorf("%q was taken into the working tree", p)
		}
		if gitOK(a.v.Dir(), "cat-file", "-e", "HEAD:"+p) {
			t.Errorf("%q is in the merged tree", p)
		}
		if !gitOK(a.v.Dir(), "cat-file", "-e", string(theirs)+":"+p) {
			t.Errorf("%q is not in history", p)
		}
	}
	checkRepl(t, a)
	if remoteTip(t, bare) != a.v.Head() || !gitOK(a.v.Dir(), "merge-base", "--is-ancestor", string(theirs), "HEAD") {
		t.Fatal("the merge is not on the remote, or does not keep the remote's commit")
	}
	msg := git(t, a.v.Dir(), "log", "-1", "--format=%B")
	if strings.Count(msg, "Norn-Refused: ") != 3 || !strings.Contains(msg, `Norn-Refused: "link.md": a symbolic link`) {
		t.Fatalf("merge message:\n%s", msg)
	}
	if !strings.Contains(logs.String(), "sync left out a path") {
		t.Fatalf("no log line:\n%s", logs.String())
	}
	st, err := a.r.Status(t.Context(), "origin", a.v.Head())
	if err != nil || len(st.Refused) != 3 {
		t.Fatalf("status: %+v, %v", st, err)
	}

	// Diverged, and the remote has a file where this vault has a folder.
	a.put(t, "x/y.md", "# Y\n")
	pushFromGit(t, bare, func(dir string) { writeIn(t, dir, "x", "a file\n"); writeIn(t, dir, "z.md", "# Z\n") })
	res = a.sync(t)
	if res.Outcome != remote.Merged || len(res.Refused) != 1 || res.Refused[0].Path != "x" || !strings.Contains(res.Refused[0].Reason, "folder") {
		t.Fatalf("sync with a file over a folder: %+v", res)
	}
	if a.read(t, "z.md") != "# Z\n" || a.read(t, "x/y.md") != "# Y\n" {
		t.Fatal("the rest was not taken")
	}
	checkRepl(t, a)
	// A sync that takes nothing in keeps the report; the next that does replaces it.
	a.sync(t)
	if st, _ := a.r.Status(t.Context(), "origin", a.v.Head()); len(st.Refused) != 1 {
		t.Fatalf("status after an up-to-date sync: %+v", st)
	}
}

func gitOK(dir string, args ...string) bool {
	_, err := gitErr(dir, args...)
	return err == nil
}
