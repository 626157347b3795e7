package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/server/web"
	"github.com/norn-vault/norn/sync/feed"
	"github.com/norn-vault/norn/vault"
)

// shutdownGrace bounds how long `norn serve` waits for in-flight requests when told
// to stop (and, with --stdio, when stdin ends).
const shutdownGrace = 10 * time.Second

func runServe(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("serve", g)
	stdio := fs.Bool("stdio", false, "serve one agent over stdin/stdout")
	var addr, agent string
	fs.Var(checkedString{&addr, nonEmpty}, "http", "serve streamable HTTP on this address, e.g. 127.0.0.1:7777")
	fs.Var(checkedString{&agent, auth.ValidPrincipalName}, "agent", "with --stdio: act as this agent (scopes read,write) instead of the vault owner; a token name's rules")
	maintenance := fs.Bool("maintenance", false, "with --stdio: add the maintenance scope (may change protected blocks)")
	anon := fs.Bool("allow-unauthenticated-loopback", false, "with --http on a loopback address: serve requests without a token as the local agent (read,write)")
	maxConcurrent := fs.Int("max-concurrent", server.DefaultMaxConcurrent, "with --http: how many requests one principal may have running at once (more are answered 429; listening streams are counted apart)")
	syncEvery := fs.Duration("sync-interval", 0, "sync the vault's default remote this often (with jitter; backing off after failures) and soon after local writes settle, e.g. 5m; 0: no periodic sync (default: serve.sync_interval in machine.yaml)")
	validate := fs.Bool("validate-output", false, "check every tool result against the tool's output schema before sending it (tests and interop runs; costs 0.1–0.4 ms a call)")
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	log := logger(e, g)
	var m config.Machine // loaded by machineReranker, from the vault's git directory
	v, err := vault.Open(ctx, vaultDir(e, g), vault.Options{Repo: repo.Options{Logger: log}, Rerank: machineReranker(e, g, &m)})
	if err != nil {
		return err
	}
	defer v.Close() // after everything below has stopped: drains the committer
	serveDefaults(fs, m.Serve, *stdio, &addr, maxConcurrent, anon, syncEvery)
	if err := checkServeFlags(v, *stdio, addr, agent, *maintenance, *anon, *maxConcurrent, *syncEvery); err != nil {
		return err
	}

	syncer, err := newSyncer(e, g, v)
	if err != nil {
		return err
	}
	mctx, stopMaint := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(v.Index.LoadLinks) // the index opened without its link graph; read it now
	wg.Go(func() {
		(&vault.Maintainer{Vault: v, Logger: log, Settle: vault.DefaultSettle, Watch: true}).Run(mctx)
	})
	if *syncEvery > 0 {
		log.Info("periodic sync", "interval", *syncEvery)
		wg.Go(func() {
			if err := syncer.Run(mctx, vault.LoopOptions{Interval: *syncEvery}); err != nil {
				log.Error("periodic sync stopped", "err", err)
			}
		})
	}
	defer wg.Wait()
	defer stopMaint()

	// One-shot commands beside this server find the index locked: they ask here.
	if l, err := server.StartLocal(ctx, v, server.LocalOptions{Logger: log, Syncer: syncer}); err != nil {
		log.Warn("not answering local queries; one-shot commands will scan", "err", err)
	} else {
		defer l.Close()
	}

	// The change feed's hub, fed by the vault's commit events: the websocket
	// endpoint (with --http) and wait_for_changes answer from it.
	hub := feed.New(v, feed.Options{Logger: log})
	defer hub.Close() // before the vault closes: ends every feed connection and long poll
	srv := mcp.NewMCPServer(v, mcp.MCPOptions{Logger: log, Version: buildVersion(), SkipOutputValidation: !*validate, Feed: hub, Sync: syncer})

	if *stdio {
		p := auth.Principal{Name: agent, Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}}
		if agent == "" {
			p = ownerPrincipal(v)
		}
		if *maintenance {
			p.Scopes = append(p.Scopes, auth.ScopeMaintenance)
		}
		log.Info("serving MCP on stdio", "vault", v.Dir(), "principal", p.Name, "owner", p.Owner)
		return mcp.ServeStdio(ctx, srv, p, e.stdin, e.stdout, mcp.StdioOptions{Logger: log, Grace: shutdownGrace})
	}

	tokens := auth.OpenTokens(auth.TokensPath(v.GitDir()), log)
	h, err := server.NewHTTPHandler(srv, server.HTTPOptions{Addr: addr, Tokens: tokens, AllowUnauthenticatedLoopback: *anon,
		MaxConcurrent: *maxConcurrent, Logger: log})
	if err != nil {
		return err
	}
	explorer := web.New(v, web.Options{Tokens: tokens, Logger: log})
	h.MountWeb(explorer)
	h.MountFeed(v, hub)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	printServeBanner(e, v, serveURL(addr, ln.Addr()), *anon, explorer)
	hs := h.NewServer()
	// Long polls (wait_for_changes) are in-flight requests: a shutdown answers them
	// at once instead of waiting out the grace.
	hs.RegisterOnShutdown(func() { hub.Close() })
	return serveHTTP(ctx, ln, hs, shutdownGrace, log)
}

// checkServeFlags refuses a combination of serve's flags (after the machine's
// defaults) that cannot be served, before anything starts.
func checkServeFlags(v *vault.Vault, stdio bool, addr, agent string, maintenance, anon bool, maxConcurrent int, syncEvery time.Duration) error {
	switch {
	case stdio == (addr != ""):
		return usagef("pass exactly one of --stdio or --http ADDR (or set serve.http in %s)", machinePath(v.GitDir()))
	case stdio && anon:
		return usagef("--allow-unauthenticated-loopback goes with --http")
	case !stdio && (agent != "" || maintenance):
		return usagef("--agent and --maintenance go with --stdio (over HTTP, the token says who is calling)")
	}
	if err := inRange("max-concurrent", maxConcurrent, 1, 10000); err != nil {
		return err
	}
	if d := syncEvery; d != 0 && (d < config.MinSyncInterval || d > config.MaxSyncInterval) {
		return usagef("--sync-interval %s: want 0 (off) or from %s to %s", d, config.MinSyncInterval, config.MaxSyncInterval)
	}
	if addr != "" {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return usagef("--http %q: want HOST:PORT, e.g. 127.0.0.1:7777", addr)
		}
	}
	return nil
}

// printServeBanner tells the person who started `norn serve --http` at base
// where everything is: MCP, how to connect, tokens, the feed and the web
// explorer's one-time login link.
func printServeBanner(e *env, v *vault.Vault, base string, anon bool, explorer *web.Handler) {
	url := base + server.MCPPath
	fmt.Fprintf(e.stderr, "norn: serving MCP (streamable HTTP) for %s at %s\n", v.Dir(), url)
	if anon {
		fmt.Fprintf(e.stderr, "norn: requests without a token act as %q (read, write): anything on this machine can write to the vault\n", server.LocalAgentName)
		fmt.Fprintf(e.stderr, "  connect Claude Code: claude mcp add --transport http norn %s\n", url)
	} else {
		fmt.Fprintf(e.stderr, "  connect Claude Code: claude mcp add --transport http norn %s --header \"Authorization: Bearer <token>\"\n", url)
		fmt.Fprintf(e.stderr, "  tokens: norn token add NAME | list | revoke NAME (read again without a restart)\n")
	}
	fmt.Fprintf(e.stderr, "  change feed: %s (norn watch --url %s)\n", wsURL(base)+feed.Path, base)
	if link, err := explorer.LoginLink(ownerPrincipal(v), webLinkTTL); err == nil {
		fmt.Fprintf(e.stderr, "  web explorer: %s/ (one-time login link, as the vault's owner: %s/?token=%s)\n", base, base, link)
	}
	fmt.Fprintf(e.stderr, "  stop with Ctrl-C\n")
}

// webLinkTTL is how long the one-time login link `norn serve --http` prints stays
// good (it works once).
const webLinkTTL = time.Hour

// ownerPrincipal is the vault's owner as `norn serve` serves it: on stdio without
// --agent, and through the one-time login link of the web explorer.
func ownerPrincipal(v *vault.Vault) auth.Principal {
	o := v.Owner()
	return auth.Principal{Name: o.Name, Email: o.Email, Owner: true,
		Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite, auth.ScopePrivate, auth.ScopeAdmin}}
}

// serveDefaults lays this machine's serve settings (machine.yaml's serve section)
// under the flags: each applies where its flag is not given.
func serveDefaults(fs *flag.FlagSet, m config.Serve, stdio bool, addr *string, maxConcurrent *int, anon *bool, syncEvery *time.Duration) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["http"] && !stdio {
		*addr = m.HTTP
	}
	if !given["max-concurrent"] && m.MaxConcurrent > 0 {
		*maxConcurrent = m.MaxConcurrent
	}
	if !given["allow-unauthenticated-loopback"] && *addr != "" {
		*anon = m.AllowUnauthenticatedLoopback
	}
	if !given["sync-interval"] {
		*syncEvery = time.Duration(m.SyncInterval)
	}
}

// serveHTTP serves srv (the handler's, with its timeouts; see
// server.HTTPHandler.NewServer) on ln until ctx is done, then shuts down
// gracefully: it stops accepting, runs srv's shutdown functions (which end
// long-lived streams) and lets in-flight requests finish for up to grace before
// cutting them off. A stop asked by ctx is a clean exit (nil).
func serveHTTP(ctx context.Context, ln net.Listener, srv *http.Server, grace time.Duration, log *slog.Logger) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests", "grace", grace)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		log.Warn("in-flight requests cut off", "after", grace, "err", err)
		srv.Close()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("serve http: %w", serr)
	}
	return nil
}

// serveURL is the base URL clients use for a server asked to listen on addr and
// bound to bound: the asked host (an unspecified one shown as 127.0.0.1) with the
// bound port.
func serveURL(addr string, bound net.Addr) string {
	host, _, _ := net.SplitHostPort(addr)
	_, port, _ := net.SplitHostPort(bound.String())
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(strings.Trim(host, "[]"), port)
}

// wsURL is the websocket form of an http(s) URL.
func wsURL(u string) string {
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		return "wss://" + rest
	}
	return "ws://" + strings.TrimPrefix(u, "http://")
}
