package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
)

// openGraphVault opens the vault with its index, for the graph commands.
func openGraphVault(ctx context.Context, e *env, g *globals) (*vault.Vault, error) {
	return vault.Open(ctx, vaultDir(e, g), vault.Options{Repo: repo.Options{Logger: logger(e, g)}})
}

func runNeighborhood(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("neighborhood", g)
	depth := fs.Int("depth", 1, "hops to walk, following links both ways, 1..5")
	maxNodes := fs.Int("max-nodes", 50, "at most this many nodes, 1..1000")
	types := fs.String("types", "", "comma-separated edge types to follow (link = body links); default all")
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	if err := inRange("depth", *depth, 1, 5); err != nil {
		return err
	}
	if err := inRange("max-nodes", *maxNodes, 1, 1000); err != nil {
		return err
	}
	v, err := openGraphVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	opts := graph.NeighborhoodOptions{Depth: *depth, MaxNodes: *maxNodes}
	if *types != "" {
		opts.Types = strings.Split(*types, ",")
		if err := v.CheckFollowTypes(ctx, opts.Types, nil); errors.Is(err, config.ErrInvalid) {
			return usagef("--types: %v", err)
		} else if err != nil {
			return err
		}
	}
	center, _, err := noteArg(ctx, e, g, v, args[0])
	if err != nil {
		return err
	}
	nb, err := ask(ctx, newAsker(e, g, v.GitDir(), v.Index), server.Query{Op: "neighborhood", Note: center, Neighborhood: &opts},
		func() (*graph.Neighborhood, error) { return v.Neighborhood(ctx, center, opts) })
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, nb)
	}
	fmt.Fprintf(e.stdout, "%d nodes, %d edges around %s\n", len(nb.Nodes), len(nb.Edges), nb.Center)
	for _, n := range nb.Nodes {
		fmt.Fprintf(e.stdout, "  %d  %-50s %4d backlinks  %s\n", n.Depth, n.ID, n.Backlinks, n.Title)
	}
	for _, ed := range nb.Edges {
		fmt.Fprintf(e.stdout, "  %s --%s--> %s\n", ed.From, ed.Type, ed.To)
	}
	if nb.Truncated {
		fmt.Fprintf(e.stdout, "(cut at --max-nodes %d)\n", *maxNodes)
	}
	return nil
}

func runHubs(ctx context.Context, e *env, g *globals, args []string) error {
	return runNodeList(ctx, e, g, args, "hubs", (*vault.Vault).Hubs)
}

func runOrphans(ctx context.Context, e *env, g *globals, args []string) error {
	return runNodeList(ctx, e, g, args, "orphans", (*vault.Vault).Orphans)
}

func runNodeList(ctx context.Context, e *env, g *globals, args []string, name string,
	query func(*vault.Vault, context.Context, int, int) (*graph.NodeList, error)) error {
	fs := newFlags(name, g)
	limit := fs.Int("limit", 20, "at most this many notes, 1..1000")
	offset := fs.Int("offset", 0, "skip this many (the next_offset of the previous page)")
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	if err := inRange("limit", *limit, 1, 1000); err != nil {
		return err
	}
	if err := inRange("offset", *offset, 0, 1<<31-1); err != nil {
		return err
	}
	v, err := openGraphVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	l, err := ask(ctx, newAsker(e, g, v.GitDir(), v.Index), server.Query{Op: name, Limit: *limit, Offset: *offset},
		func() (*graph.NodeList, error) { return query(v, ctx, *limit, *offset) })
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, l)
	}
	fmt.Fprintf(e.stdout, "%d %s\n", l.Total, name)
	for _, n := range l.Nodes {
		fmt.Fprintf(e.stdout, "  %5d backlinks  %s\n", n.Backlinks, n.ID)
	}
	if l.NextOffset > 0 {
		fmt.Fprintf(e.stdout, "(more: --offset %d)\n", l.NextOffset)
	}
	return nil
}

func runPath(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("path", g)
	maxDepth := fs.Int("max-depth", 6, "longest path to look for, 1..12 hops")
	args, err := parseArgs(fs, args, 2, 2)
	if err != nil {
		return err
	}
	if err := inRange("max-depth", *maxDepth, 1, 12); err != nil {
		return err
	}
	v, err := openGraphVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	from, _, err := noteArg(ctx, e, g, v, args[0])
	if err != nil {
		return err
	}
	to, _, err := noteArg(ctx, e, g, v, args[1])
	if err != nil {
		return err
	}
	p, err := ask(ctx, newAsker(e, g, v.GitDir(), v.Index), server.Query{Op: "path", Note: from, To: to, MaxDepth: *maxDepth},
		func() (*graph.GraphPath, error) { return v.ShortestPath(ctx, from, to, *maxDepth) })
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, p)
	}
	if !p.Found {
		fmt.Fprintf(e.stdout, "no path of at most %d hops from %s to %s\n", *maxDepth, p.From, p.To)
		return nil
	}
	fmt.Fprintf(e.stdout, "%d hops\n", len(p.Edges))
	for _, ed := range p.Edges {
		fmt.Fprintf(e.stdout, "  %s --%s--> %s\n", ed.From, ed.Type, ed.To)
	}
	return nil
}
