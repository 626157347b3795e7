package repo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// gitPacks is the pack count `git count-objects -v` reports.
func gitPacks(t *testing.T, dir string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^packs: (\d+)$`).FindStringSubmatch(gitCmd(t, dir, "count-objects", "-v"))
	if m == nil {
		t.Fatal("git count-objects -v: no packs line")
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestVault_GCPackLimit: writes leave a pack each; once there are more than
// PackLimit, gc rolls every pack into one (git count-objects agrees), keeps an
// unreachable object, and every revision still reads back through Norn and git;
// fsck --strict is clean. Under the limit gc does not roll everything up.
func TestVault_GCPackLimit(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	type rev struct {
		commit  repo.CommitID
		path    string
		content string
	}
	var revs []rev
	for i := range 12 { // under the 16 small packs that make the write path merge
		p := fmt.Sprintf("f%d/n%d.md", i%3, i%5)
		content := fmt.Sprintf("# %s\nwrite %d\n", p, i)
		res := write(t, v, put(p, content, v.Revision(note.Path(p))))
		revs = append(revs, rev{res.Commit, p, content})
	}
	stray := filepath.Join(t.TempDir(), "stray")
	os.WriteFile(stray, []byte("in no commit\n"), 0o644)
	lost := strings.TrimSpace(gitCmd(t, v.Dir(), "hash-object", "-w", stray))
	before := gitPacks(t, v.Dir())
	if before != v.Packs() || before < 12 {
		t.Fatalf("git counts %d packs, Norn %d; want 12 or more", before, v.Packs())
	}
	res, err := v.GC(ctx, repo.GCOptions{PackLimit: before})
	if err != nil {
		t.Fatal(err)
	}
	if res.All || res.PacksBefore != before {
		t.Fatalf("at the limit: %+v", res)
	}
	write(t, v, put("extra.md", "one more pack\n", ""))
	n := v.Packs()
	res, err = v.GC(ctx, repo.GCOptions{PackLimit: n - 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.All || res.PacksBefore != n || res.PacksAfter != 1 || res.LooseAfter != 0 {
		t.Fatalf("over the limit: %+v", res)
	}
	if got := gitPacks(t, v.Dir()); got != 1 {
		t.Fatalf("git count-objects: %d packs after gc, want 1", got)
	}
	gitCmd(t, v.Dir(), "cat-file", "-e", lost) // unreachable, yet kept (-k)
	for _, r := range revs {
		b, err := v.Read(ctx, note.Path(r.path), string(r.commit))
		if err != nil || string(b.Content) != r.content {
			t.Fatalf("read %s at %s after gc: %q %v", r.path, r.commit, b.Content, err)
		}
		if got := gitCmd(t, v.Dir(), "show", string(r.commit)+":"+r.path); got != r.content {
			t.Fatalf("git show %s:%s = %q", r.commit, r.path, got)
		}
	}
	write(t, v, put("after-gc.md", "x\n", ""))
	gitCmd(t, v.Dir(), "fsck", "--strict", "--no-progress")
}
