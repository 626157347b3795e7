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

// readSymbolicHead returns the branch HEAD points at ("refs/heads/main").
func readSymbolicHead(gitDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	s := strings.TrimSpace(string(b))
	ref, ok := strings.CutPrefix(s, "ref: ")
	if !ok {
		return "", fmt.Errorf("%w: HEAD is detached (at %s); check out a branch first", ErrNotVault, s)
	}
	if !strings.HasPrefix(ref, "refs/heads/") {
		return "", fmt.Errorf("%w: HEAD points at %s, not a branch", ErrNotVault, ref)
	}
	return ref, nil
}

// readRef returns the commit a ref points at, or the zero hash when it does not
// exist (an unborn branch). Loose refs win over packed-refs, as in git.
func readRef(gitDir, ref string) (hash, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref)))
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

// casRef moves ref from old to new using git's own lock protocol (ref.lock created
// with O_EXCL), so it is safe against the git CLI and other processes. The new value
// is fsynced and renamed into place, and the folder is fsynced, before it returns.
// A ref no longer at old gives errBranchMoved and changes nothing.
func casRef(gitDir, ref string, old, new hash) error {
	path := filepath.Join(gitDir, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	lock := path + ".lock"
	var f *os.File
	var err error
	for try := 0; ; try++ {
		f, err = os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("update %s: lock: %w", ref, err)
		}
		if try >= 200 {
			// Held for over a second: a crashed writer left it. Take it over (the
			// compare below still guards against a branch that moved).
			if try > 200 || os.Remove(lock) != nil {
				return fmt.Errorf("update %s: lock: %w", ref, err)
			}
			continue
		}
		time.Sleep(5 * time.Millisecond) // another writer (the git CLI) holds it briefly
	}
	committed := false
	defer func() {
		if !committed {
			f.Close()
			os.Remove(lock)
		}
	}()
	cur, err := readRef(gitDir, ref)
	if err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	if cur != old {
		return fmt.Errorf("update %s: %w: at %s, expected %s", ref, errBranchMoved, cur, old)
	}
	var buf bytes.Buffer
	buf.WriteString(new.String())
	buf.WriteByte('\n')
	if _, err := f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("update %s: fsync: %w", ref, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	if err := os.Rename(lock, path); err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	committed = true
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}
