package repo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// writerLock serialises the writers of one vault across processes (a `norn serve`
// and the `norn` commands run beside it): whoever holds it may move the branch and
// write the working tree and git's index. It is flock(2) on .git/norn/write.lock,
// so a process that dies releases it; the git CLI does not take it (git's own ref
// and index locks, which Norn also takes, guard against git).
type writerLock struct {
	f *os.File
}

func openWriterLock(gitDir string) (*writerLock, error) {
	f, err := os.OpenFile(filepath.Join(gitDir, "norn", "write.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open writer lock: %w", err)
	}
	return &writerLock{f: f}, nil
}

// lock waits until no other process holds the lock.
func (l *writerLock) lock() error {
	for {
		err := unix.Flock(int(l.f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			if err != nil {
				return fmt.Errorf("take writer lock: %w", err)
			}
			return nil
		}
	}
}

func (l *writerLock) unlock() {
	unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
}

func (l *writerLock) close() error { return l.f.Close() }
