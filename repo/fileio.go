package repo

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Files on the write path are opened with open(2) and wrapped with os.NewFile:
// os.OpenFile makes four more system calls for every file, trying to register it
// with the network poller (which refuses regular files and folders), and a write
// opens nine files in .git. (strace: 6 system calls an open, 2 this way.)

// replaceFile renames from to to, replacing it. (os.Rename first stats to, to
// refuse replacing a folder, which never happens here.)
func replaceFile(from, to string) error {
	if err := unix.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// createFile creates file name, which must not exist, for writing.
func createFile(name string, perm uint32) (*os.File, error) {
	fd, err := unix.Open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, perm)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openRead opens a file or folder for reading.
func openRead(name string) (*os.File, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// readSmall reads a small file whole (a ref).
func readSmall(name string) ([]byte, error) {
	f, err := openRead(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// writeNew writes data to a new file name with permissions perm.
func writeNew(name string, data []byte, perm uint32) error {
	f, err := createFile(name, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
