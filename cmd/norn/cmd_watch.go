package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// runWatch follows a server's change feed (norn serve --http) and prints one
// line (or one JSON object) per commit, reconnecting and resuming as it goes.
func runWatch(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("watch", g)
	var since, url, token string
	var folders, ops, paths string
	fs.StringVar(&since, "since", "", "replay the commits after this one first (a 40-character commit id)")
	fs.StringVar(&url, "url", "", "the server (default $NORN_URL, else http://127.0.0.1:7777)")
	fs.StringVar(&token, "token", "", "the bearer token (default $NORN_TOKEN)")
	fs.StringVar(&folders, "folder", "", "only changes under these folders (comma-separated)")
	fs.StringVar(&ops, "ops", "", "only commits with these ops (comma-separated: write, archive, …)")
	fs.StringVar(&paths, "paths", "", "only changes whose path matches these globs (comma-separated)")
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	if url == "" {
		url = e.getenv("NORN_URL")
	}
	if url == "" {
		url = "http://127.0.0.1:7777"
	}
	if token == "" {
		token = e.getenv("NORN_TOKEN")
	}
	q, err := feed.ParseQuery(map[string][]string{"since": {since}, "folders": {folders}, "ops": {ops}, "paths": {paths}})
	if err != nil {
		return usagef("%s", strings.TrimPrefix(err.Error(), feed.ErrBadQuery.Error()+": "))
	}
	level := slog.LevelWarn
	if g.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	err = feed.Watch(ctx, feed.WatchOptions{URL: url, Token: token, Query: q, Logger: log}, func(m feed.Message) error {
		return printMessage(e, g, m)
	})
	if errors.Is(err, feed.ErrBadQuery) {
		return usagef("%s", strings.TrimPrefix(err.Error(), feed.ErrBadQuery.Error()+": "))
	}
	return err
}

// printMessage prints one feed message: JSON as it came, or a line for people.
func printMessage(e *env, g *globals, m feed.Message) error {
	if g.json {
		return json.NewEncoder(e.stdout).Encode(m)
	}
	var err error
	switch m.Type {
	case feed.TypeEvent:
		op := string(m.Op)
		if op == "" {
			op = "-"
		}
		author := ""
		if m.Author != nil {
			author = m.Author.Name
		}
		_, err = fmt.Fprintf(e.stdout, "%s  %s  %-8s %-10s %-16s %s\n", m.Commit.Short(), m.Time.Format("2006-01-02 15:04:05"),
			m.Source, op, author, changesLine(m.Changes))
	case feed.TypeResync:
		_, err = fmt.Fprintf(e.stdout, "resync: %s; now at %s\n", m.Detail, m.Head.Short())
	}
	return err
}

func changesLine(cs []repo.EventChange) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		s := string(c.Kind) + " " + string(c.Path)
		if c.From != "" {
			s += " (from " + string(c.From) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
