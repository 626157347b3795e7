package remote_test

import (
	"crypto/ed25519"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/internal/gitserve"
	"github.com/norn-vault/norn/sync/remote"
)

// writeKey writes a private key file (encrypted when passphrase is set).
func writeKey(t *testing.T, priv ed25519.PrivateKey, passphrase string) string {
	t.Helper()
	var block *pem.Block
	var err error
	if passphrase != "" {
		block, err = ssh.MarshalPrivateKeyWithPassphrase(priv, "", []byte(passphrase))
	} else {
		block, err = ssh.MarshalPrivateKey(priv, "")
	}
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeKnownHosts(t *testing.T, addr string, keys ...ssh.PublicKey) string {
	t.Helper()
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(knownhosts.Line([]string{knownhosts.Normalize(addr)}, k) + "\n")
	}
	path := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRemotes_SSH(t *testing.T) {
	ctx := t.Context()
	client, priv := gitserve.NewKey(t)
	srv := gitserve.SSH(t, client.PublicKey())
	bare := newBare(t)
	url := "ssh://git@" + srv.Addr + bare
	keyFile := writeKey(t, priv, "")
	known := writeKnownHosts(t, srv.Addr, srv.HostKey.PublicKey())
	other, _ := gitserve.NewKey(t)
	changed := writeKnownHosts(t, srv.Addr, other.PublicKey())
	wrongKey := writeKey(t, func() ed25519.PrivateKey { _, p := gitserve.NewKey(t); return p }(), "")
	creds := map[string]remote.Credentials{
		"origin":   {SSHKey: keyFile, KnownHosts: []string{known}},
		"unknown":  {SSHKey: keyFile, KnownHosts: []string{filepath.Join(t.TempDir(), "missing_known_hosts")}},
		"nofile":   {SSHKey: keyFile},
		"changed":  {SSHKey: keyFile, KnownHosts: []string{changed}},
		"wrongkey": {SSHKey: wrongKey, KnownHosts: []string{known}},
	}
	dir := newVault(t)
	r := open(t, dir, remote.Options{Credentials: func(n string) remote.Credentials { return creds[n] }})
	for name := range creds {
		if err := r.Add(name, url); err != nil {
			t.Fatal(err)
		}
	}
	if tip, err := r.Fetch(ctx, "origin", nil); err != nil || tip != "" {
		t.Fatalf("Fetch(empty over ssh) = %q, %v", tip, err)
	}
	c1 := head(t, dir)
	if err := r.Push(ctx, "origin", c1, "", nil); err != nil {
		t.Fatalf("push over ssh: %v", err)
	}
	if got := remoteTip(t, bare); got != c1 {
		t.Fatalf("remote main = %q", got)
	}
	if tip, err := r.Fetch(ctx, "origin", nil); err != nil || tip != c1 {
		t.Fatalf("Fetch = %q, %v", tip, err)
	}

	// Unknown and changed host keys are refused before any git command runs,
	// with the fingerprint and how to trust it.
	runs := srv.Execs.Load()
	want := ssh.FingerprintSHA256(srv.HostKey.PublicKey())
	for _, name := range []string{"unknown", "nofile", "changed"} {
		_, ferr := r.Fetch(ctx, name, nil)
		perr := r.Push(ctx, name, commit(t, dir, name+".md", "# x\n"), c1, nil)
		for _, err := range []error{ferr, perr} {
			var hk *remote.HostKeyError
			if !errors.Is(err, remote.ErrHostKey) || !errors.As(err, &hk) {
				t.Fatalf("%s: %v, want a HostKeyError", name, err)
			}
			if hk.Fingerprint != want || hk.Changed != (name == "changed") || !strings.Contains(err.Error(), want) ||
				!strings.Contains(err.Error(), "norn remote trust") {
				t.Errorf("%s: %+v\n%v", name, hk, err)
			}
			if name == "unknown" && !strings.Contains(hk.Line, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(srv.HostKey.PublicKey())))) {
				t.Errorf("known_hosts line %q does not hold the host key", hk.Line)
			}
		}
	}
	if srv.Execs.Load() != runs {
		t.Errorf("a git command ran for an untrusted host key")
	}
	if got := remoteTip(t, bare); got != c1 {
		t.Fatalf("refused pushes changed the remote: %q", got)
	}
	if _, err := r.Fetch(ctx, "wrongkey", nil); !errors.Is(err, remote.ErrAuth) {
		t.Errorf("a key the server does not accept: %v, want ErrAuth", err)
	}
}

func TestRemotes_SSHPassphraseAndAgent(t *testing.T) {
	ctx := t.Context()
	client, priv := gitserve.NewKey(t)
	srv := gitserve.SSH(t, client.PublicKey())
	bare := newBare(t)
	known := writeKnownHosts(t, srv.Addr, srv.HostKey.PublicKey())
	const pass = "correct-horse-battery"
	encrypted := writeKey(t, priv, pass)

	// An agent holding the key, on a unix socket.
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: priv}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			agent.ServeAgent(keyring, c)
			c.Close()
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })

	creds := map[string]remote.Credentials{
		"pass":  {SSHKey: encrypted, SSHKeyPassphrase: config.Secret(pass), KnownHosts: []string{known}},
		"wrong": {SSHKey: encrypted, SSHKeyPassphrase: config.Secret("wrong-pass-phrase"), KnownHosts: []string{known}},
		"agent": {SSHAgent: sock, KnownHosts: []string{known}},
	}
	dir := newVault(t)
	r := open(t, dir, remote.Options{Credentials: func(n string) remote.Credentials { return creds[n] }})
	for name := range creds {
		if err := r.Add(name, "ssh://git@"+srv.Addr+bare); err != nil {
			t.Fatal(err)
		}
	}
	c1 := head(t, dir)
	if err := r.Push(ctx, "pass", c1, "", nil); err != nil {
		t.Fatalf("push with an encrypted key: %v", err)
	}
	c2 := commit(t, dir, "b.md", "# B\n")
	if err := r.Push(ctx, "agent", c2, c1, nil); err != nil {
		t.Fatalf("push through the agent: %v", err)
	}
	if got := remoteTip(t, bare); got != c2 {
		t.Fatalf("remote main = %q", got)
	}
	_, err = r.Fetch(ctx, "wrong", nil)
	if err == nil || strings.Contains(err.Error(), "wrong-pass-phrase") {
		t.Errorf("wrong passphrase: %v", err)
	}
}

// Trust writes the offered key only when its fingerprint is the one given; after
// it, the transfer that was refused works.
func TestRemotes_Trust(t *testing.T) {
	ctx := t.Context()
	client, priv := gitserve.NewKey(t)
	srv := gitserve.SSH(t, client.PublicKey())
	bare := newBare(t)
	known := filepath.Join(t.TempDir(), "ssh", "known_hosts")
	creds := remote.Credentials{SSHKey: writeKey(t, priv, ""), KnownHosts: []string{known}}
	dir := newVault(t)
	r := open(t, dir, remote.Options{Credentials: func(string) remote.Credentials { return creds }})
	if err := r.Add("origin", "ssh://git@"+srv.Addr+bare); err != nil {
		t.Fatal(err)
	}
	var hk *remote.HostKeyError
	if _, err := r.Fetch(ctx, "origin", nil); !errors.As(err, &hk) {
		t.Fatalf("fetch before trusting: %v", err)
	}
	other, _ := gitserve.NewKey(t)
	for _, fp := range []string{ssh.FingerprintSHA256(other.PublicKey()), "MD5:aa", ""} {
		if _, err := r.Trust(ctx, "origin", fp, known); err == nil {
			t.Fatalf("Trust(%q) accepted a fingerprint the server does not have", fp)
		}
	}
	if _, err := os.Stat(known); err == nil {
		t.Fatal("a refused Trust wrote known_hosts")
	}
	line, err := r.Trust(ctx, "origin", hk.Fingerprint, known)
	if err != nil || line != hk.Line {
		t.Fatalf("Trust = %q, %v; want %q", line, err, hk.Line)
	}
	if _, err := r.Trust(ctx, "origin", hk.Fingerprint, known); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, known)); got != hk.Line+"\n" {
		t.Errorf("known_hosts = %q", got)
	}
	if err := r.Push(ctx, "origin", head(t, dir), "", nil); err != nil {
		t.Fatalf("push after trusting: %v", err)
	}
	// The file's line is what OpenSSH reads too.
	if out, err := exec.Command("ssh-keygen", "-F", knownhosts.Normalize(srv.Addr), "-f", known).CombinedOutput(); err == nil &&
		!strings.Contains(string(out), "found") {
		t.Errorf("ssh-keygen -F does not find the host:\n%s", out)
	}
}
