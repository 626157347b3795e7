package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// builtinIgnores are never committed as external edits: editor state that changes
// all the time and is no one's knowledge.
var builtinIgnores = []string{
	".DS_Store", "Thumbs.db", ".trash/", ".obsidian/workspace.json",
	".obsidian/workspace-mobile.json", ".obsidian/cache", "*.swp", "*~", TempPrefix + "*",
}

// globalIgnores returns the person's own ignore patterns, which git applies to
// every repository: the file core.excludesFile names in ~/.gitconfig or
// /etc/gitconfig, else git's default, $XDG_CONFIG_HOME/git/ignore
// (~/.config/git/ignore).
func globalIgnores() []gitignore.Pattern {
	root := osfs.New("/")
	ps, _ := gitignore.LoadGlobalPatterns(root)
	if len(ps) == 0 {
		ps, _ = gitignore.LoadSystemPatterns(root)
	}
	if len(ps) > 0 {
		return ps
	}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		cfg = filepath.Join(home, ".config")
	}
	b, err := os.ReadFile(filepath.Join(cfg, "git", "ignore"))
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
			ps = append(ps, gitignore.ParsePattern(line, nil))
		}
	}
	return ps
}

// nameTooLong reports whether a path has a name no common file system can hold, so
// the file can never be in the working tree.
func nameTooLong(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if len(part) > MaxNameBytes {
			return true
		}
	}
	return false
}

// CommitExternal commits the edits a person made in the working tree as one commit
// (Norn-Op: external, or op when given, authored by the vault owner). It returns nil
// and no error when there is nothing to commit. A note Norn changed meanwhile is a
// conflict; call it again.
func (v *Vault) CommitExternal(ctx context.Context, op Op, message string) (*Result, error) {
	return v.CommitExternalIn(ctx, Scope{Full: true}, op, message)
}

// CommitExternalIn is CommitExternal over the paths of scope only (see ChangesIn).
func (v *Vault) CommitExternalIn(ctx context.Context, scope Scope, op Op, message string) (*Result, error) {
	message = strings.TrimSpace(message)
	if err := ValidSubject(message); err != nil {
		return nil, err
	}
	changes, err := v.ChangesIn(ctx, scope)
	if err != nil {
		return nil, err
	}
	if len(changes) == 0 {
		return nil, nil
	}
	if op == "" {
		op = OpExternal
	}
	if message == "" {
		message = fmt.Sprintf("%s: %d file(s) changed in the working tree", op, len(changes))
		if len(changes) == 1 {
			message = Subject(fmt.Sprintf("%s %s", op, changes[0].Path))
		}
	}
	tx := &Tx{Author: v.opts.Owner, Roles: []string{"owner"}, Op: op, Message: message, Changes: changes}
	return v.submit(ctx, &request{tx: tx, external: true})
}
