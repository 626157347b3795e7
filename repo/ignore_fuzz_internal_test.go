package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// FuzzIgnoreRules: the scan's ignore rules, which read each .gitignore as the scan
// reaches its folder, give the verdict go-git's matcher gives over every pattern
// ReadPatterns collects in a walk of its own (what the scan did before), for any
// .gitignore at the root and in a folder, and any path (untracked: an empty HEAD).
func FuzzIgnoreRules(f *testing.F) {
	f.Add("*.log\n", "!keep.log\n", "sub/keep.log")
	f.Add("sub/\n", "", "sub/x.md")
	f.Add("/a\n# c\n\n", "b/\r\n", "sub/b/c.md")
	f.Add("**/tmp\n", "!tmp\n", "sub/tmp")
	f.Add("x\\ y\n", "*.md\n!a.md\n", "sub/deep/a.md")
	f.Fuzz(func(t *testing.T, root, sub, p string) {
		p = strings.Trim(p, "/")
		if p == "" || ValidPath(p) != nil || strings.Contains(p, ".git") || len(p) > 200 {
			return
		}
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755)
		os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(root), 0o644)
		os.WriteFile(filepath.Join(dir, "sub", ".gitignore"), []byte(sub), 0o644)
		wt, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer wt.Close()
		r := &ignoreRules{wt: wt, head: &node{mode: modeDir}, builtin: gitignore.NewMatcher(nil),
			dirs: map[string][]gitignore.Pattern{}, hidden: map[string][2]bool{}}
		r.dirs[""] = r.withFile(nil, "")

		ps, _ := gitignore.ReadPatterns(osfs.New(dir), nil)
		old := gitignore.NewMatcher(ps)
		parts := strings.Split(p, "/")
		want := false
		for i := 1; i <= len(parts); i++ {
			if old.Match(parts[:i], i < len(parts)) {
				want = true
				break
			}
		}
		if got := r.ignored(p, false); got != want {
			t.Fatalf("ignored(%q) = %v, go-git over ReadPatterns says %v (root %q, sub %q)", p, got, want, root, sub)
		}
	})
}
