package repo

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// packGit runs git in dir with a pinned identity and clock.
func packGit(t testing.TB, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x",
		"GIT_AUTHOR_DATE=2026-12-01T12:00:00Z", "GIT_COMMITTER_DATE=2026-12-01T12:00:00Z")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb.Bytes())
	}
	return out.Bytes()
}

// packHistory makes a repository whose notes change over many commits, so that a
// repack stores most versions as deltas: small notes edited line by line, a
// 300 KB note (copies of more than 64 KB), a binary file.
func packHistory(t testing.TB) string {
	dir := t.TempDir()
	packGit(t, dir, "init", "-q", "-b", "main")
	big := bytes.Repeat([]byte("a line of the long note that repeats itself\n"), 7000)
	for rev := range 12 {
		for i := range 15 {
			var b strings.Builder
			fmt.Fprintf(&b, "---\ntitle: Note %d\n---\n# Note %d\n", i, i)
			for l := range 40 {
				fmt.Fprintf(&b, "line %d of note %d, said at revision %d\n", l, i, rev*(l%3))
			}
			p := filepath.Join(dir, fmt.Sprintf("f%d", i%3), fmt.Sprintf("n%02d.md", i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		big = append(big[:len(big)/2:len(big)/2], append([]byte(fmt.Sprintf("inserted at %d\n", rev)), big[len(big)/2:]...)...)
		os.WriteFile(filepath.Join(dir, "big.md"), big, 0o644)
		bin := make([]byte, 5000)
		for i := range bin {
			bin[i] = byte(i*7 + rev)
		}
		os.WriteFile(filepath.Join(dir, "img.bin"), bin, 0o644)
		packGit(t, dir, "add", "-A")
		packGit(t, dir, "commit", "-q", "-m", fmt.Sprintf("rev %d", rev))
	}
	return dir
}

type gitObject struct {
	typ  string
	data []byte
}

// allObjects reads every object of the repository with git cat-file.
func allObjects(t testing.TB, dir string) map[hash]gitObject {
	out := packGit(t, dir, "cat-file", "--batch-all-objects", "--batch")
	r := bufio.NewReader(bytes.NewReader(out))
	objs := map[hash]gitObject{}
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("cat-file: %q", line)
		}
		id, ok := parseHash(f[0])
		size, err := strconv.Atoi(f[2])
		if !ok || err != nil {
			t.Fatalf("cat-file: %q", line)
		}
		data := make([]byte, size+1)
		if _, err := io.ReadFull(r, data); err != nil {
			t.Fatal(err)
		}
		objs[id] = gitObject{f[1], data[:size]}
	}
	return objs
}

// packKinds counts the object kinds stored in the repository's packs.
func packKinds(t testing.TB, ps *packSet) map[byte]int {
	kinds := map[byte]int{}
	for _, p := range ps.packs {
		for i := range p.count {
			off, ok := p.offset(i)
			if !ok {
				t.Fatalf("pack %s: entry %d has no offset", p.name, i)
			}
			k, _, err := readPackHeader(bufio.NewReader(io.NewSectionReader(p.f, off, 64)))
			if err != nil {
				t.Fatal(err)
			}
			kinds[k]++
		}
	}
	return kinds
}

// TestPackSet_MatchesGit reads every object of repacked repositories (deltas by
// offset, deltas by id, deep chains) from several goroutines and compares each
// with git cat-file.
func TestPackSet_MatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, tc := range []struct {
		name  string
		args  []string
		delta byte
	}{
		{"ofs-delta", []string{"repack", "-adfq", "--depth=50", "--window=50"}, packOfsDelta},
		{"ref-delta", []string{"-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq", "--depth=50", "--window=50"}, packRefDelta},
		{"deep-chains", []string{"repack", "-adfq", "--depth=4000", "--window=250"}, packOfsDelta},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := packHistory(t)
			packGit(t, dir, tc.args...)
			packGit(t, dir, "prune-packed")
			want := allObjects(t, dir)
			s := newObjectStore(filepath.Join(dir, ".git"))
			defer s.close()
			if len(s.packs.packs) != 1 {
				t.Fatalf("%d packs, want 1", len(s.packs.packs))
			}
			if k := packKinds(t, s.packs); k[tc.delta] < len(want)/3 {
				t.Fatalf("only %d of %d objects are deltas of kind %d: %v", k[tc.delta], len(want), tc.delta, k)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n := 0
					for id, w := range want {
						if n++; n%4 != g {
							continue
						}
						typ, data, err := s.read(id)
						if err != nil || typ != w.typ || !bytes.Equal(data, w.data) {
							errs <- fmt.Errorf("object %s: %s %d bytes, %v; git says %s %d bytes", id, typ, len(data), err, w.typ, len(w.data))
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			// A missing object is not found, by packs and go-git alike.
			if _, _, err := s.read(objectID("blob", []byte("nowhere"))); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Errorf("missing object: %v", err)
			}
		})
	}
}

// TestPackSet_Refresh: packs written by an outside git after the store opened,
// and packs that replace others, are found; reads of a loose object that a gc
// packed meanwhile still succeed.
func TestPackSet_Refresh(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := packHistory(t)
	s := newObjectStore(filepath.Join(dir, ".git"))
	defer s.close()
	want := allObjects(t, dir)
	check := func(when string) {
		t.Helper()
		for id, w := range want {
			typ, data, err := s.read(id)
			if err != nil || typ != w.typ || !bytes.Equal(data, w.data) {
				t.Fatalf("%s: object %s: %s, %v", when, id, typ, err)
			}
		}
	}
	check("loose")
	packGit(t, dir, "repack", "-adq")
	packGit(t, dir, "prune-packed")
	check("packed after opening")
	os.WriteFile(filepath.Join(dir, "new.md"), []byte("new\n"), 0o644)
	packGit(t, dir, "add", "-A")
	packGit(t, dir, "commit", "-q", "-m", "new")
	packGit(t, dir, "repack", "-adfq")
	packGit(t, dir, "prune-packed")
	want = allObjects(t, dir)
	check("repacked into a new pack")
	if n := len(s.packs.packs); n != 1 {
		t.Errorf("%d packs open, want 1 (the replaced one closed)", n)
	}
}

// TestPackSet_RefreshIndexBeforePack: a fetch puts a pack's index in place, then
// the pack (go-git's order). A refresh between the two cannot open the pack; a
// later one must, though the names in the folder are the same.
func TestPackSet_RefreshIndexBeforePack(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := packHistory(t)
	packGit(t, dir, "repack", "-adq")
	packGit(t, dir, "prune-packed")
	packDir := filepath.Join(dir, ".git", "objects", "pack")
	packs, _ := filepath.Glob(filepath.Join(packDir, "pack-*.pack"))
	if len(packs) != 1 {
		t.Fatalf("%d packs", len(packs))
	}
	want := allObjects(t, dir)
	if len(want) == 0 {
		t.Fatal("no objects")
	}
	aside := filepath.Join(t.TempDir(), "pack")
	if err := os.Rename(packs[0], aside); err != nil {
		t.Fatal(err)
	}
	s := newObjectStore(filepath.Join(dir, ".git"))
	defer s.close()
	var id hash
	for id = range want {
		break
	}
	if _, _, err := s.read(id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read with the pack away: %v", err)
	}
	if err := os.Rename(aside, packs[0]); err != nil {
		t.Fatal(err)
	}
	for id, w := range want {
		typ, data, err := s.read(id)
		if err != nil || typ != w.typ || !bytes.Equal(data, w.data) {
			t.Fatalf("object %s after the pack arrived: %s, %v", id, typ, err)
		}
	}
}

// TestParsePackIndex_LargeOffsets: offsets beyond 2 GiB live in the index's
// 8-byte table.
func TestParsePackIndex_LargeOffsets(t *testing.T) {
	ids := []hash{{0x01}, {0x01, 0x02}, {0xff, 0xee}}
	offs := []uint64{12, 5 << 30, 40}
	idx := packIndexBytes(ids, offs)
	p, err := parsePackIndex(idx)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if off, ok := p.find(id); !ok || uint64(off) != offs[i] {
			t.Errorf("find %x: %d %v, want %d", id[:2], off, ok, offs[i])
		}
	}
	if _, ok := p.find(hash{0x01, 0x01}); ok {
		t.Error("found an id that is not there")
	}
	for _, bad := range [][]byte{idx[:len(idx)-1], idx[:100], append([]byte("\xfftOc\x00\x00\x00\x01"), idx[8:]...)} {
		if _, err := parsePackIndex(bad); err == nil {
			t.Errorf("parsed a damaged index of %d bytes", len(bad))
		}
	}
}

// packIndexBytes builds a version 2 pack index of sorted ids (checksums zero).
func packIndexBytes(ids []hash, offs []uint64) []byte {
	b := []byte("\xfftOc\x00\x00\x00\x02")
	var fan [256]uint32
	for _, id := range ids {
		for k := int(id[0]); k < 256; k++ {
			fan[k]++
		}
	}
	for _, n := range fan {
		b = binary.BigEndian.AppendUint32(b, n)
	}
	for _, id := range ids {
		b = append(b, id[:]...)
	}
	b = append(b, make([]byte, 4*len(ids))...) // CRCs
	var large []byte
	for _, o := range offs {
		if o < 1<<31 {
			b = binary.BigEndian.AppendUint32(b, uint32(o))
			continue
		}
		b = binary.BigEndian.AppendUint32(b, 1<<31|uint32(len(large)/8))
		large = binary.BigEndian.AppendUint64(large, o)
	}
	b = append(b, large...)
	return append(b, make([]byte, 40)...)
}

func TestApplyDelta(t *testing.T) {
	base := bytes.Repeat([]byte("0123456789"), 10000) // 100,000 bytes
	delta := binary.AppendUvarint(nil, uint64(len(base)))
	delta = binary.AppendUvarint(delta, 0x10000+3+10)
	delta = append(delta, 0x80|0x01|0x02, 0x10, 0x00) // copy 0x10000 bytes (size 0) from offset 16
	delta = append(delta, 3, 'a', 'b', 'c')           // insert "abc"
	delta = append(delta, 0x80|0x01|0x10, 0x05, 10)   // copy 10 bytes from offset 5
	got, err := applyDelta(base, delta)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append(append([]byte{}, base[16:16+0x10000]...), "abc"...), base[5:15]...)
	if !bytes.Equal(got, want) {
		t.Fatalf("delta applied wrong: %d bytes", len(got))
	}
	for name, d := range map[string][]byte{
		"other base":   append(binary.AppendUvarint(nil, 5), 1, 1, 'x'),
		"opcode 0":     append(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(len(base))), 1), 0),
		"copy too far": append(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(len(base))), 10), 0x80|0x08|0x10, 0xff, 10),
		"short":        append(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(len(base))), 10), 2, 'x', 'y'),
	} {
		if _, err := applyDelta(base, d); err == nil {
			t.Errorf("%s: applied", name)
		}
	}
}

// FuzzApplyDelta: applying any delta never panics and never yields other than
// the size the delta declares.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("base"), append(binary.AppendUvarint(binary.AppendUvarint(nil, 4), 6), 0x80|0x01|0x10, 0, 4, 2, 'x', 'y'))
	f.Add([]byte(""), []byte{0, 1, 1, 'a'})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta)
		if err != nil {
			return
		}
		_, n := binary.Uvarint(delta)
		if want, _ := binary.Uvarint(delta[n:]); uint64(len(out)) != want {
			t.Fatalf("%d bytes, delta says %d", len(out), want)
		}
	})
}

// FuzzPackIndex: parsing any index never panics, and looking ids up in what
// parses never panics either.
func FuzzPackIndex(f *testing.F) {
	f.Add(packIndexBytes([]hash{{1}, {1, 2}, {0xff}}, []uint64{12, 5 << 30, 40}))
	f.Add([]byte("\xfftOc\x00\x00\x00\x02"))
	f.Add(append(make([]byte, 1020), append([]byte{0, 0, 0, 1}, make([]byte, 64)...)...)) // version 1, one object
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parsePackIndex(b)
		if err != nil {
			return
		}
		for _, id := range []hash{{}, {1}, {1, 2}, {0xff, 0xff}} {
			p.find(id)
		}
		for i := range min(p.count, 64) {
			p.offset(i)
		}
	})
}

// FuzzPackEntry: reading an object from any pack bytes never panics; a damaged
// entry is an error.
func FuzzPackEntry(f *testing.F) {
	// A real entry: a blob "hello\n", zlib-compressed.
	f.Add([]byte{0x36, 0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xe7, 0x02, 0x00, 0x08, 0x4b, 0x02, 0x1f})
	f.Add([]byte{0x65, 0x0c})
	f.Add([]byte{0x75})
	f.Fuzz(func(t *testing.T, entry []byte) {
		dir := t.TempDir()
		data := []byte("PACK\x00\x00\x00\x02\x00\x00\x00\x01")
		data = append(append(data, entry...), make([]byte, 20)...)
		id := hash{0x42}
		os.WriteFile(filepath.Join(dir, "pack-x.pack"), data, 0o644)
		os.WriteFile(filepath.Join(dir, "pack-x.idx"), packIndexBytes([]hash{id}, []uint64{12}), 0o644)
		p, err := openPack(dir, "pack-x")
		if err != nil {
			t.Fatal(err)
		}
		defer p.f.Close()
		ps := &packSet{dir: dir, packs: []*pack{p}, bases: baseCache{max: 1 << 20}}
		ps.read(id, func(hash) (string, []byte, error) { return "", nil, fs.ErrNotExist })
	})
}

// TestPackSet_IndexVersion1: a pack with an index of version 1 (which go-git
// cannot read) reads back every object as git has it.
func TestPackSet_IndexVersion1(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := packHistory(t)
	packGit(t, dir, "repack", "-adq")
	packGit(t, dir, "prune-packed")
	idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("%d pack indexes", len(idxs))
	}
	os.Remove(idxs[0])
	packGit(t, dir, "index-pack", "--index-version=1", strings.TrimSuffix(idxs[0], ".idx")+".pack")
	if b, _ := os.ReadFile(idxs[0]); len(b) < 4 || string(b[:4]) == "\xfftOc" {
		t.Fatal("git did not write a version 1 index")
	}
	want := allObjects(t, dir)
	s := newObjectStore(filepath.Join(dir, ".git"))
	defer s.close()
	if len(s.packs.packs) != 1 {
		t.Fatalf("%d packs read directly, want 1", len(s.packs.packs))
	}
	for id, w := range want {
		typ, data, err := s.read(id)
		if err != nil || typ != w.typ || !bytes.Equal(data, w.data) {
			t.Fatalf("object %s: %s, %v", id, typ, err)
		}
	}
}

// TestStoredEntry_ZlibReadsIt: a stored entry's body is a valid zlib stream for
// empty, small and multi-block (over 64 KiB) objects.
func TestStoredEntry_ZlibReadsIt(t *testing.T) {
	for _, n := range []int{0, 1, 3000, 65535, 65536, 200000} {
		data := bytes.Repeat([]byte("tree entry \x00\x01\x02"), n/14+1)[:n]
		raw := storedEntry("tree", data)
		hdr := appendEntryHeader(nil, packTree, n)
		if !bytes.Equal(raw[:len(hdr)], hdr) {
			t.Fatalf("%d bytes: bad entry header", n)
		}
		zr, err := zlib.NewReader(bytes.NewReader(raw[len(hdr):]))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read back %d bytes, %v", n, len(got), err)
		}
	}
}
