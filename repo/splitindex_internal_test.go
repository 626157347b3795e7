package repo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEWAH_RoundTrip: bitmaps of random positions (dense runs, long gaps, none)
// decode to the positions encoded.
func TestEWAH_RoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := [][]uint32{nil, {0}, {63}, {64}, {0, 1, 2, 3, 64, 65, 200000}, {5, 1 << 30}}
	for range 200 {
		var ps []uint32
		p := uint32(0)
		for range rng.IntN(300) {
			switch rng.IntN(3) {
			case 0:
				p += 1
			case 1:
				p += uint32(rng.IntN(64))
			default:
				p += uint32(rng.IntN(100000))
			}
			if len(ps) == 0 || ps[len(ps)-1] != p {
				ps = append(ps, p)
			}
		}
		cases = append(cases, ps)
	}
	for _, want := range cases {
		b := appendEWAH(nil, want)
		got, n, err := readEWAH(b, math.MaxUint32)
		if err != nil || n != len(b) || !slices.Equal(got, want) {
			t.Fatalf("round trip of %v: %v (%d of %d bytes, %v)", want, got, n, len(b), err)
		}
		if len(want) > 0 {
			last := int(want[len(want)-1])
			if _, _, err := readEWAH(b, last); err == nil {
				t.Fatalf("bitmap %v read with limit %d: no error", want, last)
			}
		}
	}
	// A run word of ones spanning 2^32-1 words is refused, not expanded.
	b := binary.BigEndian.AppendUint32(nil, 64)
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint64(b, 0xffffffff<<1|1)
	b = binary.BigEndian.AppendUint32(b, 0)
	if _, _, err := readEWAH(b, 1000); err == nil {
		t.Fatal("a run of 2^38 ones past 1000 entries: no error")
	}
}

// FuzzReadEWAH: decoding any bytes never panics, yields only ascending positions
// below the limit, and what decodes re-encodes to the same positions.
func FuzzReadEWAH(f *testing.F) {
	f.Add(appendEWAH(nil, []uint32{0, 1, 2, 64, 200}))
	f.Add(appendEWAH(nil, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		const limit = 1 << 16
		ps, n, err := readEWAH(b, limit)
		if err != nil {
			return
		}
		if n > len(b) {
			t.Fatalf("length %d of %d bytes", n, len(b))
		}
		for i, p := range ps {
			if p >= limit || (i > 0 && p <= ps[i-1]) {
				t.Fatalf("positions %v: bad at %d", ps, i)
			}
		}
		got, _, err := readEWAH(appendEWAH(nil, ps), limit)
		if err != nil || !slices.Equal(got, ps) {
			t.Fatalf("re-encoding %v: %v, %v", ps, got, err)
		}
	})
}

// FuzzDecodeIndex: decoding any bytes as git's index (the checksum made to match,
// so the fuzzer reaches the entries) never panics; an index that decodes
// re-encodes (plain, version 2) to one that decodes to the same entries.
func FuzzDecodeIndex(f *testing.F) {
	x := &gitIndex{}
	for _, name := range []string{"a.md", "b/c.md", strings.Repeat("d", 5000) + ".md"} {
		x.set(idxEntry{name: name, mode: 0o100644, size: 3})
	}
	enc := x.encode()
	f.Add(enc[:len(enc)-20])
	f.Add([]byte("DIRC\x00\x00\x00\x03\x00\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		sum := sha1.Sum(b)
		entries, _, err := decodeIndex(append(b[:len(b):len(b)], sum[:]...))
		if err != nil {
			return
		}
		y := &gitIndex{}
		for _, e := range entries {
			if e.stage == 0 && e.name != "" {
				y.set(e)
			}
		}
		again, _, err := decodeIndex(y.encode())
		if err != nil {
			t.Fatalf("re-encoded index: %v", err)
		}
		if len(again) != len(y.entries) {
			t.Fatalf("re-encoded index: %d entries, want %d", len(again), len(y.entries))
		}
		for i := range again {
			if again[i].name != y.entries[i].name || again[i].id != y.entries[i].id {
				t.Fatalf("re-encoded entry %d: %q, want %q", i, again[i].name, y.entries[i].name)
			}
		}
	})
}

// TestGitIndex_SplitDiffIncremental: the split index encoded from the difference
// kept up to date write by write equals the one encoded from scratch (every name
// compared with the shared index), over random puts, stat refreshes and removals.
func TestGitIndex_SplitDiffIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	name := func(i int) string { return fmt.Sprintf("f%02d/n%04d.md", i%13, i) }
	x := &gitIndex{split: true}
	for i := range 1200 {
		x.set(idxEntry{name: name(i), mode: 0o100644, size: uint32(i)})
	}
	sh := &sharedIndex{entries: append([]idxEntry(nil), x.entries...)}
	sh.id[0] = 1
	x.shared, x.stale = sh, nil
	for step := range 2000 {
		switch i := rng.IntN(1500); rng.IntN(4) {
		case 0:
			x.remove(name(i))
		case 1:
			if j, ok := x.find(name(i)); ok {
				x.entries[j].mtimeS = uint32(step)
				x.touch(name(i))
			}
		default:
			x.set(idxEntry{name: name(i), mode: 0o100644, size: uint32(rng.IntN(3))})
		}
		if rng.IntN(5) != 0 {
			continue
		}
		x.refreshDiff(sh)
		got := encodeSplit(nil, sh, x.diff, x.added)
		fresh := &gitIndex{split: true, entries: x.entries, stale: map[string]struct{}{}}
		for _, e := range x.entries {
			fresh.stale[e.name] = struct{}{}
		}
		for _, e := range sh.entries {
			fresh.stale[e.name] = struct{}{}
		}
		fresh.refreshDiff(sh)
		if want := encodeSplit(nil, sh, fresh.diff, fresh.added); !bytes.Equal(got, want) {
			t.Fatalf("step %d: incremental split index (%d bytes) differs from scratch (%d bytes)", step, len(got), len(want))
		}
	}
}

// TestLoadGitIndex_KeepsSharedIndex: reloading .git/index after git changed only
// its split part (git add, as a hand commit does) takes the decoded shared index
// of the previous load again instead of decoding its file, and gives what a load
// from scratch gives; once git writes a new shared index, that one is read.
func TestLoadGitIndex_KeepsSharedIndex(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q")
	for i := range 40 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%02d.md", i)), []byte(fmt.Sprintf("note %d\n", i)), 0o644)
	}
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "update-index", "--split-index")
	gitIn(t, dir, "commit", "-q", "-m", "start")
	gitDir := filepath.Join(dir, ".git")
	same := func(step string, got *gitIndex) {
		t.Helper()
		want, err := loadGitIndex(gitDir, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.entries, want.entries) || !maps.Equal(got.stale, want.stale) || got.shared.id != want.shared.id {
			t.Fatalf("%s: the reload differs from a load from scratch", step)
		}
	}
	first, err := loadGitIndex(gitDir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.shared == nil || len(first.shared.entries) != 40 {
		t.Fatalf("no split index with 40 shared entries: %+v", first.shared)
	}

	os.WriteFile(filepath.Join(dir, "n03.md"), []byte("changed by hand\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "new.md"), []byte("new by hand\n"), 0o644)
	gitIn(t, dir, "add", "n03.md", "new.md")
	gitIn(t, dir, "rm", "-q", "n07.md")
	gitIn(t, dir, "commit", "-q", "-m", "by hand")
	again, err := loadGitIndex(gitDir, false, first)
	if err != nil {
		t.Fatal(err)
	}
	if again.shared.id != first.shared.id || &again.shared.entries[0] != &first.shared.entries[0] {
		t.Fatal("the shared index, unchanged, was decoded again")
	}
	same("split part changed", again)
	if _, ok := again.find("n07.md"); ok {
		t.Fatal("n07.md, removed by git rm, is in the reloaded index")
	}

	gitIn(t, dir, "-c", "splitIndex.maxPercentChange=0", "add", "-A")
	os.WriteFile(filepath.Join(dir, "n05.md"), []byte("changed again\n"), 0o644)
	gitIn(t, dir, "-c", "splitIndex.maxPercentChange=0", "add", "n05.md")
	third, err := loadGitIndex(gitDir, false, again)
	if err != nil {
		t.Fatal(err)
	}
	if third.shared.id == again.shared.id {
		t.Fatal("git wrote no new shared index: the test proves nothing")
	}
	same("new shared index", third)
}
