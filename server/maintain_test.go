package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/server"
)

func TestMaintainer_CommitsExternalEditsAndPacks(t *testing.T) {
	v, s := openVault(t)
	// A low threshold so packing happens.
	if err := write(v, ".norn/config.yaml", "gc:\n  loose_objects: 5\n", "owner"); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := write(v, "n.md", strings.Repeat("x", i+1)+"\n", "owner"); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(v.Dir(), "by-hand.md"), []byte("# By hand\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	m := &server.Maintainer{Vault: v, Settings: s, Every: 20 * time.Millisecond}
	go func() { done <- m.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for v.Revision("by-hand.md") == "" || v.LooseObjects() > 5 {
		if time.Now().After(deadline) {
			t.Fatalf("not done: revision %q, %d loose objects", v.Revision("by-hand.md"), v.LooseObjects())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", v.Dir(), "log", "-1", "--format=%an %(trailers:key=Norn-Op,valueonly)", "--", "by-hand.md").Output()
	if err != nil || !strings.HasPrefix(string(out), "o external") {
		t.Fatalf("git log: %q %v", out, err)
	}
	b, err := v.Read(context.Background(), "n.md", "HEAD~3")
	if err != nil || string(b.Content) != "xxx\n" {
		t.Fatalf("old revision after packing: %q %v", b.Content, err)
	}
}

// TestMaintainer_RollsUpPacks: writes leave no loose objects but a pack each; once
// there are more than gc.packs, the maintainer rolls them into one, and old
// revisions still read back.
func TestMaintainer_RollsUpPacks(t *testing.T) {
	v, s := openVault(t)
	if err := write(v, ".norn/config.yaml", "gc:\n  packs: 4\n", "owner"); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := write(v, "n.md", strings.Repeat("x", i+1)+"\n", "owner"); err != nil {
			t.Fatal(err)
		}
	}
	if n := v.Packs(); n <= 4 {
		t.Fatalf("%d packs before maintenance, want more than 4", n)
	}
	m := &server.Maintainer{Vault: v, Settings: s}
	if err := m.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", v.Dir(), "count-objects", "-v").Output()
	if err != nil || !strings.Contains(string(out), "\npacks: 1\n") || v.Packs() != 1 {
		t.Fatalf("after a round: %d packs; git count-objects -v: %s %v", v.Packs(), out, err)
	}
	b, err := v.Read(context.Background(), "n.md", "HEAD~3")
	if err != nil || string(b.Content) != "xxx\n" {
		t.Fatalf("old revision after the roll-up: %q %v", b.Content, err)
	}
}
