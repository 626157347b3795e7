package main

import (
	"bytes"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/norn-vault/norn/internal/gitserve"
)

func newBareRemote(t *testing.T) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "notes.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	return bare
}

// TestCLI_Remote: add, list and remove agree with `git remote -v`; bad input is
// refused with a classified error, nothing written and no secret shown.
func TestCLI_Remote(t *testing.T) {
	dir := newVault(t)
	bare := newBareRemote(t)
	mustCLI(t, dir, "", "remote", "add", "origin", bare)
	mustCLI(t, dir, "", "remote", "add", "hub", "https://github.com/me/notes.git")
	if got := git(t, dir, "remote", "-v"); !strings.Contains(got, "origin\t"+bare+" (push)") ||
		!strings.Contains(got, "hub\thttps://github.com/me/notes.git (fetch)") {
		t.Fatalf("git remote -v:\n%s", got)
	}
	list := decode(t, mustCLI(t, dir, "", "remote", "list", "--json"))
	rs, _ := list["remotes"].([]any)
	if len(rs) != 2 || rs[1].(map[string]any)["name"] != "origin" || rs[1].(map[string]any)["kind"] != "local" {
		t.Errorf("remote list --json: %v", list)
	}
	if out := mustCLI(t, dir, "", "remote", "list"); !strings.Contains(out, "hub") || !strings.Contains(out, "http") {
		t.Errorf("remote list:\n%s", out)
	}

	cfg := filepath.Join(dir, ".git", "config")
	before, _ := os.ReadFile(cfg)
	for _, args := range [][]string{
		{"remote", "add", "origin", "/elsewhere.git"},
		{"remote", "add", "bad/name", bare},
		{"remote", "add", "x", "https://me:hunter2hunter2@github.com/me/notes.git"},
		{"remote", "add", "x", "ftp://host/x"},
		{"remote", "remove", "nope"},
	} {
		out, errs, code := cli(t, dir, "", args...)
		if code != exitError || strings.Contains(out+errs, "hunter2hunter2") || errs == "" {
			t.Errorf("norn %v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	if out, _, code := cli(t, dir, "", "remote", "add", "x", "ftp://host/x", "--json"); code != exitError || decode(t, out)["code"] != "invalid" {
		t.Errorf("--json error: %s", out)
	}
	for _, args := range [][]string{{"remote"}, {"remote", "frob"}, {"remote", "add", "x"}, {"remote", "list", "--known-hosts", "/k"}} {
		if _, _, code := cli(t, dir, "", args...); code != exitUsage {
			t.Errorf("norn %v: exit %d, want usage", args, code)
		}
	}
	if after, _ := os.ReadFile(cfg); !bytes.Equal(before, after) {
		t.Errorf("refused commands changed .git/config")
	}

	// A relative path is stored absolute.
	rel, err := filepath.Rel(mustGetwd(t), bare)
	if err != nil {
		t.Fatal(err)
	}
	mustCLI(t, dir, "", "remote", "add", "rel", rel)
	if got := strings.TrimSpace(git(t, dir, "config", "remote.rel.url")); got != bare {
		t.Errorf("relative path stored as %q, want %q", got, bare)
	}

	mustCLI(t, dir, "", "remote", "remove", "hub")
	if got := git(t, dir, "remote"); got != "origin\nrel\n" {
		t.Errorf("git remote after remove: %q", got)
	}
	// check on an empty remote, then after a push by git.
	if out := mustCLI(t, dir, "", "remote", "check", "origin"); !strings.Contains(out, "empty") {
		t.Errorf("check empty: %s", out)
	}
	git(t, dir, "push", "-q", "origin", "main")
	m := decode(t, mustCLI(t, dir, "", "remote", "check", "origin", "--json"))
	if m["ahead"] != 0.0 || m["behind"] != 0.0 || m["remote_tip"] != strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")) {
		t.Errorf("check after push: %v", m)
	}
	// What a check fetched is what status counts from: a commit pushed by
	// someone else shows as one behind after the check, with its tip.
	person := filepath.Join(t.TempDir(), "person")
	git(t, "", "clone", "-q", bare, person)
	if err := os.WriteFile(filepath.Join(person, "p.md"), []byte("# P\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, person, "add", "p.md")
	git(t, person, "commit", "-q", "-m", "p")
	git(t, person, "push", "-q", "origin", "main")
	mustCLI(t, dir, "", "remote", "check", "origin")
	st := decode(t, mustCLI(t, dir, "", "status", "--json"))
	var origin map[string]any
	for _, r := range st["remotes"].([]any) {
		if r.(map[string]any)["remote"] == "origin" {
			origin = r.(map[string]any)
		}
	}
	if origin == nil || origin["behind"] != 1.0 || origin["tip"] != strings.TrimSpace(git(t, person, "rev-parse", "HEAD")) || origin["last_fetch"] == nil {
		t.Errorf("status after a check that fetched a new commit: %v", st)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestCLI_RemoteCredentials: a token from machine.yaml's token_env or from
// NORN_REMOTE_<NAME>_TOKEN reaches a real smart-HTTP server; a wrong one is
// refused with a clear error that never shows it, on stdout, stderr or in -v logs.
func TestCLI_RemoteCredentials(t *testing.T) {
	const token = "tok-RIGHT-0123456789"
	bare := newBareRemote(t)
	url := gitserve.HTTP(t, filepath.Dir(bare), token) + "/" + filepath.Base(bare)
	dir := newVault(t)
	mustCLI(t, dir, "", "remote", "add", "origin", url)
	mustCLI(t, dir, "", "remote", "add", "my-backup", url)
	writeMachine(t, dir, "remotes:\n  origin:\n    token_env: ORIGIN_TOKEN\n", 0o600)

	if _, errs, code := cliEnv(t, dir, map[string]string{"ORIGIN_TOKEN": token}, "remote", "check", "origin"); code != 0 {
		t.Fatalf("check with token_env: exit %d: %s", code, errs)
	}
	if _, errs, code := cliEnv(t, dir, map[string]string{"NORN_REMOTE_MY_BACKUP_TOKEN": token}, "remote", "check", "my-backup"); code != 0 {
		t.Fatalf("check with NORN_REMOTE_MY_BACKUP_TOKEN: exit %d: %s", code, errs)
	}
	const wrong = "tok-WRONG-0123456789"
	out, errs, code := cliEnv(t, dir, map[string]string{"ORIGIN_TOKEN": wrong}, "-v", "remote", "check", "origin")
	if code != exitError || !strings.Contains(errs, "authentication failed") || strings.Contains(out+errs, wrong) {
		t.Errorf("wrong token: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(errs, "level=DEBUG") {
		t.Errorf("-v logged nothing, so the log check proves nothing:\n%s", errs)
	}
	// A token in the committed .norn/config.yaml (put there with git) is never used.
	cfgYAML := filepath.Join(dir, ".norn", "config.yaml")
	b, err := os.ReadFile(cfgYAML)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cfgYAML, append(b, []byte("remotes:\n  origin:\n    token: "+token+"\n")...), 0o644)
	git(t, dir, "commit", "-qam", "token in the shared config")
	if _, errs, code := cliEnv(t, dir, nil, "remote", "check", "origin"); code != exitError || !strings.Contains(errs, "authentication failed") {
		t.Errorf("a token from .norn/config.yaml was used: exit %d\n%s", code, errs)
	}
	git(t, dir, "reset", "-q", "--hard", "HEAD~1")
	// machine.yaml never ends up in a commit, and the token in no git file.
	if out := git(t, dir, "ls-files"); strings.Contains(out, "machine.yaml") {
		t.Errorf("machine.yaml tracked: %s", out)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, ".git", "config"))
	if bytes.Contains(cfg, []byte("tok-")) {
		t.Errorf(".git/config holds a token")
	}
}

// TestCLI_RemoteTrust: an unknown SSH host key is refused with its fingerprint;
// trust with that fingerprint writes known_hosts, after which check works.
func TestCLI_RemoteTrust(t *testing.T) {
	client, priv := gitserve.NewKey(t)
	srv := gitserve.SSH(t, client.PublicKey())
	bare := newBareRemote(t)
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": home}
	dir := newVault(t)
	mustCLI(t, dir, "", "remote", "add", "origin", "ssh://git@"+srv.Addr+bare)

	fp := ssh.FingerprintSHA256(srv.HostKey.PublicKey())
	out, errs, code := cliEnv(t, dir, vars, "remote", "check", "origin")
	if code != exitError || !strings.Contains(errs, fp) || !strings.Contains(errs, "norn remote trust") {
		t.Fatalf("unknown host: exit %d\n%s%s", code, out, errs)
	}
	if out, _, code := cliEnv(t, dir, vars, "remote", "trust", "origin"); code != 0 || !strings.Contains(out, fp) {
		t.Fatalf("trust without a fingerprint: exit %d\n%s", code, out)
	}
	other, _ := gitserve.NewKey(t)
	if _, _, code := cliEnv(t, dir, vars, "remote", "trust", "origin", ssh.FingerprintSHA256(other.PublicKey())); code == 0 {
		t.Fatal("trust with the wrong fingerprint succeeded")
	}
	if _, err := os.Stat(filepath.Join(home, ".ssh", "known_hosts")); err == nil {
		t.Fatal("a refused trust wrote known_hosts")
	}
	if out, errs, code := cliEnv(t, dir, vars, "remote", "trust", "origin", fp); code != 0 {
		t.Fatalf("trust: exit %d\n%s%s", code, out, errs)
	}
	if out, errs, code := cliEnv(t, dir, vars, "remote", "check", "origin"); code != 0 || !strings.Contains(out, "empty") {
		t.Fatalf("check after trust: exit %d\n%s%s", code, out, errs)
	}
}

// TestCLI_Clone: norn clone makes a working vault from a remote a norn vault
// pushed to: files checked out, git status clean, the index built (search finds a
// note), origin tracked; an empty remote gets the seeded first commit, ahead by one.
func TestCLI_Clone(t *testing.T) {
	src := newVault(t)
	mustCLI(t, src, "---\ntitle: Bloom filters\ntags: [data-structures]\n---\n# Bloom filters\nHashing into bits.\n", "write", "tech/bloom.md")
	bare := newBareRemote(t)
	mustCLI(t, src, "", "remote", "add", "origin", bare)
	git(t, src, "push", "-q", "origin", "main")

	dst := filepath.Join(t.TempDir(), "laptop")
	out, errs, code := cli(t, "", "", "clone", bare, dst, "--json")
	if code != 0 {
		t.Fatalf("clone: exit %d\n%s%s", code, out, errs)
	}
	m := decode(t, out)
	srcHead := strings.TrimSpace(git(t, src, "rev-parse", "HEAD"))
	if m["remote_tip"] != srcHead || m["head"] != srcHead || m["seeded"] != false {
		t.Errorf("clone --json: %v (source at %s)", m, srcHead)
	}
	if st := git(t, dst, "status", "--porcelain"); st != "" {
		t.Errorf("clone not clean:\n%s", st)
	}
	if got := mustCLI(t, dst, "", "read", "tech/bloom.md"); !strings.Contains(got, "Hashing into bits.") {
		t.Errorf("read in the clone: %q", got)
	}
	if got := mustCLI(t, dst, "", "search", "hashing", "--json"); !strings.Contains(got, "tech/bloom.md") {
		t.Errorf("search in the clone:\n%s", got)
	}
	if got := strings.TrimSpace(git(t, dst, "config", "branch.main.remote")); got != "origin" {
		t.Errorf("branch.main.remote = %q", got)
	}
	// Into a non-empty folder: refused, untouched.
	if _, _, code := cli(t, "", "", "clone", bare, dst); code != exitError {
		t.Errorf("clone into a vault: exit %d", code)
	}

	empty := filepath.Join(t.TempDir(), "fresh")
	m = decode(t, mustCLI(t, "", "", "clone", newBareRemote(t), empty, "--json"))
	if m["remote_tip"] != "" || m["seeded"] != true || m["head"] == "" {
		t.Errorf("clone of an empty remote: %v", m)
	}
	c := decode(t, mustCLI(t, empty, "", "remote", "check", "origin", "--json"))
	if c["ahead"] != 1.0 || c["behind"] != 0.0 {
		t.Errorf("check after an empty clone: %v", c)
	}
}
