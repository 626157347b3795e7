package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
)

// serveLocal opens dir as a norn serve does and starts its local endpoint; commits
// counts the commits that vault makes or takes in. The vault is closed when the
// test ends, or before by the caller.
func serveLocal(t *testing.T, dir string) (l *server.LocalServer, v *vault.Vault, commits *atomic.Int64) {
	t.Helper()
	var err error
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	commits = new(atomic.Int64)
	v, err = vault.Open(ctx, dir, vault.Options{Repo: repo.Options{Logger: quiet, OnCommit: func(repo.CommitID) { commits.Add(1) }}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	l, err = server.StartLocal(ctx, v, server.LocalOptions{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return l, v, commits
}

// commitIDs are the 40-hex commit ids and their short forms in a command's
// output, which differ between two vaults written at different moments.
var commitIDs = regexp.MustCompile(`"(commit|parent)": "[0-9a-f]{40}"|committed [0-9a-f]{7,12}`)

// TestWrite_ThroughRunningServer: beside a running server, norn write sends its
// transaction to the server, whose committer makes the commit: the same author
// and committer in git, the same output and exit code as the same write made
// directly on a twin vault, failures (conflict, gates, bad input) included, with
// nothing written for them. A stale advertisement falls back to the direct write.
func TestWrite_ThroughRunningServer(t *testing.T) {
	served, direct := newVault(t), newVault(t)
	for _, d := range []string{served, direct} {
		git(t, d, "config", "user.name", "Ada Owner")
		git(t, d, "config", "user.email", "ada@example.org")
	}
	l, sv, commits := serveLocal(t, served)
	const note = "---\ntitle: Quokka\n---\n# Quokka\nThe zyzzyva note.\n"
	steps := []struct {
		name, stdin string
		args        []string
		code        int
		commits     int64 // the server's commits after the step
	}{
		{"create", note, []string{"write", "new.md", "--json"}, exitOK, 2},
		{"create, text output", note, []string{"write", "text.md"}, exitOK, 3},
		{"another author", note + "Bob's.\n", []string{"write", "bob.md", "--author", "Bob", "--email", "bob@example.org", "--json"}, exitOK, 4},
		{"dry run", note + "More.\n", []string{"write", "new.md", "--expected-revision", "0123456789abcdef0123456789abcdef01234567", "--dry-run", "--json"}, exitConflict, 4},
		{"conflict", note + "More.\n", []string{"write", "new.md", "--json"}, exitConflict, 4},
		{"conflict, text output", note + "More.\n", []string{"write", "new.md"}, exitConflict, 4},
		{"gates", "---\ntitle: A\ntitle: B\n---\n# A\n", []string{"write", "dup.md", "--json"}, exitRejected, 4},
		{"gates, text output", "---\ntitle: A\ntitle: B\n---\n# A\n", []string{"write", "dup.md"}, exitRejected, 4},
		{"gates, dry run", "---\ntitle: A\ntitle: B\n---\n# A\n", []string{"write", "dup.md", "--dry-run", "--json"}, exitRejected, 4},
		{"bad path", note, []string{"write", "../out.md", "--json"}, exitRejected, 4},
		{"unchanged", note, []string{"write", "new.md", "--json", "--expected-revision", "REV"}, exitOK, 4},
	}
	// The server was asked (its commits count external ones too).
	if _, errs, code := cli(t, served, note, "-v", "write", "asked.md"); code != exitOK || !strings.Contains(errs, "asked norn serve") {
		t.Fatalf("write -v beside the server: exit %d\n%s", code, errs)
	}
	mustCLI(t, direct, note, "write", "asked.md")
	for _, s := range steps {
		args := s.args
		if args[len(args)-2] == "--expected-revision" && args[len(args)-1] == "REV" {
			rev := strings.TrimSpace(git(t, direct, "rev-parse", "HEAD:new.md"))
			args = append(args[:len(args)-1:len(args)-1], rev)
		}
		headBefore := git(t, served, "rev-parse", "HEAD")
		gotOut, gotErr, gotCode := cli(t, served, s.stdin, args...)
		wantOut, wantErr, wantCode := cli(t, direct, s.stdin, args...)
		if gotCode != s.code || wantCode != s.code {
			t.Fatalf("%s: exit %d through the server, %d direct, want %d\n%s%s\n%s%s", s.name, gotCode, wantCode, s.code, gotOut, gotErr, wantOut, wantErr)
		}
		if g, w := commitIDs.ReplaceAllString(gotOut, "C"), commitIDs.ReplaceAllString(wantOut, "C"); g != w || gotErr != wantErr {
			t.Errorf("%s: through the server\n%s%s\ndirect\n%s%s", s.name, gotOut, gotErr, wantOut, wantErr)
		}
		if n := commits.Load(); n != s.commits {
			t.Errorf("%s: the server made %d commits, want %d", s.name, n, s.commits)
		}
		if s.code != exitOK && git(t, served, "rev-parse", "HEAD") != headBefore {
			t.Errorf("%s: a refused write moved HEAD", s.name)
		}
	}
	const format = "--format=%an <%ae> | %cn | %s%n%(trailers:key=Norn-Op)"
	if g, w := git(t, served, "log", format), git(t, direct, "log", format); g != w {
		t.Errorf("history through the server:\n%s\ndirect:\n%s", g, w)
	}
	if st := git(t, served, "status", "--porcelain"); st != "" {
		t.Errorf("git status after writes through the server: %q", st)
	}
	git(t, served, "fsck", "--strict")

	// A stale advertisement (the server is gone, its port closed): the write is
	// made here, silently. The server's vault is closed with it, as a server
	// that is gone has (an open one may take in this process's commit at any
	// moment, which its commit count would not tell from one of its own).
	ad, err := os.ReadFile(server.LocalEndpointPath(served + "/.git"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	sv.Close()
	if err := os.WriteFile(server.LocalEndpointPath(served+"/.git"), ad, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := cli(t, served, note+"Later.\n", "write", "later.md")
	if code != exitOK || errs != "" || !strings.HasPrefix(out, "committed ") || commits.Load() != 4 {
		t.Fatalf("write beside a stale advertisement: exit %d, server commits %d\n%s%s", code, commits.Load(), out, errs)
	}
	if got := git(t, served, "log", "-1", "--format=%an <%ae>", "--", "later.md"); got != "Ada Owner <ada@example.org>\n" {
		t.Errorf("direct write's author: %q", got)
	}
}

// TestSearch_AsksRunningServerFirst: beside a running server, norn search asks
// it without opening the vault (the -v log says so, and no pebble line) and
// prints what the command finds by itself once the server is gone.
func TestSearch_AsksRunningServerFirst(t *testing.T) {
	dir := newVault(t)
	mustCLI(t, dir, "# Quokka\n\nThe zyzzyva note.\n", "write", "q.md")
	mustCLI(t, dir, "# Wombat\n\nNo rare words.\n", "write", "w.md")
	l, v, _ := serveLocal(t, dir)
	_, errs, code := cli(t, dir, "", "-v", "search", "zyzzyva")
	if code != exitOK || !strings.Contains(errs, `msg="asked norn serve" op=search`) || strings.Contains(errs, "pebble") {
		t.Fatalf("search -v beside the server: exit %d\n%s", code, errs)
	}
	served := mustCLI(t, dir, "", "search", "zyzzyva", "--json")
	if err := errors.Join(l.Close(), v.Close()); err != nil {
		t.Fatal(err)
	}
	// The answer says who computed it and how long it took; the rest is equal.
	took := regexp.MustCompile(`"took_ms": [0-9.e-]+,|\n *"via": "norn serve \(pid [0-9]+\)",`)
	if direct := mustCLI(t, dir, "", "search", "zyzzyva", "--json"); took.ReplaceAllString(served, "") != took.ReplaceAllString(direct, "") ||
		!strings.Contains(served, `"q.md"`) {
		t.Errorf("search through the server:\n%s\ndirect:\n%s", served, direct)
	}
}

// TestCapture_ThroughRunningServer: beside a running server, norn capture is
// committed by the server, authored as the command authors it, and prints the
// fields a direct capture prints.
func TestCapture_ThroughRunningServer(t *testing.T) {
	served, direct := newVault(t), newVault(t)
	for _, d := range []string{served, direct} {
		git(t, d, "config", "user.name", "Ada Owner")
		git(t, d, "config", "user.email", "ada@example.org")
	}
	serveLocal(t, served)
	_, errs, code := cli(t, served, "", "-v", "capture", "a", "quokka", "thought")
	if code != exitOK || !strings.Contains(errs, `msg="asked norn serve" op=capture`) {
		t.Fatalf("capture -v beside the server: exit %d\n%s", code, errs)
	}
	mustCLI(t, direct, "", "capture", "a", "quokka", "thought")
	keys := func(s string) []string {
		var out []string
		for k := range decode(t, s) {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	got := mustCLI(t, served, "", "capture", "--json", "--author", "Bob", "--email", "bob@example.org", "second", "thought")
	want := mustCLI(t, direct, "", "capture", "--json", "--author", "Bob", "--email", "bob@example.org", "second", "thought")
	if g, w := decode(t, got), decode(t, want); !slices.Equal(keys(got), keys(want)) || g["path"] != w["path"] || g["created"] != w["created"] {
		t.Errorf("capture through the server:\n%s\ndirect:\n%s", got, want)
	}
	const format = "--format=%an <%ae> | %cn%n%(trailers:key=Norn-Op)"
	if g, w := git(t, served, "log", format), git(t, direct, "log", format); g != w {
		t.Errorf("history through the server:\n%s\ndirect:\n%s", g, w)
	}
	// Refused the same way: --message, and an empty capture.
	for _, args := range [][]string{{"capture", "--message", "m", "x"}, {"capture", "--json"}} {
		gotOut, gotErr, gotCode := cli(t, served, "", args...)
		wantOut, wantErr, wantCode := cli(t, direct, "", args...)
		if gotCode != wantCode || gotCode == exitOK || gotOut != wantOut || gotErr != wantErr {
			t.Errorf("%v: exit %d through the server, %d direct\n%s%s\n%s%s", args, gotCode, wantCode, gotOut, gotErr, wantOut, wantErr)
		}
	}
	if st := git(t, served, "status", "--porcelain"); st != "" {
		t.Errorf("git status after captures through the server: %q", st)
	}
}
