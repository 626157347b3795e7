package remote

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Before a fetch, Fetch undoes what an older version's fetch left when it was
// killed (gitFS says how): pack indexes that are not whole, and a tracking ref
// that is empty or names a commit the vault lacks. go-git would send such a ref
// to the remote as a commit the vault has, and the remote would not send it.

// repairIndexes checks every pack index in the pack folder and replaces one that
// is not whole: rebuilt from its pack when the pack is in place, removed when it
// is not (the next fetch brings the pack again) or cannot be read (the pack stays
// for `git index-pack`; git, Norn and gitFS ignore a pack without its index).
// Norn, git and gitFS write an index whole under a temporary name, so one that is
// not whole is a crash's leftover, never a write in progress.
func (r *Remotes) repairIndexes(ctx context.Context) {
	dir := filepath.Join(r.gitDir, "objects", "pack")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok || !strings.HasPrefix(name, "pack-") {
			continue
		}
		bad := indexFault(dir, name)
		if bad == nil {
			continue
		}
		err := rebuildIndex(dir, name)
		if err != nil {
			os.Remove(filepath.Join(dir, name+".idx"))
		}
		r.opts.Logger.WarnContext(ctx, "repaired a pack index a crash left", "pack", name, "fault", bad.Error(),
			"rebuilt", err == nil, "err", err)
	}
}

// indexFault says why the index of pack name is not whole (nil when it is): its
// size must match its object count and its trailer name the pack, and the pack,
// in place, must hold as many objects. It reads the index's head and trailer only.
func indexFault(dir, name string) error {
	f, err := os.Open(filepath.Join(dir, name+".idx"))
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	var head [8 + 256*4]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return fmt.Errorf("head: %w", err)
	}
	v2 := string(head[:4]) == "\xfftOc"
	fan := head[:1024]
	if v2 {
		fan = head[8:]
	}
	n := int64(binary.BigEndian.Uint32(fan[1020:]))
	switch {
	case v2 && binary.BigEndian.Uint32(head[4:]) != 2:
		return errors.New("unknown version")
	case v2 && (size < 8+1024+28*n+40 || (size-8-1024-28*n-40)%8 != 0):
		return fmt.Errorf("size %d for %d objects", size, n)
	case !v2 && size != 1024+24*n+40:
		return fmt.Errorf("size %d for %d objects", size, n)
	}
	var sum [20]byte
	if _, err := f.ReadAt(sum[:], size-40); err != nil {
		return fmt.Errorf("trailer: %w", err)
	}
	if hex.EncodeToString(sum[:]) != strings.TrimPrefix(name, "pack-") {
		return errors.New("trailer names another pack")
	}
	pf, err := os.Open(filepath.Join(dir, name+".pack"))
	if errors.Is(err, os.ErrNotExist) {
		return nil // the index came first; the pack is on its way, or gone
	}
	if err != nil {
		return err
	}
	defer pf.Close()
	var ph [12]byte
	if _, err := pf.ReadAt(ph[:], 0); err != nil || string(ph[:4]) != "PACK" || int64(binary.BigEndian.Uint32(ph[8:])) != n {
		return errors.New("the pack does not match")
	}
	return nil
}

// rebuildIndex indexes pack name again from its data, as go-git's fetch does,
// and puts the index in place whole.
func rebuildIndex(dir, name string) error {
	f, err := os.Open(filepath.Join(dir, name+".pack"))
	if err != nil {
		return err
	}
	defer f.Close()
	w := new(idxfile.Writer)
	p, err := packfile.NewParser(packfile.NewScanner(f), w)
	if err != nil {
		return err
	}
	sum, err := p.Parse()
	if err != nil {
		return err
	}
	if "pack-"+sum.String() != name {
		return fmt.Errorf("the pack's checksum is %s", sum)
	}
	idx, err := w.Index()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := idxfile.NewEncoder(&buf).Encode(idx); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, tempPrefix)
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, &buf)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name+".idx"))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// checkTracking removes the tracking ref name when its file is empty or it names
// a commit the vault lacks: it is only the remote's tip as last fetched, which
// the fetch writes again. It returns the ref as it stays (nil: none).
func (r *Remotes) checkTracking(ctx context.Context, st *filesystem.Storage, name plumbing.ReferenceName) (*plumbing.Reference, error) {
	loose := filepath.Join(r.gitDir, filepath.FromSlash(name.String()))
	if fi, err := os.Stat(loose); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
		// go-git fails every fetch on an empty ref file (it lists them all).
		r.opts.Logger.WarnContext(ctx, "removed an empty tracking ref a crash left", "ref", name.String())
		if err := os.Remove(loose); err != nil {
			return nil, fmt.Errorf("remove %s: %w", name, err)
		}
	}
	ref, err := st.Reference(name)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	_, err = st.EncodedObject(plumbing.CommitObject, ref.Hash())
	if err == nil {
		return ref, nil
	}
	if !errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, err
	}
	r.opts.Logger.WarnContext(ctx, "removed a tracking ref naming no commit of the vault", "ref", name.String(), "commit", ref.Hash().String())
	if err := st.RemoveReference(name); err != nil {
		return nil, fmt.Errorf("remove %s: %w", name, err)
	}
	return nil, nil
}
