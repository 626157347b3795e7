package repo_test

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/repo"
)

// TestVault_ResolvePrefix: an abbreviated id (7+ hex digits, as archive and log
// print them) names its commit or its blob; a prefix two objects share is
// ErrInvalid naming both; one nothing starts with is ErrNotFound; fewer than 7
// digits or non-hex is ErrInvalid. git rev-parse is the oracle.
func TestVault_ResolvePrefix(t *testing.T) {
	v := newVault(t, repo.Options{})
	res := write(t, v, put("a.md", "# A\n", ""))
	rev := v.Revision("a.md")
	commit, got, err := v.ResolvePrefix(string(rev)[:7])
	if err != nil || got != rev || commit != "" {
		t.Fatalf("ResolvePrefix(blob[:7]) = %q, %q, %v; want %s", commit, got, err, rev)
	}
	commit, got, err = v.ResolvePrefix(strings.ToUpper(string(res.Commit)[:9]))
	if err != nil || commit != res.Commit || got != "" {
		t.Fatalf("ResolvePrefix(commit[:9]) = %q, %q, %v; want %s", commit, got, err, res.Commit)
	}
	if want := strings.TrimSpace(gitCmd(t, v.Dir(), "rev-parse", string(res.Commit)[:9])); want != string(commit) {
		t.Fatalf("git rev-parse says %s", want)
	}

	// Two blobs whose ids share 7 digits: found by the birthday bound.
	seen := map[string]string{}
	var x, y, prefix string
	for i := 0; x == ""; i++ {
		c := fmt.Sprintf("# %d\n", i)
		id := fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(c), c))))
		if o, ok := seen[id[:7]]; ok {
			x, y, prefix = o, c, id[:7]
		}
		seen[id[:7]] = c
	}
	for i, c := range []string{x, y} {
		f := filepath.Join(t.TempDir(), fmt.Sprint(i))
		os.WriteFile(f, []byte(c), 0o644)
		gitCmd(t, v.Dir(), "hash-object", "-w", f)
	}
	_, _, err = v.ResolvePrefix(prefix)
	if !errors.Is(err, repo.ErrInvalid) || !strings.Contains(err.Error(), "ambiguous") || strings.Count(err.Error(), prefix) < 3 {
		t.Fatalf("ResolvePrefix(shared %s) = %v; want ErrInvalid naming both ids", prefix, err)
	}
	if _, _, err := v.ResolvePrefix("0000000"); !errors.Is(err, repo.ErrNotFound) && !strings.HasPrefix(string(rev), "0000000") {
		t.Fatalf("ResolvePrefix(0000000) = %v; want ErrNotFound", err)
	}
	for _, bad := range []string{"abc123", "zzzzzzz", strings.Repeat("a", 41), ""} {
		if _, _, err := v.ResolvePrefix(bad); !errors.Is(err, repo.ErrInvalid) {
			t.Errorf("ResolvePrefix(%q) = %v; want ErrInvalid", bad, err)
		}
	}
}
