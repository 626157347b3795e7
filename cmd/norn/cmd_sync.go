package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/norn-vault/norn/sync/remote"
	"github.com/norn-vault/norn/vault"
)

// runSync syncs the vault with one remote (vault.Syncer.Sync).
func runSync(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("sync", g)
	pos, err := parseArgs(fs, args, 0, 1)
	if err != nil {
		return err
	}
	v, s, err := openSyncer(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	name, err := pickRemote(s, pos)
	if err != nil {
		return err
	}
	res, err := s.Sync(ctx, name)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, res)
	}
	fmt.Fprintf(e.stdout, "%s: %s at %s\n", res.Remote, res.Outcome, res.Head.Short())
	for _, k := range res.Kept {
		fmt.Fprintf(e.stdout, "kept: %s\n", k)
	}
	for _, rp := range res.Refused {
		fmt.Fprintf(e.stdout, "refused: %q (%s)\n", rp.Path, rp.Reason)
	}
	for _, c := range res.Conflicts {
		fmt.Fprintf(e.stdout, "conflict: %s (theirs at %s)\n", c.Path, c.Sibling)
	}
	if len(res.Conflicts) > 0 {
		fmt.Fprintln(e.stdout, "resolve each by editing the note, then archive its sibling (norn conflicts lists them)")
	}
	return nil
}

// openRemotes opens the vault and its remotes with this machine's credentials.
func openRemotes(ctx context.Context, e *env, g *globals) (*vault.Vault, *remote.Remotes, error) {
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return nil, nil, err
	}
	rs, err := vaultRemotes(e, g, v)
	if err != nil {
		v.Close()
		return nil, nil, err
	}
	return v, rs, nil
}

// vaultRemotes opens v's remotes with this machine's credentials.
func vaultRemotes(e *env, g *globals, v *vault.Vault) (*remote.Remotes, error) {
	m, err := loadMachine(e, v.GitDir())
	if err != nil {
		return nil, err
	}
	return remote.Open(v.GitDir(), remote.Options{Branch: strings.TrimPrefix(v.Branch(), "refs/heads/"), Logger: logger(e, g), Credentials: remoteCredentials(e, m)})
}

// newSyncer is v's Syncer over its remotes, with this machine's credentials
// and name.
func newSyncer(e *env, g *globals, v *vault.Vault) (*vault.Syncer, error) {
	rs, err := vaultRemotes(e, g, v)
	if err != nil {
		return nil, err
	}
	return vault.NewSyncer(v, rs, vault.SyncerOptions{Machine: machineName(e), Logger: logger(e, g)}), nil
}

// openSyncer opens the vault and its Syncer.
func openSyncer(ctx context.Context, e *env, g *globals) (*vault.Vault, *vault.Syncer, error) {
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return nil, nil, err
	}
	s, err := newSyncer(e, g, v)
	if err != nil {
		v.Close()
		return nil, nil, err
	}
	return v, s, nil
}

// pickRemote is the remote named in pos, else the default one
// (vault.Syncer.DefaultRemote), else origin (which then says it does not exist).
func pickRemote(s *vault.Syncer, pos []string) (string, error) {
	if len(pos) == 1 {
		return pos[0], nil
	}
	list, err := s.Remotes().List()
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", usagef("the vault has no remote: add one with norn remote add NAME URL")
	}
	name, err := s.DefaultRemote()
	if name == "" && err == nil {
		name = "origin"
	}
	return name, err
}

// machineName names this machine in conflict siblings: $NORN_MACHINE, else the
// host name (its first label), else "norn".
func machineName(e *env) string {
	name := e.getenv("NORN_MACHINE")
	if name == "" {
		h, _ := os.Hostname()
		name, _, _ = strings.Cut(h, ".")
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`/\:*?"<>|()[]#^`, r) {
			return '-'
		}
		return r
	}, strings.TrimSpace(name))
	for len(name) > 64 {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name = strings.TrimSpace(name); name == "" {
		return "norn"
	}
	return name
}
