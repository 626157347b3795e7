//go:build !linux

package repo

import "golang.org/x/sys/unix"

// syncObjects makes every object written so far durable. Without syncfs(2) it falls
// back to sync(2), which flushes every file system.
func syncObjects(objectsDir string) error {
	unix.Sync()
	return nil
}
