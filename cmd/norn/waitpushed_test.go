package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// refuseAll makes the bare repository's pre-receive hook refuse every push.
func refuseAll(t *testing.T, bare string) {
	t.Helper()
	hook := filepath.Join(bare, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'pushes are closed' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestCLI_WriteRemote: a write's --json carries remote {pushed, ahead,
// last_error} when the vault has a remote; --wait pushed syncs until the commit
// is on the remote, and when the remote refuses pushes (a pre-receive hook) or
// cannot be reached, the write stays committed, pushed is false, and the
// command fails with the classified code. A write never reports pushed while
// the push fails.
func TestCLI_WriteRemote(t *testing.T) {
	dir := newVault(t)
	// No remote: no remote field, and --wait pushed is refused before writing.
	if out := decode(t, mustCLI(t, dir, "# A\n", "write", "a.md", "--json")); out["remote"] != nil {
		t.Fatalf("write without a remote: %v", out)
	}
	head := revParse(t, dir, "HEAD")
	if _, errs, code := cli(t, dir, "# B\n", "write", "b.md", "--wait", "pushed"); code != exitUsage || !strings.Contains(errs, "no remote") {
		t.Fatalf("--wait pushed without a remote: exit %d %s", code, errs)
	}
	if _, errs, code := cli(t, dir, "# B\n", "write", "b.md", "--wait", "soon"); code != exitUsage || !strings.Contains(errs, "want pushed") {
		t.Fatalf("--wait soon: exit %d %s", code, errs)
	}
	if got := revParse(t, dir, "HEAD"); got != head {
		t.Fatal("a refused --wait wrote")
	}

	bare := newBareRemote(t)
	mustCLI(t, dir, "", "remote", "add", "origin", bare)
	out := decode(t, mustCLI(t, dir, "# B\n", "write", "b.md", "--json"))
	rem, _ := out["remote"].(map[string]any)
	if rem["remote"] != "origin" || rem["pushed"] != false || rem["ahead"].(float64) < 1 {
		t.Fatalf("write before any sync: %v", out)
	}
	out = decode(t, mustCLI(t, dir, "# C\n", "write", "c.md", "--json", "--wait", "pushed"))
	rem, _ = out["remote"].(map[string]any)
	if rem["pushed"] != true || rem["ahead"] != 0.0 || revParse(t, bare, "main") != out["commit"] {
		t.Fatalf("--wait pushed: %v; remote at %s", out, revParse(t, bare, "main"))
	}
	// A ledger write reports the same way.
	out = decode(t, mustCLI(t, dir, "", "synthesis", "register", "c.md", "b.md", "--json", "--wait", "pushed"))
	rem, _ = out["remote"].(map[string]any)
	if rem["pushed"] != true || out["file"] != ".norn/synthesis/c.md.yaml" || revParse(t, bare, "main") != out["commit"] {
		t.Fatalf("synthesis register --wait pushed: %v; remote at %s", out, revParse(t, bare, "main"))
	}

	// A remote that refuses every push.
	refuseAll(t, bare)
	tip := revParse(t, bare, "main")
	stdout, _, code := cli(t, dir, "# D\n", "write", "d.md", "--json", "--wait", "pushed")
	out = decode(t, stdout)
	rem, _ = out["remote"].(map[string]any)
	if code != exitError || out["code"] != "remote_rejected" || rem["pushed"] != false || rem["ahead"] != 1.0 ||
		!strings.Contains(rem["last_error"].(string), "rejected by the remote") || out["commit"] == nil {
		t.Fatalf("--wait pushed, refused: exit %d %v", code, out)
	}
	if revParse(t, bare, "main") != tip || revParse(t, dir, "HEAD") != out["commit"] {
		t.Fatal("the refused push moved the remote, or the write was lost")
	}
	// Without --wait, the next write says it is not pushed and why.
	out = decode(t, mustCLI(t, dir, "# E\n", "write", "e.md", "--json"))
	rem, _ = out["remote"].(map[string]any)
	if rem["pushed"] != false || rem["ahead"] != 2.0 || rem["last_error_code"] != "remote_rejected" {
		t.Fatalf("write after a refused push: %v", out)
	}
	st := decode(t, mustCLI(t, dir, "", "status", "--json"))
	if r0 := st["remotes"].([]any)[0].(map[string]any); r0["last_error_code"] != "remote_rejected" || r0["ahead"] != 2.0 {
		t.Fatalf("status: %v", st)
	}

	// An unreachable remote.
	if err := os.RemoveAll(bare); err != nil {
		t.Fatal(err)
	}
	stdout, _, code = cli(t, dir, "# F\n", "write", "f.md", "--json", "--wait", "pushed")
	out = decode(t, stdout)
	rem, _ = out["remote"].(map[string]any)
	if code != exitError || out["code"] != "remote_unreachable" || rem["pushed"] != false || rem["last_error_code"] != "remote_unreachable" {
		t.Fatalf("--wait pushed, unreachable: exit %d %v", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "f.md")); err != nil {
		t.Fatal("the write was lost")
	}
}

func revParse(t *testing.T, dir, rev string) string {
	t.Helper()
	return strings.TrimSpace(git(t, dir, "rev-parse", rev))
}

// TestServe_SyncInterval: norn serve --sync-interval syncs the default remote
// (at once, then every interval), logs it, and stops with the server.
func TestServe_SyncInterval(t *testing.T) {
	dir := newVault(t)
	bare := newBareRemote(t)
	mustCLI(t, dir, "", "remote", "add", "origin", bare)
	mustCLI(t, dir, "# A\n", "write", "a.md")
	head := revParse(t, dir, "HEAD")

	stdin, stdinW := io.Pipe()
	var stderr syncBuffer
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	e := &env{stdin: stdin, stdout: io.Discard, stderr: &stderr, getenv: func(k string) string {
		if k == "NORN_VAULT" {
			return dir
		}
		return ""
	}}
	code := make(chan int, 1)
	go func() { code <- run(ctx, []string{"serve", "-v", "--stdio", "--sync-interval", "1h"}, e) }()
	// Wait for the remote to hold the vault's head and for the loop to log the
	// sync it made (a hang guard, not a timing assertion: the first sync runs at
	// once). The log line follows the push: stopping the server as soon as the
	// remote moved could cut the sync short before it is logged.
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := exec.Command("git", "-C", bare, "rev-parse", "-q", "--verify", "main").Output()
		pushed := err == nil && strings.TrimSpace(string(out)) == head
		if log := stderr.String(); pushed && strings.Contains(log, "periodic sync") && strings.Contains(log, "outcome=first-push") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the periodic sync never pushed (remote at the head: %v), or never logged it:\n%s", pushed, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	stdinW.Close()
	if c := <-code; c != exitOK {
		t.Fatalf("norn serve: exit %d\n%s", c, stderr.String())
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
