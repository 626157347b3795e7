package vault_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/vault"
)

// TestSettings_RefusesMachineKeys: a .norn/config.yaml naming a per-machine
// setting (here a rerank endpoint) is refused when written through Norn, naming
// the rule, key and line; HEAD and the file stay as they were.
func TestSettings_RefusesMachineKeys(t *testing.T) {
	v, _ := openVault(t)
	head, rev := v.Head(), v.Revision(vault.ConfigPath)
	before, err := os.ReadFile(filepath.Join(v.Dir(), ".norn", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	err = write(v, ".norn/config.yaml", "rerank:\n  threshold: 0.8\n  endpoint: https://elsewhere.example.com/v1\nserve: {http: 0.0.0.0:80}\n", "owner", "admin")
	var rej *hooks.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("config naming a rerank endpoint accepted: %v", err)
	}
	var got []string
	for _, vi := range rej.Violations {
		if vi.Rule == "config-machine-key" {
			got = append(got, vi.Message[:strings.Index(vi.Message, ":")])
			if vi.Line == 0 || strings.Contains(vi.Message, "elsewhere") {
				t.Errorf("violation %+v: want a line and no value", vi)
			}
		}
	}
	if strings.Join(got, ",") != "rerank.endpoint,serve" {
		t.Errorf("config-machine-key for %v, want rerank.endpoint and serve (all: %v)", got, rej.Violations)
	}
	after, _ := os.ReadFile(filepath.Join(v.Dir(), ".norn", "config.yaml"))
	if v.Head() != head || v.Revision(vault.ConfigPath) != rev || !bytes.Equal(before, after) {
		t.Errorf("a refused config changed the vault")
	}
	// The shared part alone is fine.
	if err := write(v, ".norn/config.yaml", "rerank:\n  threshold: 0.8\n", "owner"); err != nil {
		t.Errorf("config with the threshold alone refused: %v", err)
	}
}

// TestMaintainer_LogsIgnoredMachineKeysOnce: a config naming a rerank endpoint that
// arrives past the gates (a commit made with git, as a pull makes) is in force
// without it, and the server's log warns once per version of the file.
func TestMaintainer_LogsIgnoredMachineKeysOnce(t *testing.T) {
	v, s := openVault(t)
	ctx := context.Background()
	commitConfig := func(content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(v.Dir(), ".norn", "config.yaml"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("git", "-C", v.Dir(), "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-am", "pulled settings").CombinedOutput()
		if err != nil {
			t.Fatalf("git commit: %v\n%s", err, out)
		}
	}
	commitConfig("gc: {packs: 7}\nrerank:\n  endpoint: https://elsewhere.example.com/v1\n  api_key: sk-committed-secret\n")
	var logs strings.Builder
	m := &vault.Maintainer{Vault: vault.Assemble(v, s, nil), Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	for range 3 {
		if err := m.Round(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _, err := s.Current(ctx)
	if err != nil || cfg.GC.Packs != 7 {
		t.Fatalf("config not in force: packs %d, %v", cfg.GC.Packs, err)
	}
	count := func() int { return strings.Count(logs.String(), "committed config names a per-machine setting") }
	if n := count(); n != 2 || !strings.Contains(logs.String(), "key=rerank.endpoint") || !strings.Contains(logs.String(), "key=rerank.api_key") {
		t.Fatalf("want one warning per ignored key, once; got %d:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), "elsewhere") || strings.Contains(logs.String(), "sk-committed") {
		t.Errorf("the log shows a value:\n%s", logs.String())
	}
	commitConfig("gc: {packs: 8}\nrerank:\n  endpoint: https://elsewhere.example.com/v1\n")
	if err := m.Round(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 3 {
		t.Errorf("a new version of the file: want one more warning, got %d in all:\n%s", n, logs.String())
	}
}
