package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/norn-vault/norn/server/auth"
)

func runToken(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("token", g)
	scopesFlag := fs.String("scopes", "read,write", "with add: the token's scopes, comma-separated ("+scopeNames()+")")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("missing subcommand: add, list or revoke")
	}
	sub, pos := pos[0], pos[1:]
	var scopes []auth.Scope
	switch sub {
	case "add":
		if err := wantArgs(pos, 1, 1); err != nil {
			return err
		}
		if err := auth.ValidPrincipalName(pos[0]); err != nil {
			return usagef("token name: %v", err)
		}
		if scopes, err = parseScopes(*scopesFlag); err != nil {
			return err
		}
	case "revoke":
		if err := wantArgs(pos, 1, 1); err != nil {
			return err
		}
	case "list":
		if err := wantArgs(pos, 0, 0); err != nil {
			return err
		}
	default:
		return usagef("unknown subcommand %q: add, list or revoke", sub)
	}
	scopesSet := false
	fs.Visit(func(f *flag.Flag) { scopesSet = scopesSet || f.Name == "scopes" })
	if sub != "add" && scopesSet {
		return usagef("--scopes goes with add")
	}

	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	tokens := auth.OpenTokens(auth.TokensPath(v.GitDir()), logger(e, g))
	v.Close() // only the path was needed

	switch sub {
	case "add":
		name := pos[0]
		tok, err := tokens.Add(name, scopes)
		if err != nil {
			return err
		}
		if g.json {
			return printJSON(e, map[string]any{"name": name, "token": tok, "scopes": scopes})
		}
		fmt.Fprintln(e.stdout, tok)
		fmt.Fprintf(e.stderr, "norn: token %q (%s) created; it is shown only this once, only its SHA-256 is stored in %s\n",
			name, joinScopes(scopes), tokens.Path())
		fmt.Fprintf(e.stderr, "  send it as the header  Authorization: Bearer <token>\n")
		fmt.Fprintf(e.stderr, "  e.g. claude mcp add --transport http norn http://127.0.0.1:7777/mcp --header \"Authorization: Bearer <token>\"\n")
		return nil
	case "revoke":
		if err := tokens.Revoke(pos[0]); err != nil {
			return err
		}
		if g.json {
			return printJSON(e, map[string]any{"name": pos[0], "revoked": true})
		}
		fmt.Fprintf(e.stdout, "revoked token %q (a running norn serve refuses it from its next request and closes its sessions)\n", pos[0])
		return nil
	}
	list, err := tokens.List()
	if err != nil {
		return err
	}
	if g.json {
		if list == nil {
			list = []auth.TokenInfo{}
		}
		return printJSON(e, map[string]any{"tokens": list})
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "no tokens (create one with: norn token add NAME)")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPES\tCREATED")
	for _, t := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, joinScopes(t.Scopes), t.Created.Format("2006-01-02 15:04:05Z07:00"))
	}
	return tw.Flush()
}

// parseScopes parses --scopes: comma-separated scope names, at least one.
func parseScopes(s string) ([]auth.Scope, error) {
	var out []auth.Scope
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !auth.ValidScope(auth.Scope(f)) {
			return nil, usagef("--scopes: unknown scope %q (scopes: %s)", f, scopeNames())
		}
		out = append(out, auth.Scope(f))
	}
	if len(out) == 0 {
		return nil, usagef("--scopes: name at least one of %s", scopeNames())
	}
	return out, nil
}

func scopeNames() string { return joinScopes(auth.AllScopes) }

func joinScopes(scopes []auth.Scope) string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return strings.Join(s, ",")
}
