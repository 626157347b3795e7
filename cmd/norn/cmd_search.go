package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/rerank"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
)

// searchHit is one result as `norn search --json` prints it.
type searchHit struct {
	Path    string  `json:"path"`
	Title   string  `json:"title"`
	Score   float64 `json:"score"`
	Line    int     `json:"line"`
	Snippet string  `json:"snippet"`
	Section string  `json:"section"`
}

type searchJSON struct {
	ID string `json:"id,omitempty"`
	*vault.SearchResponse
	Results []searchHit `json:"results"`
	Error   string      `json:"error,omitempty"`
}

func runSearch(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("search", g)
	limit := fs.Int("limit", 10, "at most this many results (1..1000)")
	offset := fs.Int("offset", 0, "skip this many results")
	folder := fs.String("folder", "", "only notes under this folder")
	stdin := fs.Bool("stdin", false, `read one query per line (or JSON lines {"id","text"}) and print one JSON line per query`)
	literal := fs.Bool("literal", false, "take the query as plain words (no operators)")
	noSnippets := fs.Bool("no-snippets", false, "leave out snippets, sections and lines: the same hits, faster")
	var mode rerank.Mode
	fs.Var(&modeFlag{&mode}, "rerank", "auto (ask this machine's reranker when BM25's top is contested), off, or force (ask whatever the gate says)")
	flags, words, err := splitQueryArgs(fs, args)
	if err != nil {
		return err
	}
	args, err = parseFlags(fs, flags)
	if err != nil {
		return err
	}
	args = append(args, words...)
	if *limit < 1 || *limit > 1000 || *offset < 0 {
		return usagef("--limit must be 1..1000 and --offset ≥ 0")
	}
	if !*stdin && len(args) == 0 {
		return usagef("missing query")
	}
	if f := strings.Trim(*folder, "/"); f != "" {
		if err := repo.ValidPath(f); err != nil {
			return fmt.Errorf("--folder %q: %w", *folder, err)
		}
	}
	sr := &searcher{e: e, g: g, served: true}
	defer sr.close()
	openErr := &sr.openErr
	search := func(r vault.SearchRequest) (*vault.SearchResponse, error) { return sr.search(ctx, r) }
	req := vault.SearchRequest{Limit: *limit, Offset: *offset, Folder: *folder, Literal: *literal, NoSnippets: *noSnippets, Rerank: mode}
	if !*stdin {
		req.Query = strings.Join(args, " ")
		resp, err := search(req)
		if *openErr != nil {
			return *openErr
		}
		if err != nil {
			return queryError(err)
		}
		if resp.Engine == rerank.EngineNoEndpoint {
			fmt.Fprintf(e.stderr, "norn: --rerank force: no rerank endpoint is configured on this machine (set $%s, or rerank.endpoint in %s); results in BM25 order\n",
				envRerankURL, machinePath(localGitDir(e, g)))
		}
		if g.json {
			return printJSON(e, toJSON("", resp))
		}
		printHits(e, resp)
		return nil
	}
	sc := bufio.NewScanner(e.stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	enc := json.NewEncoder(e.stdout)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		n++
		id, text := fmt.Sprint(n), line
		if strings.HasPrefix(line, "{") {
			var q struct {
				ID   any    `json:"id"`
				QID  any    `json:"qid"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal([]byte(line), &q); err != nil {
				enc.Encode(searchJSON{ID: id, Error: "bad JSON line: " + err.Error(), Results: []searchHit{}})
				continue
			}
			text = q.Text
			if q.ID != nil {
				id = fmt.Sprint(q.ID)
			} else if q.QID != nil {
				id = fmt.Sprint(q.QID)
			}
		}
		r := req
		r.Query = text
		resp, err := search(r)
		if *openErr != nil {
			return *openErr
		}
		if err != nil {
			enc.Encode(searchJSON{ID: id, Error: err.Error(), Results: []searchHit{}})
			continue
		}
		if err := enc.Encode(toJSON(id, resp)); err != nil {
			return err
		}
	}
	return sc.Err()
}

// searcher answers a command's searches: a running norn serve is asked first,
// before the vault is opened; without one the vault and its index are opened at
// the first search (openErr says if that failed).
type searcher struct {
	e       *env
	g       *globals
	served  bool
	v       *vault.Vault
	a       *asker
	openErr error
}

func (s *searcher) search(ctx context.Context, r vault.SearchRequest) (*vault.SearchResponse, error) {
	if s.served {
		resp := new(vault.SearchResponse)
		if ok, err := askServer(ctx, s.e, s.g, server.Query{Op: "search", Search: &r}, resp); ok {
			return resp, err
		}
		s.served = false
	}
	if s.v == nil {
		if s.v, _, s.openErr = openVaultWith(ctx, s.e, s.g, vault.Options{Rerank: machineReranker(s.e, s.g, nil)}); s.openErr != nil {
			return nil, s.openErr
		}
		if err := s.v.Index.CatchUp(ctx); err != nil {
			logger(s.e, s.g).Warn("catch up index", "err", err)
		}
		s.a = newAsker(s.e, s.g, s.v.GitDir(), s.v.Index)
	}
	return ask(ctx, s.a, server.Query{Op: "search", Search: &r}, func() (*vault.SearchResponse, error) { return s.v.Search(ctx, r) })
}

func (s *searcher) close() {
	if s.v != nil {
		s.v.Close()
	}
}

func queryError(err error) error {
	if errors.Is(err, graph.ErrQuery) {
		return usagef("%v", err)
	}
	return err
}

func toJSON(id string, resp *vault.SearchResponse) searchJSON {
	out := searchJSON{ID: id, SearchResponse: resp, Results: []searchHit{}}
	for _, h := range resp.Hits {
		out.Results = append(out.Results, searchHit{Path: string(h.Path), Title: h.Title, Score: h.Score, Line: h.Line, Snippet: h.Snippet, Section: h.Section})
	}
	return out
}

func printHits(e *env, resp *vault.SearchResponse) {
	stale := ""
	if resp.IndexStale {
		stale = ", index stale"
	}
	via := ""
	if resp.Via != "" {
		via = " via " + resp.Via
	}
	fmt.Fprintf(e.stdout, "%s (%s%s, %.1f ms%s)\n", plural(resp.Total, "result"), resp.Engine, via, resp.TookMS, stale)
	for _, h := range resp.Hits {
		if h.Line == 0 && h.Snippet == "" { // --no-snippets
			fmt.Fprintf(e.stdout, "\n%s  %s  (%.2f)\n", h.Path, h.Title, h.Score)
			continue
		}
		fmt.Fprintf(e.stdout, "\n%s:%d  %s  (%.2f)\n", h.Path, h.Line, h.Title, h.Score)
		if h.Section != "" {
			fmt.Fprintf(e.stdout, "  § %s\n", h.Section)
		}
		for _, l := range strings.Split(strings.TrimSpace(h.Snippet), "\n") {
			fmt.Fprintf(e.stdout, "  %s\n", l)
		}
	}
}

// splitQueryArgs separates search's flags from the words of its query, wherever
// they stand: an argument that starts with one '-' but names none of fs's flags
// (-draft, -tag:old, "-draft notes") is part of the query, so an exclusion needs
// no "--" before it. One that starts with "--" is a flag (a query has no use for
// a doubled '-'): an unknown one is a usage error naming it.
func splitQueryArgs(fs *flag.FlagSet, args []string) (flags, words []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return flags, append(words, args[i+1:]...), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			words = append(words, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil && name != "h" && name != "help" {
			if strings.HasPrefix(a, "--") && name != "" {
				return nil, nil, usagef("flag provided but not defined: --%s: norn search --help lists the flags search takes", name)
			}
			words = append(words, a)
			continue
		}
		flags = append(flags, a)
		if f == nil || hasValue {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return flags, words, nil
}

// modeFlag is --rerank: a rerank mode by name.
type modeFlag struct{ m *rerank.Mode }

func (f *modeFlag) String() string {
	if f.m == nil {
		return rerank.Auto.String()
	}
	return f.m.String()
}

func (f *modeFlag) Set(s string) error {
	m, err := rerank.ParseMode(s)
	if err != nil {
		return errors.New("want auto, off or force")
	}
	*f.m = m
	return nil
}
