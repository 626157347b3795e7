package main

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
)

// noteArg resolves a command's note argument, a path or a name (a title, an alias,
// a file name, a "[[wikilink#heading]]"), to the note's path at HEAD, and the
// wikilink's heading ("" for none). It is server.Vault.ResolveName, the resolver
// MCP's read_note and norn link's target use: a name that matches several notes is
// an error listing them.
//
// An argument written as a path (with a "/" or ending in ".md") that is not a
// valid one (absolute, "..", ".git") is refused as read refuses it, not looked up
// as a name.
//
// A name (not a note's path) is resolved over the search index, which this
// process opens for the purpose when v has none and one was built (it is then
// caught up to HEAD); without one, or when another process holds it, over the
// notes at HEAD read into memory (building an index for one name would take
// longer).
func noteArg(ctx context.Context, e *env, g *globals, v *server.Vault, arg string) (note.Path, string, error) {
	if looksLikePath(arg) {
		if err := repo.ValidPath(arg); err != nil {
			return "", "", err
		}
	}
	if v.Index == nil && (repo.ValidPath(arg) != nil || v.Revision(note.Path(arg)) == "") && indexBuilt(v.Vault) {
		x := openIndexer(ctx, e, g, v.Vault, v.Settings)
		defer x.Close()
		v = &server.Vault{Vault: v.Vault, Settings: v.Settings, Index: x}
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
func noteArgOrPath(ctx context.Context, e *env, g *globals, v *server.Vault, arg string) (note.Path, error) {
	p, _, err := noteArg(ctx, e, g, v, arg)
	if errors.Is(err, repo.ErrNotFound) && repo.ValidPath(arg) == nil {
		return note.Path(arg), nil
	}
	return p, err
}

// wired is v with its settings as a server.Vault, without the search index: names
// then resolve over the notes at HEAD.
func wired(v *repo.Vault, s *server.Settings) *server.Vault {
	return &server.Vault{Vault: v, Settings: s}
}

// indexBuilt reports whether the vault has a search index on disk.
func indexBuilt(v *repo.Vault) bool {
	_, err := os.Stat(server.IndexDir(v))
	return err == nil
}
