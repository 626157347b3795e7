package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"strings"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
)

// vaultDir resolves the vault folder: --vault, else $NORN_VAULT, else the current
// folder.
func vaultDir(e *env, g *globals) string {
	if g.vault != "" {
		return g.vault
	}
	if d := e.getenv("NORN_VAULT"); d != "" {
		return d
	}
	d, err := os.Getwd()
	if err != nil {
		return "."
	}
	return d
}

// openVault opens the vault with the write gates of its settings wired in and its
// search index closed until a command asks for it (vault.Options.LazyIndex): a
// command that writes does not open the index, nor contend with a norn serve for
// it. A commit the command makes is noted in g, so that a norn serve running on
// the vault is told once the command is done (notifyServer).
func openVault(ctx context.Context, e *env, g *globals) (*vault.Vault, *vault.Settings, error) {
	return openVaultWith(ctx, e, g, vault.Options{})
}

// openWriteVault is openVault for a command that writes a few notes: the
// repository is opened lean (vault.Options.Lean), reading HEAD's tree only along
// the paths the write touches.
func openWriteVault(ctx context.Context, e *env, g *globals) (*vault.Vault, error) {
	v, _, err := openVaultWith(ctx, e, g, vault.Options{Lean: true})
	return v, err
}

// openVaultWith is openVault with more options (o's LazyIndex and Repo are
// openVault's): norn search passes this machine's reranker.
func openVaultWith(ctx context.Context, e *env, g *globals, o vault.Options) (*vault.Vault, *vault.Settings, error) {
	o.LazyIndex = true
	o.Repo = repo.Options{Logger: logger(e, g), OnCommit: func(repo.CommitID) { g.landed.Store(true) }}
	v, err := vault.Open(ctx, vaultDir(e, g), o)
	if err != nil {
		return nil, nil, err
	}
	g.gitDir, g.v = v.GitDir(), v
	if g.wait != "" {
		// --wait pushed needs a remote: refused before anything is written.
		s, err := newSyncer(e, g, v)
		if err == nil {
			var name string
			if name, err = s.DefaultRemote(); err == nil && name == "" {
				err = usagef("--wait pushed: the vault has no remote to push to (norn remote add NAME URL)")
			}
		}
		if err != nil {
			v.Close()
			return nil, nil, err
		}
	}
	return v, v.Settings, nil
}

// notifyServer tells the norn serve running on the vault, if any, that the command
// committed, so that the server's reads see the commit at once. It is best effort:
// without a server, or with one that does not answer quickly, the command's result
// stands (the server takes the commit in at its next maintenance round).
func notifyServer(ctx context.Context, e *env, g *globals) {
	if !g.landed.Load() || g.gitDir == "" {
		return
	}
	if err := server.NotifyCommitted(ctx, g.gitDir); err != nil {
		logger(e, g).Debug("no norn serve told of the commit", "err", err)
	}
}

// writer holds the flags every mutating command takes.
type writer struct {
	author      string
	email       string
	message     string
	maintenance bool
}

func (w *writer) register(fs *flag.FlagSet, g *globals) {
	fs.Var(checkedString{&g.wait, waitFlag}, "wait", "pushed: after the commit, sync with the default remote until the commit is on it (bounded: 30s), or fail saying why (the commit stays)")
	fs.Var(checkedString{&w.author, nonEmpty}, "author", "commit author (default: the vault owner from git config)")
	fs.Var(checkedString{&w.email, nonEmpty}, "email", "commit author email (default: the owner's, or NAME@norn.invalid)")
	fs.StringVar(&w.message, "message", "", "commit message subject")
	fs.BoolVar(&w.maintenance, "maintenance", false, "write with the maintenance role (may change protected blocks)")
}

// tx starts a transaction authored by the flags' author or the vault owner. A person
// at the command line writes with the owner role.
func (w *writer) tx(v *vault.Vault, op repo.Op) repo.Tx { return w.txAs(v.Owner(), op) }

// txAs is tx with the vault's owner given (cliOwner, before the vault is open).
func (w *writer) txAs(owner repo.Author, op repo.Op) repo.Tx {
	a := owner
	if w.author != "" {
		a = repo.Author{Name: w.author, Email: w.email}
	} else if w.email != "" {
		a.Email = w.email
	}
	roles := []string{"owner"}
	if w.maintenance {
		roles = append(roles, "maintenance")
	}
	return repo.Tx{Author: a, Roles: roles, Op: op, Message: w.message}
}

// revisionFlag registers --expected-revision. A revision is a blob id in hex (norn
// read --json gives it): anything else is a usage error, not a conflict.
func revisionFlag(fs *flag.FlagSet, usage string) *string {
	s := new(string)
	fs.Var(checkedString{s, hexRevision}, "expected-revision", usage)
	return s
}

func hexRevision(s string) error {
	if s == "" || len(s) > 40 || strings.Trim(s, "0123456789abcdef") != "" {
		return errors.New("not a revision: give the 40 hex digits norn read --json prints as revision")
	}
	return nil
}
