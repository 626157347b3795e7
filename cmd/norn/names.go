package main

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// noteArg resolves a command's note argument, a path or a name (a title, an alias,
// a file name, a "[[wikilink#heading]]"), to the note's path at HEAD, and the
// wikilink's heading ("" for none). It is vault.Vault.ResolveName, the resolver
// MCP's read_note and norn link's target use: a name that matches several notes is
// an error listing them.
//
// An argument written as a path (with a "/" or ending in ".md") that is not a
// valid one (absolute, "..", ".git") is refused as read refuses it, not looked up
// as a name.
//
// A name (not a note's path) is resolved over the search index, which this
// process opens for the purpose when v's is not open yet (vault.Options.LazyIndex)
// and one was built (it is then caught up to HEAD); without one, or when another process holds it, over the
// notes at HEAD read into memory (building an index for one name would take
// longer).
func noteArg(ctx context.Context, e *env, g *globals, v *vault.Vault, arg string) (note.Path, string, error) {
	if looksLikePath(arg) {
		if err := repo.ValidPath(arg); err != nil {
			return "", "", err
		}
	}
	if (repo.ValidPath(arg) != nil || v.Revision(note.Path(arg)) == "") && indexBuilt(v) {
		// Opens a lazy index (openVault's) and catches it up; when another process
		// holds it, names resolve over the notes at HEAD.
		if err := v.Index.CatchUp(ctx); err != nil {
			logger(e, g).Debug("catch up index", "err", err)
		}
	}
	return v.ResolveName(ctx, arg, nil)
}

// looksLikePath reports whether a note argument is written as a path rather
// than as a name or a [[wikilink]].
func looksLikePath(arg string) bool {
	return !strings.HasPrefix(arg, "[[") && (strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".md"))
}

// noteArgOrPath is noteArg for commands that also act on a note no longer at
// HEAD (its history): a valid path that names no note at HEAD is taken as given.
func noteArgOrPath(ctx context.Context, e *env, g *globals, v *vault.Vault, arg string) (note.Path, error) {
	p, _, err := noteArg(ctx, e, g, v, arg)
	if errors.Is(err, repo.ErrNotFound) && repo.ValidPath(arg) == nil {
		return note.Path(arg), nil
	}
	return p, err
}

// indexBuilt reports whether the vault has a search index on disk.
func indexBuilt(v *vault.Vault) bool {
	_, err := os.Stat(v.IndexDir())
	return err == nil
}
