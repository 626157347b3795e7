package vault_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// TestGate_BadInputLeavesVaultUntouched sends bad writes through the whole stack
// (repo + gates under the vault's settings) and checks each is rejected with its rule
// named while HEAD, the working tree and git's index stay exactly as they were.
func TestGate_BadInputLeavesVaultUntouched(t *testing.T) {
	v, _ := openVault(t)
	if err := write(v, "ok.md", "# OK\n", "owner"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(v.Dir(), "escape")); err != nil {
		t.Fatal(err)
	}
	bomb := "---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n---\n# Bomb\n"
	cases := []struct {
		name, path, content string
		rule                string // "" = rejected by repo's own path rules (ErrInvalid)
	}{
		{"yaml alias bomb", "bomb.md", bomb, "yaml-alias"},
		{"duplicate keys", "dup.md", "---\ntitle: a\ntitle: b\n---\n# A\n", "yaml-duplicate-key"},
		{"invalid utf-8", "utf.md", "# Bad \xff\xfe\n", "invalid-utf8"},
		{"oversize", "big.md", "# Big\n" + strings.Repeat("x", 2<<20) + "\n", "note-too-large"},
		{"not markdown", "x.txt", "hello\n", "path-not-markdown"},
		{"bad tags", "tags.md", "---\ntags: [Not Kebab]\n---\n# T\n", "tags-format"},
		{"no final newline", "nl.md", "# T", "final-newline"},
		{"traversal", "../x.md", "# X\n", ""},
		{"git dir", ".git/hooks/pre-commit.md", "# X\n", ""},
		{"symlink escape", "escape/x.md", "# X\n", ""},
	}
	head := v.Head()
	lsFiles := func() string {
		out, err := exec.Command("git", "-C", v.Dir(), "ls-files", "--stage").CombinedOutput()
		if err != nil {
			t.Fatalf("git ls-files: %v %s", err, out)
		}
		return string(out)
	}
	idx := lsFiles()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := write(v, tc.path, tc.content, "agent")
			if tc.rule == "" {
				if !errors.Is(err, repo.ErrInvalid) {
					t.Fatalf("got %v, want repo.ErrInvalid", err)
				}
				return
			}
			var rej *hooks.Rejection
			if !errors.Is(err, repo.ErrRejected) || !errors.As(err, &rej) {
				t.Fatalf("got %v, want a gate rejection", err)
			}
			found := false
			for _, vi := range rej.Violations {
				found = found || vi.Rule == tc.rule
			}
			if !found {
				t.Fatalf("rule %s not named: %v", tc.rule, rej.Violations)
			}
		})
	}
	os.Remove(filepath.Join(v.Dir(), "escape"))
	if v.Head() != head {
		t.Fatal("HEAD moved")
	}
	if lsFiles() != idx {
		t.Fatal("git index changed")
	}
	out, err := exec.Command("git", "-C", v.Dir(), "status", "--porcelain", "--untracked-files=all").CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("git status: %s %v", out, err)
	}
	if _, err := v.Read(context.Background(), note.Path("bomb.md"), ""); !errors.Is(err, repo.ErrNotFound) {
		t.Fatal("a rejected note can be read")
	}
}
