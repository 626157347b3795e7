package remote

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

func TestGitFS_CreateWhole(t *testing.T) {
	dir := t.TempDir()
	fs := gitFS{osfs.New(dir)}
	for _, name := range []string{"objects/pack/pack-1.idx", "refs/remotes/origin/main"} {
		f, err := fs.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("part")); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Fatalf("%s: in place before Close (%v)", name, err)
		}
		if f.Name() != name {
			t.Fatalf("Name() = %q, want %q", f.Name(), name)
		}
		f.Write([]byte("whole"))
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != "partwhole" {
			t.Fatalf("%s: %q, %v", name, b, err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", tempPrefix+"*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	// Any other file is created in place.
	f, err := fs.Create("config")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "config")); err != nil {
		t.Fatalf("config not created in place: %v", err)
	}
	f.Close()
}

func TestGitFS_ReadDirHidesPackWithoutIndex(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "objects", "pack")
	if err := os.MkdirAll(pack, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"pack-a.pack", "pack-a.idx", "pack-b.pack", "pack-c.idx", "tmp_pack_1"} {
		if err := os.WriteFile(filepath.Join(pack, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs := gitFS{osfs.New(dir)}
	infos, err := fs.ReadDir("objects/pack")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fi := range infos {
		got = append(got, fi.Name())
	}
	slices.Sort(got)
	if want := []string{"pack-a.idx", "pack-a.pack", "pack-c.idx", "tmp_pack_1"}; !slices.Equal(got, want) {
		t.Fatalf("ReadDir = %v, want %v", got, want)
	}
	if infos, _ := fs.ReadDir("objects"); len(infos) != 1 {
		t.Fatalf("ReadDir(objects) = %d entries", len(infos))
	}
}

func TestGitFS_ReadDirHidesRefLocks(t *testing.T) {
	dir := t.TempDir()
	heads := filepath.Join(dir, "refs", "heads")
	if err := os.MkdirAll(heads, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"main", "main.lock", "x.lock.d"} {
		if err := os.WriteFile(filepath.Join(heads, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	infos, err := gitFS{osfs.New(dir)}.ReadDir("refs/heads")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fi := range infos {
		got = append(got, fi.Name())
	}
	slices.Sort(got)
	if want := []string{"main", "x.lock.d"}; !slices.Equal(got, want) {
		t.Fatalf("ReadDir = %v, want %v", got, want)
	}
}

// TestGitFS_RefWhole: go-git writes a ref through Create (no temporary file left
// in refs/, where it would read as a ref).
func TestGitFS_RefWhole(t *testing.T) {
	dir := t.TempDir()
	fs := osfs.New(dir)
	st := filesystem.NewStorageWithOptions(gitFS{fs}, cache.NewObjectLRUDefault(), filesystem.Options{AlternatesFS: fs})
	name := plumbing.NewRemoteReferenceName("origin", "main")
	file := filepath.Join(dir, "refs", "remotes", "origin", "main")
	var prev os.FileInfo
	for _, h := range []string{strings.Repeat("1", 40), strings.Repeat("2", 40)} {
		if err := st.SetReference(plumbing.NewHashReference(name, plumbing.NewHash(h))); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(file); err != nil || strings.TrimSpace(string(b)) != h {
			t.Fatalf("ref file %q, %v", b, err)
		}
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil && os.SameFile(prev, fi) {
			t.Fatal("the ref was rewritten in place, not replaced whole")
		}
		prev = fi
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "refs", "remotes", "origin"))
	if len(ents) != 1 {
		t.Fatalf("refs/remotes/origin holds %d files", len(ents))
	}
}
