package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

const machineSecret = "sk-machine-secret-0123456789"

// cliEnv is cli with more environment variables.
func cliEnv(t *testing.T, dir string, vars map[string]string, args ...string) (string, string, int) {
	t.Helper()
	return cliEnvIn(t, dir, vars, "", args...)
}

// cliEnvIn is cliEnv with stdin.
func cliEnvIn(t *testing.T, dir string, vars map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string {
		if k == "NORN_VAULT" {
			return dir
		}
		return vars[k]
	}}
	code := run(context.Background(), args, e)
	return out.String(), errb.String(), code
}

func writeMachine(t *testing.T, dir, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, ".git", "norn", "machine.yaml")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return p
}

// TestMachine_NeverCommitted: with a machine.yaml holding a secret, writes, `norn
// commit` of a hand edit, gc and a maintenance round leave nothing of .git/norn/ in
// any commit (git as the oracle) and git status clean.
func TestMachine_NeverCommitted(t *testing.T) {
	dir := newVault(t)
	writeMachine(t, dir, "rerank:\n  endpoint: http://127.0.0.1:9/v1\n  api_key: "+machineSecret+"\n", 0o600)
	mustCLI(t, dir, "---\ntitle: A\ntags: [x]\n---\n# A\n", "write", "a.md")
	if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("# B\nby hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, dir, "", "commit")
	mustCLI(t, dir, "", "gc")
	ctx := context.Background()
	v, err := vault.Open(ctx, dir, vault.Options{Repo: repo.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "c.md"), []byte("# C\nby hand, for the maintainer\n"), 0o644)
	if err := (&vault.Maintainer{Vault: v}).Round(ctx); err != nil {
		t.Fatal(err)
	}
	v.Close()
	if out := mustCLI(t, dir, "", "machine", "show"); strings.Contains(out, machineSecret) || !strings.Contains(out, "[redacted]") {
		t.Errorf("machine show:\n%s", out)
	}

	if n := strings.Count(git(t, dir, "log", "--format=%H"), "\n"); n < 4 {
		t.Fatalf("want init, write, commit and the maintainer's commit; got %d commits", n)
	}
	paths := git(t, dir, "log", "--all", "--name-only", "--format=")
	if !strings.Contains(paths, "c.md") {
		t.Fatalf("the maintainer's commit is missing:\n%s", paths)
	}
	objects := git(t, dir, "rev-list", "--all", "--objects")
	for _, bad := range []string{"machine.yaml", "tokens", "norn/index"} {
		if strings.Contains(objects, bad) {
			t.Errorf("a commit holds %s:\n%s", bad, objects)
		}
	}
	revs := strings.Fields(git(t, dir, "rev-list", "--all"))
	if out := gitMaybe(dir, append([]string{"grep", "-l", machineSecret}, revs...)...); out != "" {
		t.Errorf("the secret is in history:\n%s", out)
	}
	if st := git(t, dir, "status", "--porcelain", "--ignored", "--untracked-files=all"); st != "" {
		t.Errorf("git status not clean:\n%s", st)
	}
	fi, err := os.Stat(filepath.Join(dir, ".git", "norn", "machine.yaml"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("machine.yaml: %v %v", fi, err)
	}
}

// gitMaybe runs git and returns its stdout, "" when it fails (git grep finding
// nothing exits 1).
func gitMaybe(dir string, args ...string) string {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// TestMachine_Precedence: the environment overrides machine.yaml; a bad value in
// either is a classified error naming where it is, without the secret.
func TestMachine_Precedence(t *testing.T) {
	dir := newVault(t)
	writeMachine(t, dir, "rerank:\n  endpoint: http://127.0.0.1:9/v1\n  model: from-file\n  api_key_env: MY_KEY\n", 0o644)
	out := mustCLI(t, dir, "", "machine", "show", "--json")
	if !strings.Contains(out, `"Endpoint": "http://127.0.0.1:9/v1"`) || !strings.Contains(out, `"Model": "from-file"`) || !strings.Contains(out, `"APIKey": ""`) {
		t.Errorf("file alone:\n%s", out)
	}
	out, errs, code := cliEnv(t, dir, map[string]string{"MY_KEY": machineSecret, envRerankEndpoint: "https://other.example.com/v1"}, "machine", "show", "--json")
	if code != 0 || !strings.Contains(out, `"Endpoint": "https://other.example.com/v1"`) || !strings.Contains(out, `"Model": "from-file"`) ||
		!strings.Contains(out, `"APIKey": "[redacted]"`) || strings.Contains(out, machineSecret) {
		t.Errorf("env over file: exit %d\n%s%s", code, out, errs)
	}
	out, _, code = cliEnv(t, dir, map[string]string{envRerankEndpoint: "ftp://x"}, "machine", "show", "--json")
	if code != exitError || !strings.Contains(out, `"code":"invalid"`) || !strings.Contains(out, envRerankEndpoint) {
		t.Errorf("bad env endpoint: exit %d\n%s", code, out)
	}
	// A secret in a file others may read is refused, and doctor says so.
	writeMachine(t, dir, "rerank:\n  api_key: "+machineSecret+"\n", 0o644)
	out, errs, code = cli(t, dir, "", "machine", "show")
	if code != exitError || !strings.Contains(errs, "chmod 600") || strings.Contains(out+errs, machineSecret) {
		t.Errorf("readable secret file: exit %d\n%s%s", code, out, errs)
	}
	out, _, code = cli(t, dir, "", "doctor")
	if code != exitError || !strings.Contains(out, "fail  machine") {
		t.Errorf("doctor on a readable secret file: exit %d\n%s", code, out)
	}
}

// TestCLI_ConfigMachineKeys: `norn write` of a config naming a rerank endpoint is
// refused (exit 4, config-machine-key, nothing written); one committed with git (as a
// pull brings it) is reported by doctor, key and line, without the value.
func TestCLI_ConfigMachineKeys(t *testing.T) {
	dir := newVault(t)
	head := git(t, dir, "rev-parse", "HEAD")
	bad := "rerank:\n  endpoint: https://elsewhere.example.com/v1\n"
	out, _, code := cli(t, dir, bad, "write", ".norn/config.yaml", "--json",
		"--expected-revision", strings.TrimSpace(git(t, dir, "rev-parse", "HEAD:.norn/config.yaml")))
	if code != exitRejected || !strings.Contains(out, "config-machine-key") {
		t.Fatalf("write: exit %d\n%s", code, out)
	}
	if git(t, dir, "rev-parse", "HEAD") != head || git(t, dir, "status", "--porcelain") != "" {
		t.Fatal("a refused config changed the vault")
	}
	if err := os.WriteFile(filepath.Join(dir, ".norn", "config.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "commit", "-qam", "pulled settings")
	out, _, code = cli(t, dir, "", "doctor")
	if code != exitOK || !strings.Contains(out, "warn  config-machine-keys") || !strings.Contains(out, "rerank.endpoint (line 2)") ||
		strings.Contains(out, "elsewhere") {
		t.Errorf("doctor: exit %d\n%s", code, out)
	}
}

// TestServeDefaults: machine.yaml's serve settings apply where no flag is given.
func TestServeDefaults(t *testing.T) {
	m := config.Serve{HTTP: "127.0.0.1:7777", MaxConcurrent: 8, AllowUnauthenticatedLoopback: true, SyncInterval: config.Duration(time.Minute)}
	tests := []struct {
		args  []string
		stdio bool
		addr  string
		max   int
		anon  bool
		every time.Duration
	}{
		{nil, false, "127.0.0.1:7777", 8, true, time.Minute},
		{[]string{"--http", "127.0.0.1:1", "--max-concurrent", "2", "--allow-unauthenticated-loopback=false", "--sync-interval", "0"}, false, "127.0.0.1:1", 2, false, 0},
		{[]string{"--stdio", "--sync-interval", "30s"}, true, "", 8, false, 30 * time.Second},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		stdio := fs.Bool("stdio", false, "")
		var addr string
		fs.StringVar(&addr, "http", "", "")
		maxC := fs.Int("max-concurrent", 64, "")
		anon := fs.Bool("allow-unauthenticated-loopback", false, "")
		every := fs.Duration("sync-interval", 0, "")
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		serveDefaults(fs, m, *stdio, &addr, maxC, anon, every)
		if addr != tt.addr || *maxC != tt.max || *anon != tt.anon || *every != tt.every {
			t.Errorf("%v: addr %q max %d anon %v every %s; want %q %d %v %s", tt.args, addr, *maxC, *anon, *every, tt.addr, tt.max, tt.anon, tt.every)
		}
	}
	dir := newVault(t)
	if _, errs, code := cli(t, dir, "", "serve"); code != exitUsage || !strings.Contains(errs, "machine.yaml") {
		t.Errorf("serve without an address: exit %d %s", code, errs)
	}
	if _, errs, code := cli(t, dir, "", "serve", "--stdio", "--sync-interval", "1s"); code != exitUsage || !strings.Contains(errs, "--sync-interval 1s") {
		t.Errorf("serve --sync-interval 1s: exit %d %s", code, errs)
	}
}
