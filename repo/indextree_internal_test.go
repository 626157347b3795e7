package repo

import (
	"crypto/sha1"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestIndexTreeRoot_AgreesWithGit: for index versions 2, 3 and 4, split or not,
// the cache tree root read from git's own index is the tree git checked out, and
// none once git add invalidates it.
func TestIndexTreeRoot_AgreesWithGit(t *testing.T) {
	for _, tc := range []struct{ name, version, split string }{
		{"v2", "2", "false"}, {"v3", "3", "false"}, {"v4", "4", "false"}, {"v4split", "4", "true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			gitIn(t, dir, "init", "-q", "-b", "main")
			gitIn(t, dir, "config", "index.version", tc.version)
			gitIn(t, dir, "config", "core.splitIndex", tc.split)
			for _, p := range []string{"a.md", "d/b.md", "z.md"} {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
				os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644)
			}
			gitIn(t, dir, "add", "-A")
			gitIn(t, dir, "commit", "-q", "-m", "one")
			gitIn(t, dir, "switch", "-q", "-c", "other")
			os.WriteFile(filepath.Join(dir, "d", "c.md"), []byte("c"), 0o644)
			gitIn(t, dir, "add", "-A")
			gitIn(t, dir, "commit", "-q", "-m", "two")
			gitIn(t, dir, "switch", "-q", "main")
			gitIn(t, dir, "switch", "-q", "other")
			b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			root, ok := indexTreeRoot(b)
			if want := gitIn(t, dir, "rev-parse", "other^{tree}"); !ok || root.String() != want {
				t.Fatalf("root %v %v, git checked out %s", root, ok, want)
			}
			os.WriteFile(filepath.Join(dir, "a.md"), []byte("edited"), 0o644)
			gitIn(t, dir, "add", "a.md")
			b, _ = os.ReadFile(filepath.Join(dir, ".git", "index"))
			if root, ok := indexTreeRoot(b); ok {
				t.Fatalf("root %v after git add; want none", root)
			}
			// A name over 4,095 bytes (its length field saturates; the name ends
			// at a NUL), staged without a file, then the whole tree read back.
			long := strings.Repeat("folder-name/", 400) + "x.md"
			gitIn(t, dir, "update-index", "--add", "--cacheinfo", "100644,"+gitIn(t, dir, "rev-parse", "HEAD:a.md")+","+long)
			tree := gitIn(t, dir, "write-tree")
			gitIn(t, dir, "read-tree", tree)
			b, _ = os.ReadFile(filepath.Join(dir, ".git", "index"))
			if root, ok := indexTreeRoot(b); !ok || root.String() != tree {
				t.Fatalf("root %v %v after read-tree %s", root, ok, tree)
			}
		})
	}
}

// withTree appends a TREE extension holding data to an encoded index and fixes its
// checksum.
func withTree(idx []byte, data []byte) []byte {
	b := append([]byte(nil), idx[:len(idx)-20]...)
	b = append(b, "TREE"...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	b = append(b, data...)
	sum := sha1.Sum(b)
	return append(b, sum[:]...)
}

// FuzzIndexTreeRoot: the cache tree reader never panics, and on an index Norn
// encodes it finds no root (Norn writes no cache tree) or exactly the root a TREE
// extension appended to it names.
func FuzzIndexTreeRoot(f *testing.F) {
	x := &gitIndex{}
	x.set(idxEntry{name: "a.md", id: objectID("blob", []byte("a")), mode: modeFile})
	x.set(idxEntry{name: "d/" + strings.Repeat("n", 5000), id: objectID("blob", []byte("b")), mode: modeFile})
	plain := x.encode()
	id := objectID("tree", []byte("t"))
	f.Add(plain, []byte("\x002 1\n"+string(id[:])+"d\x001 0\n"+string(id[:])))
	f.Add(plain, []byte("\x00-1 1\nd\x001 0\n"+string(id[:])))
	f.Add(plain, []byte("\x002 1\nshort"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01"+strings.Repeat("\x00", 60)+"\x00\x01\x00\x80"), []byte(nil))
	f.Fuzz(func(t *testing.T, idx, tree []byte) {
		indexTreeRoot(idx) // any bytes: must not panic
		if len(idx) >= 32 && string(idx[:4]) == "DIRC" {
			indexTreeRoot(withTree(idx, tree))
		}
		// Norn's own encoding: no cache tree, or the one appended.
		if r, ok := indexTreeRoot(plain); ok {
			t.Fatalf("Norn's index has a cache tree root %v", r)
		}
		want, wantOK := cacheTreeRoot(tree)
		got, gotOK := indexTreeRoot(withTree(plain, tree))
		if got != want || gotOK != wantOK {
			t.Fatalf("root of appended %q: %v %v, cacheTreeRoot says %v %v", tree, got, gotOK, want, wantOK)
		}
	})
}
