package auth_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTokens_AddListRevoke(t *testing.T) {
	path := testmcp.TokensPath(t)
	tok := auth.OpenTokens(path, nil)
	if list, err := tok.List(); err != nil || len(list) != 0 {
		t.Fatalf("no file: %v %v", list, err)
	}
	secret, err := tok.Add("claude", []auth.Scope{auth.ScopeRead, auth.ScopeWrite, auth.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, auth.TokenPrefix) || len(secret) != len(auth.TokenPrefix)+43 {
		t.Fatalf("token %q", secret)
	}
	other, err := tok.Add("codex", []auth.Scope{auth.ScopeRead})
	if err != nil || other == secret {
		t.Fatalf("second token: %q %v", other, err)
	}

	// Only digests on disk, mode 0600.
	disk := readFile(t, path)
	sum := sha256.Sum256([]byte(secret))
	if strings.Contains(disk, secret) || strings.Contains(disk, strings.TrimPrefix(secret, auth.TokenPrefix)) {
		t.Fatal("the token itself is in the file")
	}
	if !strings.Contains(disk, hex.EncodeToString(sum[:])) {
		t.Fatalf("digest missing:\n%s", disk)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}

	list, err := tok.List()
	if err != nil || len(list) != 2 || list[0].Name != "claude" || list[1].Name != "codex" ||
		!slices.Equal(list[0].Scopes, []auth.Scope{auth.ScopeRead, auth.ScopeWrite}) || list[0].Created.IsZero() {
		t.Fatalf("list: %+v %v", list, err)
	}
	p, ok := tok.Authenticate(secret)
	if !ok || p.Name != "claude" || p.Owner || !p.Can(auth.ScopeWrite) || p.Can(auth.ScopePrivate) {
		t.Fatalf("authenticate: %+v %v", p, ok)
	}
	if p, ok := tok.Authenticate(other); !ok || p.Name != "codex" || p.Can(auth.ScopeWrite) {
		t.Fatalf("authenticate codex: %+v %v", p, ok)
	}
	for _, bad := range []string{"", auth.TokenPrefix, secret + "x", secret[:len(secret)-1], hex.EncodeToString(sum[:])} {
		if _, ok := tok.Authenticate(bad); ok {
			t.Errorf("%q authenticated", bad)
		}
	}

	// Bad input: classified, file unchanged.
	before := readFile(t, path)
	for _, c := range []struct {
		name   string
		scopes []auth.Scope
		want   error
	}{
		{"claude", []auth.Scope{auth.ScopeRead}, repo.ErrConflict},
		{"", []auth.Scope{auth.ScopeRead}, repo.ErrInvalid},
		{"a<b>", []auth.Scope{auth.ScopeRead}, repo.ErrInvalid},
		{"two\nlines", []auth.Scope{auth.ScopeRead}, repo.ErrInvalid},
		{" padded", []auth.Scope{auth.ScopeRead}, repo.ErrInvalid},
		{strings.Repeat("x", auth.MaxPrincipalName+1), []auth.Scope{auth.ScopeRead}, repo.ErrInvalid},
		{"ok", []auth.Scope{"root"}, repo.ErrInvalid},
		{"ok", nil, repo.ErrInvalid},
	} {
		if got, err := tok.Add(c.name, c.scopes); !errors.Is(err, c.want) || got != "" {
			t.Errorf("Add(%q, %v) = %q, %v; want %v", c.name, c.scopes, got, err, c.want)
		}
	}
	if _, err := tok.Add(strings.Repeat("x", auth.MaxPrincipalName), []auth.Scope{auth.ScopeAdmin}); err != nil {
		t.Fatalf("a name of exactly %d bytes: %v", auth.MaxPrincipalName, err)
	}
	if err := tok.Revoke(strings.Repeat("x", auth.MaxPrincipalName)); err != nil {
		t.Fatal(err)
	}
	if err := tok.Revoke("nobody"); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("revoke unknown: %v", err)
	}
	if got := readFile(t, path); got != before {
		t.Fatalf("refused changes changed the file:\n%s\n---\n%s", before, got)
	}

	if err := tok.Revoke("claude"); err != nil {
		t.Fatal(err)
	}
	if _, ok := tok.Authenticate(secret); ok {
		t.Fatal("revoked token still authenticates")
	}
	if _, ok := tok.Authenticate(other); !ok {
		t.Fatal("revoking one token dropped another")
	}
	if list, _ := tok.List(); len(list) != 1 || list[0].Name != "codex" {
		t.Fatalf("after revoke: %+v", list)
	}
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file left behind: %v", err)
	}
}

// TestTokens_HotReload: a second Tokens on the same file (another process: the CLI
// next to a running server) sees adds and revokes without being reopened, including a
// file rewritten by hand.
func TestTokens_HotReload(t *testing.T) {
	path := testmcp.TokensPath(t)
	cli := auth.OpenTokens(path, nil)
	srv := auth.OpenTokens(path, nil)
	if _, ok := srv.Authenticate("norn_x"); ok {
		t.Fatal("empty file authenticated")
	}
	a, err := cli.Add("a", []auth.Scope{auth.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := srv.Authenticate(a); !ok || p.Name != "a" {
		t.Fatal("added token not picked up")
	}
	b, err := cli.Add("b", []auth.Scope{auth.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := srv.Authenticate(b); !ok {
		t.Fatal("second added token not picked up")
	}
	if err := cli.Revoke("a"); err != nil {
		t.Fatal(err)
	}
	if _, ok := srv.Authenticate(a); ok {
		t.Fatal("revoked token still accepted by the other instance")
	}
	// A hand edit that keeps only b's line under another name.
	var kept string
	for _, line := range strings.Split(readFile(t, path), "\n") {
		if strings.Contains(line, `"name":"b"`) {
			kept = strings.Replace(line, `"name":"b"`, `"name":"renamed"`, 1)
		}
	}
	if err := os.WriteFile(path, []byte(kept+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, ok := srv.Authenticate(b); !ok || p.Name != "renamed" {
		t.Fatalf("hand edit not picked up: %+v %v", p, ok)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, ok := srv.Authenticate(b); ok {
		t.Fatal("token accepted after the file was removed")
	}
}

// TestTokens_MalformedFailsClosed: a file that does not parse authenticates nobody,
// says so in the log once per version, refuses changes, and recovers when fixed.
func TestTokens_MalformedFailsClosed(t *testing.T) {
	path := testmcp.TokensPath(t)
	good, err := auth.OpenTokens(path, nil).Add("a", []auth.Scope{auth.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	valid := readFile(t, path)
	line := ""
	for _, l := range strings.Split(valid, "\n") {
		if strings.HasPrefix(l, "{") {
			line = l
		}
	}
	for name, bad := range map[string]string{
		"not json":       valid + "{not json\n",
		"unknown field":  strings.Replace(line, `"name"`, `"admin":true,"name"`, 1) + "\n",
		"short digest":   `{"name":"x","sha256":"abcd","scopes":["read"]}` + "\n",
		"unknown scope":  strings.Replace(line, `"read"`, `"root"`, 1) + "\n",
		"no scopes":      strings.Replace(line, `["read"]`, `[]`, 1) + "\n",
		"bad name":       strings.Replace(line, `"name":"a"`, `"name":"\u003cx\u003e"`, 1) + "\n",
		"duplicate name": line + "\n" + line + "\n",
		"two values":     line + " {}\n",
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			tok := auth.OpenTokens(path, slog.New(slog.NewTextHandler(&logs, nil)))
			for range 3 {
				if _, ok := tok.Authenticate(good); ok {
					t.Fatal("a malformed tokens file authenticated")
				}
			}
			if n := strings.Count(logs.String(), "tokens file unusable"); n != 1 {
				t.Fatalf("logged %d times:\n%s", n, logs.String())
			}
			if _, err := tok.List(); err == nil {
				t.Fatal("List of a malformed file succeeded")
			}
			if _, err := tok.Add("new", []auth.Scope{auth.ScopeRead}); err == nil {
				t.Fatal("Add over a malformed file succeeded")
			}
			if got := readFile(t, path); got != bad {
				t.Fatal("a refused Add changed the malformed file")
			}
			// Fixed by hand: works again without reopening.
			if err := os.WriteFile(path, []byte(valid), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, ok := tok.Authenticate(good); !ok {
				t.Fatal("fixed file not picked up")
			}
		})
	}
}

// TestTokens_Locked: a held tokens.lock (another norn changing the tokens) refuses a
// change and leaves the file alone.
func TestTokens_Locked(t *testing.T) {
	path := testmcp.TokensPath(t)
	tok := auth.OpenTokens(path, nil)
	if _, err := tok.Add("a", []auth.Scope{auth.ScopeRead}); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, path)
	if err := os.WriteFile(path+".lock", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := tok.Add("b", []auth.Scope{auth.ScopeRead}); err == nil || !strings.Contains(err.Error(), "tokens.lock") {
		t.Fatalf("add under a held lock: %v", err)
	}
	if err := tok.Revoke("a"); err == nil {
		t.Fatal("revoke under a held lock succeeded")
	}
	if readFile(t, path) != before {
		t.Fatal("file changed under a held lock")
	}
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatal("someone else's lock was removed")
	}
}
