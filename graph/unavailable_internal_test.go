package graph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/norn-vault/norn/note"
)

// TestCorrupt_Classifies: a shortage of file descriptors, memory or disk space is
// ErrUnavailable (rebuilding would not help); a context's error passes through;
// pebble's corruption and a record that does not decode are ErrCorrupt.
func TestCorrupt_Classifies(t *testing.T) {
	for _, c := range []struct {
		err  error
		want error
	}{
		{&os.PathError{Op: "open", Path: "000123.sst", Err: syscall.EMFILE}, ErrUnavailable},
		{fmt.Errorf("write: %w", syscall.ENOSPC), ErrUnavailable},
		{context.Canceled, context.Canceled},
		{fmt.Errorf("doc record: %w", errBadRecord), ErrCorrupt},
		{errBadBlock, ErrCorrupt},
		{&os.PathError{Op: "read", Path: "000123.sst", Err: syscall.EIO}, ErrCorrupt},
	} {
		got := corrupt(c.err)
		if !errors.Is(got, c.want) {
			t.Errorf("corrupt(%v) = %v, want %v", c.err, got, c.want)
		}
		if c.want != ErrCorrupt && errors.Is(got, ErrCorrupt) {
			t.Errorf("corrupt(%v) = %v, also ErrCorrupt", c.err, got)
		}
	}
}

// TestSearch_OutOfFileDescriptors runs a search in a child process (this test
// binary re-run) whose file descriptor limit leaves pebble no room to open the
// table of stored texts: the search fails with ErrUnavailable, not ErrCorrupt, so a
// caller keeps the index instead of removing and rebuilding it; once descriptors
// are free the same index answers.
func TestSearch_OutOfFileDescriptors(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd: cannot count open files")
	}
	dir := t.TempDir()
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var notes []rawNote
	for i := range 50 {
		notes = append(notes, rawNote{note.Path(fmt.Sprintf("n%02d.md", i)), []byte(fmt.Sprintf("# Note %d\nzebra stripes number %d\n", i, i))})
	}
	if err := ix.Rebuild(context.Background(), "c1", DocRecords(parsedSeq(notes)), nil); err != nil {
		t.Fatal(err)
	}
	ix.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestSearch_OutOfFileDescriptorsChild$", "-test.v")
	cmd.Env = append(os.Environ(), "NORN_FD_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "fd-child: every table open") {
		t.Skipf("the index's tables were all open before the search, so it needed no descriptor: nothing to starve (child:\n%s)", out)
	}
	if !strings.Contains(string(out), "fd-child: unavailable") {
		t.Fatalf("child did not report the search's error:\n%s", out)
	}
}

// TestSearch_OutOfFileDescriptorsChild is TestSearch_OutOfFileDescriptors's child.
func TestSearch_OutOfFileDescriptorsChild(t *testing.T) {
	dir := os.Getenv("NORN_FD_DIR")
	if dir == "" {
		t.Skip("run by TestSearch_OutOfFileDescriptors")
	}
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasSuffix(l, ".sst") {
			open = append(open, filepath.Base(l))
		}
	}
	t.Logf("%d descriptors open, sstables: %v", len(fds), open)
	// Opening the index may already have opened every table (which it reads
	// depends on how pebble laid the rebuild out); then a search opens no file
	// and there is nothing to starve.
	if all, _ := filepath.Glob(filepath.Join(dir, "*.sst")); len(open) >= len(all) {
		fmt.Printf("fd-child: every table open (%d)\n", len(all))
		return
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	// A new file gets the lowest free descriptor number; a limit of that number
	// leaves no room.
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	free := f.Fd()
	f.Close()
	lim := syscall.Rlimit{Cur: uint64(free), Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	_, err = ix.Search(context.Background(), "zebra", SearchOptions{})
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	switch {
	case err == nil:
		t.Fatalf("search with no descriptor to spare succeeded (sstables open before: %v)", open)
	case errors.Is(err, ErrCorrupt):
		t.Fatalf("search: %v, want ErrUnavailable, not ErrCorrupt", err)
	case !errors.Is(err, ErrUnavailable):
		t.Fatalf("search: %v, want ErrUnavailable", err)
	}
	fmt.Printf("fd-child: unavailable: %v\n", err)
	// With descriptors to spare again, the same index answers.
	res, err := ix.Search(context.Background(), "zebra", SearchOptions{})
	if err != nil || res.Total != 50 {
		t.Fatalf("search once descriptors are free: %+v, %v", res, err)
	}
}
