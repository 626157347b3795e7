package repo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestVault_RefreshSharesUnchangedFolders: taking in a commit another process made
// (here the git CLI) reads only the folders it changed; the others are the very
// nodes of the snapshot before, and what the new snapshot holds is HEAD's (the git
// CLI agrees on the changed note's blob).
func TestVault_RefreshSharesUnchangedFolders(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	v, _, err := Init(ctx, dir, InitOptions{Options: Options{Owner: Author{Name: "O", Email: "o@x"}},
		Seed: map[string][]byte{"a/x.md": []byte("x\n"), "b/c/y.md": []byte("y\n"), "b/d/z.md": []byte("z\n"), "top.md": []byte("t\n")}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	before := v.snap.Load().root
	if err := os.WriteFile(filepath.Join(dir, "b", "d", "z.md"), []byte("z by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=P", "-c", "user.email=p@x"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("commit", "-q", "-a", "-m", "by hand")
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	after := v.snap.Load().root
	if after == before {
		t.Fatal("the snapshot did not move")
	}
	for _, p := range []string{"a", "b/c"} {
		if before.lookup(p) != after.lookup(p) {
			t.Errorf("%s: unchanged folder read again (a new node)", p)
		}
	}
	for _, p := range []string{"b", "b/d", "b/d/z.md"} {
		if before.lookup(p) == after.lookup(p) {
			t.Errorf("%s: changed, but the node before was kept", p)
		}
	}
	want := git("rev-parse", "HEAD:b/d/z.md")
	if got := after.lookup("b/d/z.md").id.String() + "\n"; got != want {
		t.Errorf("b/d/z.md is %s in the snapshot, git says %s", got, want)
	}
	b, err := v.Read(ctx, "b/d/z.md", "")
	if err != nil || string(b.Content) != "z by hand\n" {
		t.Errorf("read after refresh: %q %v", b.Content, err)
	}
}
