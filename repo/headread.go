package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/norn-vault/norn/note"
)

// ReadHead reads the file at p in the tree of HEAD of the vault whose working tree
// is dir, opening only what that needs: HEAD, its branch's ref, the commit, the
// trees on p's path and the blob. Unlike Open it takes no lock, reads neither
// HEAD's whole tree nor git's index, and leaves the working tree alone (a read
// needs no recovery: it reads git's objects), so a one-shot read costs about the
// same at any size of vault. It returns ErrNotFound when p is not a file at HEAD,
// ErrInvalid for a path Norn refuses, ErrNotVault when dir is not a vault; a
// caller that wants Open's fuller answers (a name resolved, git's state
// explained) opens the vault on any error.
func ReadHead(ctx context.Context, dir string, p note.Path) (*Blob, error) {
	if err := ValidPath(string(p)); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	gitDir := filepath.Join(abs, ".git")
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("read %s: %w: %s has no .git folder", p, ErrNotVault, abs)
	}
	branch, err := readSymbolicHead(gitDir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	tip, err := readRef(gitDir, branch)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if tip.isZero() {
		return nil, notFoundf("%s does not exist at HEAD", p)
	}
	objs := openObjects(gitDir)
	defer objs.close()
	data, err := objs.readTyped(tip, "commit")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	c, err := decodeCommit(data)
	if err != nil {
		return nil, fmt.Errorf("read %s: commit %s: %w", p, tip, err)
	}
	id, mode, err := objs.entryAt(ctx, c.tree, string(p))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if mode == 0 || mode == modeDir {
		return nil, notFoundf("%s does not exist at HEAD", p)
	}
	blob, err := objs.readTyped(id, "blob")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return &Blob{Path: p, Revision: Revision(id.String()), Commit: CommitID(tip.String()), Content: blob}, nil
}

// entryAt finds the entry at slash-separated path p below tree root (a folder for
// each part but the last, a file or a folder for the last), reading only the trees
// on its path; mode 0 means there is none.
func (s *objectStore) entryAt(ctx context.Context, root hash, p string) (hash, uint32, error) {
	id, mode := root, modeDir
	for p != "" {
		if err := ctx.Err(); err != nil {
			return zeroHash, 0, err
		}
		name, rest, _ := strings.Cut(p, "/")
		data, err := s.readTyped(id, "tree")
		if err != nil {
			return zeroHash, 0, err
		}
		mode = 0
		err = scanTree(data, func(m uint32, n, h []byte) bool {
			if string(n) != name || (rest != "" && m != modeDir) {
				return true
			}
			mode = m
			copy(id[:], h)
			return m == modeDir && rest == "" // a file of that name wins, as in lookup
		})
		if err != nil {
			return zeroHash, 0, fmt.Errorf("tree %s: %w", id, err)
		}
		if mode == 0 {
			return zeroHash, 0, nil
		}
		p = rest
	}
	return id, mode, nil
}
