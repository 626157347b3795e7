package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// FuzzSharedView: the lean reader of a shared index never panics, and where it
// accepts a file that decodeIndex reads too, it finds the same entries in the same
// order, each by its name.
func FuzzSharedView(f *testing.F) {
	x := &gitIndex{}
	for i := range 5 {
		x.entries = append(x.entries, idxEntry{name: fmt.Sprintf("d/n%d.md", i), mode: modeFile, size: uint32(i), id: objectID("blob", []byte{byte(i)})})
	}
	x.entries = append(x.entries, idxEntry{name: string(make([]byte, 5000)), mode: modeFile}) // a long name
	f.Add(x.encode())
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var id hash
		if len(data) >= 20 {
			copy(id[:], data[len(data)-20:])
		}
		v := &sharedView{}
		if err := v.parse(data, id); err != nil {
			return
		}
		for i := range v.offs {
			e := v.entry(i)
			if string(v.nameBytes(i)) != e.name {
				t.Fatalf("entry %d: name %q, decoded %q", i, v.nameBytes(i), e.name)
			}
		}
		entries, _, err := decodeIndex(data)
		if err != nil {
			return
		}
		if len(entries) != len(v.offs) {
			t.Fatalf("%d entries, decodeIndex has %d", len(v.offs), len(entries))
		}
		for i, e := range entries {
			if v.entry(i) != e {
				t.Fatalf("entry %d differs: %+v vs %+v", i, v.entry(i), e)
			}
			if j, ok := v.find(e.name); !ok || entries[j].name != e.name {
				t.Fatalf("find(%q) = %d, %v", e.name, j, ok)
			}
		}
	})
}

// TestVault_LeanReadsOnlyThePath: a lean open's write reads the trees on the
// note's path and the index entries it touches, not the others: the other
// folders stay unread and git's shared index undecoded.
func TestVault_LeanReadsOnlyThePath(t *testing.T) {
	dir := t.TempDir()
	for i := range 1200 {
		p := filepath.Join(dir, fmt.Sprintf("f%02d", i/100), fmt.Sprintf("n%04d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# note %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	owner := Author{Name: "o", Email: "o@x"}
	v, _, err := Init(ctx, dir, InitOptions{Options: Options{Owner: owner}})
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	if v, err = Open(ctx, dir, Options{Owner: owner, Lean: true}); err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	rev := v.Revision("f05/n0500.md")
	if _, err := v.Apply(ctx, Tx{Author: owner, Op: OpWrite, Changes: []Change{{Kind: Put, Path: "f05/n0500.md", Content: []byte("# new\n"), ExpectedRevision: rev}}}); err != nil {
		t.Fatal(err)
	}
	root := v.snap.Load().root
	read := 0
	for _, k := range root.entries() {
		if k.lazy == nil || k.lazy.kids != nil {
			read++
			if k.name != "f05" {
				t.Errorf("folder %s was read", k.name)
			}
		}
	}
	if read != 1 {
		t.Errorf("%d folders read, want 1 (f05)", read)
	}
	v.idxMu.Lock()
	defer v.idxMu.Unlock()
	if v.idx.lean == nil || v.idx.shared == nil || v.idx.shared.view == nil || len(v.idx.entries) > 5 {
		t.Errorf("git's index was read whole (%d entries held)", len(v.idx.entries))
	}
}

// TestNode_LazyUnreadable: a lazy folder whose tree cannot be read lists nothing,
// and a write through it is refused instead of committing the folder as empty.
func TestNode_LazyUnreadable(t *testing.T) {
	gitDir := filepath.Join(t.TempDir(), ".git")
	if err := os.MkdirAll(filepath.Join(gitDir, "objects", "pack"), 0o755); err != nil {
		t.Fatal(err)
	}
	objs := openObjects(gitDir)
	defer objs.close()
	root := objs.lazyFolder("", objectID("tree", []byte("missing")))
	if n := root.lookup("a/b.md"); n != nil {
		t.Fatalf("lookup through an unreadable tree: %+v", n)
	}
	for _, leaf := range []*node{{mode: modeFile, id: objectID("blob", []byte("x"))}, nil} {
		if _, err := root.with("a/b.md", leaf); err == nil {
			t.Fatalf("with (leaf %v) through an unreadable tree passed", leaf != nil)
		}
	}
}
