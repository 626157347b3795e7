package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
	"github.com/norn-vault/norn/vault"
)

// runClone makes a working vault from a remote: clone (remote "origin", the branch
// checked out and tracking it), adopt it as norn init does (an empty remote gets
// the seeded first commit, which the first sync pushes), and build the index.
func runClone(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("clone", g)
	branch := ""
	fs.Var(checkedString{&branch, nonEmpty}, "branch", "the remote's branch to clone and sync (default main)")
	args, err := parseArgs(fs, args, 2, 2)
	if err != nil {
		return err
	}
	url, dir := absLocalURL(args[0]), args[1]
	// The clone has no machine.yaml yet: credentials come from the environment
	// (NORN_REMOTE_ORIGIN_TOKEN, $SSH_AUTH_SOCK, ~/.ssh).
	var progress remote.Progress
	if !g.json {
		progress = func(line string) { fmt.Fprintf(e.stderr, "origin: %s\n", line) }
	}
	tip, err := remote.Clone(ctx, url, dir, remote.Options{
		Branch:      branch,
		Logger:      logger(e, g),
		Credentials: remoteCredentials(e, config.DefaultMachine()),
	}, progress)
	if err != nil {
		return err
	}
	settings := vault.NewSettings()
	v, res, err := repo.Init(ctx, dir, repo.InitOptions{
		Options: repo.Options{Logger: logger(e, g), Gate: settings.Gate, PathGate: settings.PathGate},
		Seed:    map[string][]byte{string(vault.ConfigPath): []byte(defaultConfig)},
	})
	if err != nil {
		return fmt.Errorf("clone: the repository is cloned in %s but could not be opened as a vault: %w", dir, err)
	}
	defer v.Close()
	settings.Bind(v)
	x := openIndexer(ctx, e, g, v, settings)
	defer x.Close()
	if err := rebuildWithBar(ctx, e, x); err != nil {
		return err
	}
	if g.json {
		return printJSON(e, map[string]any{"dir": v.Dir(), "remote_tip": tip, "head": v.Head(), "seeded": res.Imported != nil})
	}
	if tip == "" {
		fmt.Fprintf(e.stdout, "cloned an empty remote into %s; the vault's first commit %s waits for the first sync\n", v.Dir(), v.Head().Short())
		return nil
	}
	fmt.Fprintf(e.stdout, "cloned %s into %s at %s, index built\n", url, v.Dir(), tip.Short())
	return nil
}
