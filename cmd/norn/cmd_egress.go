package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/norn-vault/norn/rerank"
)

// egressPath is where the reranker records what left this machine: inside the
// git directory, never committed.
func egressPath(gitDir string) string { return filepath.Join(gitDir, "norn", "egress.jsonl") }

func runEgress(ctx context.Context, e *env, g *globals, args []string) error {
	flags := newFlags("egress", g)
	sinceFlag := flags.String("since", "", "only records from this time: a duration back from now (24h) or a date (2026-12-01, or RFC 3339)")
	if _, err := parseArgs(flags, args, 0, 0); err != nil {
		return err
	}
	since, err := parseSince(*sinceFlag, time.Now())
	if err != nil {
		return err
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	path := egressPath(v.GitDir())
	recs := []rerank.Egress{}
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("egress: %w", err)
	default:
		defer f.Close()
		if recs, err = rerank.ReadEgress(f, since); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if g.json {
		return printJSON(e, map[string]any{"file": path, "records": recs})
	}
	if len(recs) == 0 {
		fmt.Fprintf(e.stdout, "nothing sent (%s)\n", path)
		return nil
	}
	for _, r := range recs {
		in := strconv.Itoa(r.TokensIn)
		if r.Estimated {
			in = "~" + in // the endpoint reported no usage: the prompt's estimate
		}
		fmt.Fprintf(e.stdout, "%s  %-24s %-20s %-12s %6s→%-5d %7.1fms  query %s  %d paths: %s\n",
			r.Time.Local().Format("2006-01-02 15:04:05"), r.Host, r.Model, r.Outcome, in, r.TokensOut,
			r.LatencyMS, r.QueryHash[:min(12, len(r.QueryHash))], len(r.Paths), strings.Join(r.Paths, " "))
	}
	return nil
}

// parseSince reads --since: "" (all), a duration back from now, a date or an RFC
// 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, time.DateOnly} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usagef("--since %q: want a duration such as 24h, a date such as 2026-12-01, or an RFC 3339 time", s)
}
