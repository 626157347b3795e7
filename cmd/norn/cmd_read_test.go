package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestCLI_ReadOpensOnlyWhatItNeeds: norn read of a note's path reads git's objects
// and nothing else: it answers while another process holds the vault's writer lock
// (a long batch of a norn serve; opening the vault waits for it), with the note
// and the ids git has. A name, not a path, still opens the vault and resolves.
func TestCLI_ReadOpensOnlyWhatItNeeds(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init", dir)
	mustCLI(t, dir, "# Deep\n", "write", "a/b/deep.md")
	f, err := os.OpenFile(filepath.Join(dir, ".git", "norn", "write.lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		text, json string
	}
	done := make(chan answer, 1)
	go func() {
		text, _, _ := cli(t, dir, "", "read", "a/b/deep.md")
		js, _, _ := cli(t, dir, "", "--json", "read", "a/b/deep.md")
		done <- answer{text, js}
	}()
	var got answer
	select {
	case got = <-done:
	case <-time.After(time.Minute): // only ends a test that would hang
		f.Close()
		<-done
		t.Fatal("norn read waited for the writer lock another process held")
	}
	f.Close()
	if got.text != git(t, dir, "show", "HEAD:a/b/deep.md") {
		t.Fatalf("norn read: %q", got.text)
	}
	r := decode(t, got.json)
	if r["revision"] != strings.TrimSpace(git(t, dir, "rev-parse", "HEAD:a/b/deep.md")) || r["commit"] != strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")) || r["path"] != "a/b/deep.md" {
		t.Fatalf("norn read --json: %v", r)
	}
	if got := mustCLI(t, dir, "", "read", "deep"); got != "# Deep\n" {
		t.Fatalf("norn read by name: %q", got)
	}
}
