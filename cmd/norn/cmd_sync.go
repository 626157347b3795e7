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

// runSync syncs the vault with one remote (remote.Remotes.Sync).
func runSync(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("sync", g)
	pos, err := parseArgs(fs, args, 0, 1)
	if err != nil {
		return err
	}
	v, rs, err := openRemotes(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	name, err := pickRemote(rs, pos)
	if err != nil {
		return err
	}
	res, err := rs.Sync(ctx, v, name, remote.SyncOptions{Machine: machineName(e)})
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
	m, err := loadMachine(e, v.GitDir())
	if err != nil {
		v.Close()
		return nil, nil, err
	}
	rs, err := remote.Open(v.GitDir(), remote.Options{Branch: strings.TrimPrefix(v.Branch(), "refs/heads/"), Logger: logger(e, g), Credentials: remoteCredentials(e, m)})
	if err != nil {
		v.Close()
		return nil, nil, err
	}
	return v, rs, nil
}

// pickRemote is the remote named in pos, else the only one, else origin.
func pickRemote(rs *remote.Remotes, pos []string) (string, error) {
	if len(pos) == 1 {
		return pos[0], nil
	}
	list, err := rs.List()
	if err != nil {
		return "", err
	}
	switch {
	case len(list) == 0:
		return "", usagef("the vault has no remote: add one with norn remote add NAME URL")
	case len(list) == 1:
		return list[0].Name, nil
	}
	return "origin", nil
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
