package testvault

import (
	"context"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// Owner is the owner of the vaults these helpers make.
var Owner = repo.Author{Name: "o", Email: "o@x"}

// Clock is the pinned commit time of Served's vaults.
func Clock() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }

// Served imports files into a new vault (one import commit, the default gates
// profile) and opens it with vault.Open: gates and index wired, commit times
// pinned. It is closed when the test ends.
func Served(t testing.TB, files map[string]string) *vault.Vault {
	t.Helper()
	return served(t, files, Clock)
}

// served is Served with commit times from now (nil: the real clock).
func served(t testing.TB, files map[string]string, now func() time.Time) *vault.Vault {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	WriteFiles(t, dir, files)
	v0, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Owner: Owner, Now: now},
		Seed: map[string][]byte{string(vault.ConfigPath): []byte("gates:\n  profile: default\n")}})
	if err != nil {
		t.Fatal(err)
	}
	v0.Close()
	v, err := vault.Open(ctx, dir, vault.Options{Repo: repo.Options{Owner: Owner, Now: now}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// WithoutIndex is v as a second process sees it while v holds the index: a second
// handle on the same vault whose index is not open, so that link queries and
// name resolution read the notes at HEAD. It is closed when the test ends.
func WithoutIndex(t testing.TB, v *vault.Vault) *vault.Vault {
	t.Helper()
	w, err := vault.Open(context.Background(), v.Dir(), vault.Options{LazyIndex: true, Repo: repo.Options{Owner: Owner, Now: Clock}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}
