package repo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// errBranchMoved: the branch is not at the commit the committer built on.
var errBranchMoved = errors.New("branch moved")

// readHead reads .git/HEAD: the ref it names ("refs/heads/main"), or, when it is
// detached, "" and the commit id it holds.
func readHead(gitDir string) (ref, detached string, err error) {
	b, err := readSmall(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", "", fmt.Errorf("read HEAD: %w", err)
	}
	s := strings.TrimSpace(string(b))
	if ref, ok := strings.CutPrefix(s, "ref: "); ok {
		return ref, "", nil
	}
	return "", s, nil
}

// readSymbolicHead returns the branch HEAD points at ("refs/heads/main").
func readSymbolicHead(gitDir string) (string, error) {
	ref, detached, err := readHead(gitDir)
	switch {
	case err != nil:
		return "", err
	case ref == "":
		return "", fmt.Errorf("%w: HEAD is detached (at %s); check out a branch first", ErrNotVault, detached)
	case !strings.HasPrefix(ref, "refs/heads/"):
		return "", fmt.Errorf("%w: HEAD points at %s, not a branch", ErrNotVault, ref)
	}
	return ref, nil
}

// readRef returns the commit a ref points at, or the zero hash when it does not
// exist (an unborn branch). Loose refs win over packed-refs, as in git.
func readRef(gitDir, ref string) (hash, error) {
	b, err := readSmall(filepath.Join(gitDir, filepath.FromSlash(ref)))
	if err == nil {
		s := strings.TrimSpace(string(b))
		id, ok := parseHash(s)
		if !ok {
			return zeroHash, fmt.Errorf("read %s: malformed ref %q", ref, s)
		}
		return id, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return zeroHash, fmt.Errorf("read %s: %w", ref, err)
	}
	f, err := os.Open(filepath.Join(gitDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return zeroHash, nil
	}
	if err != nil {
		return zeroHash, fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 42 || line[0] == '#' || line[0] == '^' {
			continue
		}
		if string(line[41:]) == ref {
			if id, ok := parseHash(string(line[:40])); ok {
				return id, nil
			}
		}
	}
	return zeroHash, sc.Err()
}

// refUpdate is a ref update in progress: the lock is held and holds the new value,
// not yet fsynced.
type refUpdate struct {
	ref, path, lock string
	f               *os.File
}

// lockRef starts moving ref from old to new using git's own lock protocol (ref.lock
// created with O_EXCL), so it is safe against the git CLI and other processes. A ref
// no longer at old gives errBranchMoved and changes nothing. The caller makes the
// lock's bytes durable (fsync, or the syncfs of the batch's objects) and then calls
// rename and sync, or abort.
func lockRef(gitDir, ref string, old, new hash) (*refUpdate, error) {
	path := filepath.Join(gitDir, filepath.FromSlash(ref))
	lock := path + ".lock"
	var f *os.File
	var err error
	for try := 0; ; try++ {
		f, err = createFile(lock, 0o644)
		if err == nil {
			break
		}
		if errors.Is(err, fs.ErrNotExist) && try == 0 {
			// A first commit on a branch in a folder git has not made (refs/heads/a/b).
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, fmt.Errorf("update %s: %w", ref, err)
			}
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("update %s: lock: %w", ref, err)
		}
		if try >= 200 {
			// Held for over a second: a crashed writer left it. Take it over (the
			// compare below still guards against a branch that moved).
			if try > 200 || os.Remove(lock) != nil {
				return nil, fmt.Errorf("update %s: lock: %w", ref, err)
			}
			continue
		}
		time.Sleep(5 * time.Millisecond) // another writer (the git CLI) holds it briefly
	}
	u := &refUpdate{ref: ref, path: path, lock: lock, f: f}
	cur, err := readRef(gitDir, ref)
	if err != nil {
		u.abort()
		return nil, fmt.Errorf("update %s: %w", ref, err)
	}
	if cur != old {
		u.abort()
		return nil, fmt.Errorf("update %s: %w: at %s, expected %s", ref, errBranchMoved, cur, old)
	}
	var buf bytes.Buffer
	buf.WriteString(new.String())
	buf.WriteByte('\n')
	if _, err := f.Write(buf.Bytes()); err != nil {
		u.abort()
		return nil, fmt.Errorf("update %s: %w", ref, err)
	}
	if err := f.Close(); err != nil {
		u.f = nil
		u.abort()
		return nil, fmt.Errorf("update %s: %w", ref, err)
	}
	u.f = nil
	return u, nil
}

// abort releases the lock and leaves the ref as it was.
func (u *refUpdate) abort() {
	if u.f != nil {
		u.f.Close()
	}
	os.Remove(u.lock)
}

// rename puts the lock in place: the ref has its new value, which is durable once
// its folder is fsynced (sync), provided the lock's bytes were.
func (u *refUpdate) rename() error {
	if err := replaceFile(u.lock, u.path); err != nil {
		u.abort()
		return fmt.Errorf("update %s: %w", u.ref, err)
	}
	return nil
}

// sync fsyncs the ref's folder, making a rename durable.
func (u *refUpdate) sync() error { return syncDir(filepath.Dir(u.path)) }

func syncDir(dir string) error {
	d, err := openRead(dir)
	if err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}
