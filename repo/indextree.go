package repo

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// switchSettle is how long git's index, written by git for a whole other tree than
// HEAD's, is taken for a checkout under way (see indexForOtherTree). A `git switch`
// renames its new index into place and then moves HEAD: between the two, a few
// milliseconds, the working tree is the other branch's while HEAD names this one.
// Left that way longer (git reset --soft, git read-tree), the index is a person's
// staged work, and hand edits are taken in again.
const switchSettle = 2 * time.Second

// indexTreeSeen caches what indexForOtherTree read from one version of git's index.
type indexTreeSeen struct {
	stamp fileStamp
	root  hash
	valid bool
}

// indexForOtherTree returns a *BusyError (Locked: it passes in a moment) while
// git's index was written less than switchSettle ago, by git, for a whole tree
// other than the one HEAD's branch holds: the root of its cache tree (the TREE
// extension, which git writes in full at a checkout, a switch, a reset and a
// commit, and invalidates at the first git add) is valid and not HEAD's tree.
// Norn's own index writes carry no cache tree, so they never match.
func (v *Vault) indexForOtherTree() error {
	fi, err := os.Stat(filepath.Join(v.gitDir, "index"))
	if err != nil || time.Since(fi.ModTime()) >= switchSettle {
		return nil
	}
	st := stampOf(fi)
	seen := v.treeSeen.Load()
	if seen == nil || seen.stamp != st {
		b, err := os.ReadFile(filepath.Join(v.gitDir, "index"))
		if err != nil {
			return nil
		}
		seen = &indexTreeSeen{stamp: st}
		seen.root, seen.valid = indexTreeRoot(b)
		v.treeSeen.Store(seen)
	}
	if !seen.valid {
		return nil
	}
	tree, err := v.branchTree()
	if err != nil || tree == seen.root {
		return err
	}
	return &BusyError{Locked: true, Reason: "git is checking out another tree (its index holds another tree than HEAD's, written " +
		time.Since(fi.ModTime()).Round(time.Millisecond).String() + " ago): wait for it to finish"}
}

// branchTree returns the root tree of the branch's tip (the empty tree's id for an
// unborn branch).
func (v *Vault) branchTree() (hash, error) {
	tip, err := readRef(v.gitDir, v.branch)
	if err != nil {
		return zeroHash, err
	}
	if snap := v.snap.Load(); snap != nil && snap.commit == tip && snap.root != nil && !snap.root.id.isZero() {
		return snap.root.id, nil
	}
	if tip.isZero() {
		return objectID("tree", nil), nil
	}
	c, err := v.readCommit(tip)
	if err != nil {
		return zeroHash, err
	}
	return c.tree, nil
}

// indexTreeRoot returns the root tree id of an index file's cache tree (TREE
// extension) and whether it is there and valid. It reads index versions 2 to 4,
// skipping the entries without decoding them; anything it does not understand is
// "no valid root".
func indexTreeRoot(b []byte) (hash, bool) {
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return zeroHash, false
	}
	ver := binary.BigEndian.Uint32(b[4:])
	if ver < 2 || ver > 4 {
		return zeroHash, false
	}
	n := binary.BigEndian.Uint32(b[8:])
	end := len(b) - 20
	off := 12
	for range n {
		if off+62 > end {
			return zeroHash, false
		}
		flags := binary.BigEndian.Uint16(b[off+60:])
		hdr := 62
		if flags&0x4000 != 0 && ver >= 3 {
			hdr += 2
		}
		if off+hdr > end {
			return zeroHash, false
		}
		if ver == 4 {
			// A varint (bytes to drop from the previous name), then the rest of
			// the name, NUL-terminated; no padding.
			p := off + hdr
			for p < end && b[p]&0x80 != 0 {
				p++
			}
			p++
			i := bytes.IndexByte(b[min(p, end):end], 0)
			if i < 0 {
				return zeroHash, false
			}
			off = p + i + 1
			continue
		}
		nl := int(flags & 0xfff)
		if nl == 0xfff {
			i := bytes.IndexByte(b[off+hdr:end], 0)
			if i < 0 {
				return zeroHash, false
			}
			nl = i
		}
		off += (hdr + nl + 8) &^ 7
	}
	for off+8 <= end {
		sig := string(b[off : off+4])
		size := int(binary.BigEndian.Uint32(b[off+4:]))
		if size < 0 || size > end-off-8 {
			return zeroHash, false
		}
		if sig == "TREE" {
			return cacheTreeRoot(b[off+8 : off+8+size])
		}
		off += 8 + size
	}
	return zeroHash, false
}

// cacheTreeRoot reads the first entry of a TREE extension, the root's: an empty
// path, NUL, its entry count in ASCII (-1: invalidated), a space, its number of
// subtrees, a newline, and, when valid, its tree id.
func cacheTreeRoot(d []byte) (hash, bool) {
	if len(d) == 0 || d[0] != 0 {
		return zeroHash, false
	}
	sp := bytes.IndexByte(d, ' ')
	nl := bytes.IndexByte(d, '\n')
	if sp < 1 || nl < sp {
		return zeroHash, false
	}
	count, err := strconv.Atoi(string(d[1:sp]))
	if err != nil || count < 0 {
		return zeroHash, false
	}
	if _, err := strconv.Atoi(string(d[sp+1 : nl])); err != nil || len(d) < nl+1+20 {
		return zeroHash, false
	}
	var id hash
	copy(id[:], d[nl+1:nl+21])
	return id, true
}
