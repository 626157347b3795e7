package remote

import (
	"os"
	"path"
	"strings"

	"github.com/go-git/go-billy/v5"

	"github.com/norn-vault/norn/repo"
)

// gitFS is the git directory as go-git's storage sees it during a transfer. It
// makes two of go-git's writes crash-safe and hides what a crash leaves:
//
//   - go-git writes a fetched pack's index in place and then renames the pack
//     into place; killed while writing the index, it left a truncated index, and
//     the next fetch of the same pack kept it (the file exists) and moved the
//     tracking ref to commits no reader could find. Create writes the file under
//     a temporary name and renames it into place on Close, so an index (or a
//     ref, which go-git also rewrote in place) is whole or absent.
//   - a pack without its index (a process killed between writing a pack and its
//     index, or between deleting a merged-away pack's index and the pack, as
//     Norn's committer and git repack both do) is invisible to git and to Norn's
//     reader, but go-git listed it and failed to load its index; fetch swallows
//     that error, fetches nothing and still moves the tracking ref. ReadDir of
//     the pack folder leaves such a pack out, as git does.
//   - a ref's lock file (refs/heads/main.lock) is not a ref, but go-git read it
//     as one; empty (its writer killed after creating it), it failed every
//     fetch ("ref file is empty") until a commit took the lock over. ReadDir
//     under refs/ leaves lock files out, as git does.
type gitFS struct {
	billy.Filesystem
}

const packDir = "objects/pack"

// tempPrefix names gitFS's temporary files, which it makes in the pack folder,
// where the vault's open removes those a crash left behind (in refs/ one would
// read as a ref).
const tempPrefix = repo.TempPackPrefix + "gitfs_"

// ReadDir lists a folder; in the pack folder, without the packs that have no
// index beside them; under refs/, without lock files.
func (fs gitFS) ReadDir(p string) ([]os.FileInfo, error) {
	infos, err := fs.Filesystem.ReadDir(p)
	if err != nil {
		return infos, err
	}
	clean := path.Clean(p)
	var skip func(name string) bool
	switch {
	case clean == packDir:
		idx := make(map[string]bool, len(infos)/2)
		for _, fi := range infos {
			if n, ok := strings.CutSuffix(fi.Name(), ".idx"); ok {
				idx[n] = true
			}
		}
		skip = func(name string) bool {
			n, ok := strings.CutSuffix(name, ".pack")
			return ok && !idx[n]
		}
	case clean == "refs" || strings.HasPrefix(clean, "refs/"):
		skip = func(name string) bool { return strings.HasSuffix(name, ".lock") }
	default:
		return infos, nil
	}
	out := infos[:0]
	for _, fi := range infos {
		if !skip(fi.Name()) {
			out = append(out, fi)
		}
	}
	return out, nil
}

// Create creates a pack index or a ref whole: under a temporary name, renamed
// into place on Close. Other files are created as they are.
func (fs gitFS) Create(name string) (billy.File, error) {
	clean := path.Clean(name)
	whole := strings.HasPrefix(clean, "refs/") || (path.Dir(clean) == packDir && strings.HasSuffix(clean, ".idx"))
	if !whole {
		return fs.Filesystem.Create(name)
	}
	f, err := fs.TempFile(packDir, tempPrefix)
	if err != nil {
		return nil, err
	}
	return &wholeFile{File: f, fs: fs.Filesystem, name: name}, nil
}

// Capabilities are the underlying file system's without read-and-write, so that
// go-git writes a ref through Create (whole) rather than truncating the file in
// place, where a kill left an empty ref that failed every later fetch. The
// tracking refs go-git writes are serialised by Remotes.mu.
func (fs gitFS) Capabilities() billy.Capability {
	return billy.Capabilities(fs.Filesystem) &^ billy.ReadAndWriteCapability
}

// Chmod sets a file's mode (go-git makes packs and indexes read-only).
func (fs gitFS) Chmod(name string, mode os.FileMode) error {
	if c, ok := fs.Filesystem.(billy.Chmod); ok {
		return c.Chmod(name, mode)
	}
	return billy.ErrNotSupported
}

// wholeFile is a file written under a temporary name and renamed to name on Close.
type wholeFile struct {
	billy.File
	fs   billy.Filesystem
	name string
}

func (f *wholeFile) Name() string { return f.name }

func (f *wholeFile) Close() error {
	tmp := f.File.Name()
	if err := f.File.Close(); err != nil {
		f.fs.Remove(tmp)
		return err
	}
	if err := f.fs.Rename(tmp, f.name); err != nil {
		f.fs.Remove(tmp)
		return err
	}
	return nil
}
