package vault_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

func openVault(t *testing.T) (*repo.Vault, *vault.Settings) {
	t.Helper()
	s := vault.NewSettings()
	v, _, err := repo.Init(context.Background(), t.TempDir(), repo.InitOptions{
		Options: repo.Options{Gate: s.Gate, Owner: repo.Author{Name: "o", Email: "o@x"}},
		Seed:    map[string][]byte{string(vault.ConfigPath): []byte("gates:\n  profile: default\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Bind(v)
	t.Cleanup(func() { v.Close() })
	return v, s
}

func write(v *repo.Vault, p, content string, roles ...string) error {
	path := note.Path(p)
	_, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "a"}, Roles: roles, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: path, Content: []byte(content), ExpectedRevision: v.Revision(path)}}})
	return err
}

func TestSettings_FollowsConfigAtHead(t *testing.T) {
	v, s := openVault(t)
	ctx := context.Background()
	strictNote := "---\ntitle: T\ntags: [one]\n---\n# T\n"
	if err := write(v, "a.md", strictNote, "owner"); err != nil {
		t.Fatalf("default profile refused a valid note: %v", err)
	}
	if err := write(v, ".norn/config.yaml", "gates:\n  profile: strict\n", "owner"); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := s.Current(ctx)
	if err != nil || cfg.Gates.Profile != "strict" {
		t.Fatalf("settings did not follow HEAD: %v %v", cfg.Gates.Profile, err)
	}
	err = write(v, "b.md", strictNote, "owner")
	var rej *hooks.Rejection
	if !errors.Is(err, repo.ErrRejected) || !errors.As(err, &rej) {
		t.Fatalf("strict profile passed a note without type and status: %v", err)
	}
}

func TestSettings_RejectsInvalidConfig(t *testing.T) {
	v, _ := openVault(t)
	head := v.Head()
	err := write(v, ".norn/config.yaml", "gates:\n  profile: lenient\n  colour: blue\n", "owner")
	var rej *hooks.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("invalid config accepted: %v", err)
	}
	found := false
	for _, vi := range rej.Violations {
		found = found || vi.Rule == "config-invalid"
	}
	if !found || v.Head() != head {
		t.Fatalf("violations %v, head moved %v", rej.Violations, v.Head() != head)
	}
}

func notePath(p string) note.Path { return note.Path(p) }

func writeFile(t *testing.T, v *repo.Vault, p, content string) {
	t.Helper()
	full := filepath.Join(v.Dir(), filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSettings_PathGate_AgreesWithRepo: repo and hooks reserve the same temporary
// prefix and name limit, so a name repo refuses is one the gates name a rule for.
func TestSettings_PathGate_AgreesWithRepo(t *testing.T) {
	if repo.TempPrefix != hooks.TempPrefix || repo.MaxNameBytes != hooks.MaxNameBytes {
		t.Fatalf("repo (%q, %d) and hooks (%q, %d) disagree", repo.TempPrefix, repo.MaxNameBytes, hooks.TempPrefix, hooks.MaxNameBytes)
	}
}
