package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// Exit codes (errcode's table gives each error code its own).
const (
	exitOK       = errcode.ExitOK
	exitError    = errcode.ExitError
	exitUsage    = errcode.ExitUsage
	exitConflict = errcode.ExitConflict
	exitRejected = errcode.ExitRejected
)

// env is what a command may touch of the process: the standard streams and the
// environment. Tests hand in their own.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// command is one subcommand.
type command struct {
	name    string
	args    string
	summary string
	run     func(ctx context.Context, e *env, g *globals, args []string) error
}

func commands() []command {
	return []command{
		{"init", "[DIR]", "create a vault, or adopt a folder of Markdown or a git repository", runInit},
		{"read", "PATH [--at REV|DATE]", "print a note (at HEAD, at a commit or as it was at a date)", runRead},
		{"write", "PATH < content", "create or update a note from stdin (--expected-revision to update)", runWrite},
		{"edit", "PATH --op OP --expected-revision REV", "change part of a note: append, prepend, replace_section, find_replace", runEdit},
		{"capture", "[TEXT...] (or stdin)", "append a thought to today's inbox note", runCapture},
		{"ls", "[FOLDER]", "list a folder", runLs},
		{"log", "[PATH]", "show the commits (of one note, following its moves)", runLog},
		{"archive", "PATH --reason R", "archive a note (archived|superseded|retracted); nothing is deleted", runArchive},
		{"restore", "PATH --from REV", "bring back a note from a commit or revision", runRestore},
		{"archived", "[--folder F] [--since DATE]", "list the archived notes: reason, who, when, the revision restore takes", runArchived},
		{"mv", "OLD NEW", "move or rename a note", runMv},
		{"link", "FROM TO --type T --why W", "add a typed edge to FROM's frontmatter (gate-checked commit)", runLink},
		{"unlink", "FROM TO [--type T]", "remove FROM's typed edges to TO", runUnlink},
		{"claim", "assert|value|history|retract …", "claims bound to a note's revision: assert, ask the current value, the chain, retract", runClaim},
		{"commit", "", "commit edits made in the working tree (Norn-Op: external)", runCommit},
		{"gc", "", "pack loose objects", runGC},
		{"search", "QUERY [--limit N] [--folder F]", "search the notes (BM25F; --stdin for one query per line)", runSearch},
		{"reindex", "", "rebuild the search index from HEAD", runReindex},
		{"bench", "search CORPUS_NOTES QUERIES.jsonl [QRELS] | scale [--sizes N,…]", "measure search on a corpus against the SQLite FTS5 anchor; or the scale suite", runBench},
		{"links", "NOTE [--limit N]", "a note's outgoing links (resolved, broken, ambiguous), backlinks and notes sharing tags", runLinks},
		{"neighborhood", "NOTE [--depth D] [--max-nodes N] [--types T,…]", "the notes and edges within D hops of NOTE, following links both ways", runNeighborhood},
		{"hubs", "[--limit N] [--offset K]", "the notes most linked to (distinct linking notes)", runHubs},
		{"orphans", "[--limit N] [--offset K]", "the notes with no links in or out", runOrphans},
		{"path", "A B [--max-depth D]", "a shortest chain of links between two notes (either direction)", runPath},
		{"stats", "[--limit N] [--offset N]", "count notes, links (resolved, broken, ambiguous), folders, tags, edge types", runStats},
		{"doctor", "", "check the vault: git integrity, gates over every note, index", runDoctor},
		{"serve", "--stdio | --http ADDR", "serve the vault to agents over MCP (stdio, or streamable HTTP with tokens)", runServe},
		{"egress", "[--since 24h|DATE]", "show what the reranker sent off this machine (.git/norn/egress.jsonl)", runEgress},
		{"watch", "[--since C] [--folder F] [--url U] [--token T]", "follow a server's change feed: one line (or --json object) per commit; reconnects and resumes", runWatch},
		{"machine", "show", "print this machine's settings (.git/norn/machine.yaml and the environment; secrets redacted)", runMachine},
		{"clone", "URL DIR [--branch B]", "make a working vault from a git remote (origin), index built", runClone},
		{"sync", "[REMOTE]", "fetch, merge and push with a remote (default: the only one, else origin)", runSync},
		{"synthesis", "register SUMMARY SOURCE… | status SUMMARY", "record the notes a summary was written from; say whether they have drifted since", runSynthesis},
		{"status", "[REMOTE]", "per remote: ahead/behind the last fetch, last fetch and push, last error", runStatus},
		{"conflicts", "", "list the conflict siblings a sync left open", runConflicts},
		{"remote", "add|list|remove|check|trust [NAME] [URL]", "manage the vault's git remotes (stored in .git/config; credentials in machine.yaml)", runRemote},
		{"token", "add|list|revoke [NAME]", "manage the bearer tokens of norn serve --http (add NAME --scopes read,write)", runToken},
		{"version", "", "print norn's version and the commit it was built from", runVersion},
	}
}

// usage is the command's synopsis.
func (c command) usage() string { return strings.TrimSpace("norn " + c.name + " " + c.args) }

// usageError is a command-line mistake: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// ErrorCode makes errcode.Classify report a usage error as errcode.Usage.
func (e *usageError) ErrorCode() errcode.Code { return errcode.Usage }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// globals are the flags every command takes.
type globals struct {
	vault   string
	json    bool
	verbose bool

	// landed is set when the command committed to the vault at gitDir (openVault);
	// run then tells a norn serve running on it (notifyServer).
	landed atomic.Bool
	gitDir string
	// v is the vault the command opened (openVault), for reporting where a
	// write stands against the remote; wait is a write's --wait.
	v    *vault.Vault
	wait string
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.Var(checkedString{&g.vault, nonEmpty}, "vault", "the vault folder (default $NORN_VAULT, else the current folder)")
	fs.BoolVar(&g.json, "json", g.json, "print JSON for scripts")
	fs.BoolVar(&g.verbose, "v", g.verbose, "log more")
}

func run(ctx context.Context, args []string, e *env) int {
	g := &globals{}
	top := flag.NewFlagSet("norn", flag.ContinueOnError)
	top.SetOutput(io.Discard)
	g.register(top)
	if err := top.Parse(args); errors.Is(err, flag.ErrHelp) {
		printUsage(e.stdout)
		return exitOK
	} else if err != nil {
		fmt.Fprintf(e.stderr, "norn: %v\n", err)
		printUsage(e.stderr)
		return exitUsage
	}
	args = top.Args()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(e.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		// Human output shows note text, titles and commit subjects: it goes through
		// a textWriter. read prints a note's bytes and serve speaks a protocol, so
		// theirs (and any --json output) is left as it is.
		raw := c.name == "read" || c.name == "serve"
		out := &textWriter{w: e.stdout, raw: func() bool { return raw || g.json }}
		ce := *e
		ce.stdout = out
		err := c.run(ctx, &ce, g, args[1:])
		out.flush()
		notifyServer(ctx, &ce, g)
		return report(&ce, g, c, err)
	}
	fmt.Fprintf(e.stderr, "norn: unknown command %q\n", args[0])
	printUsage(e.stderr)
	return exitUsage
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: norn [--vault DIR] [--json] COMMAND [ARGS]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %-26s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nexit codes: 0 ok, 1 error, 2 usage, 3 conflict, 4 rejected by a gate")
	fmt.Fprintln(w, "norn COMMAND --help lists a command's flags; docs/cli.md has the details")
}

// helpRequest is -h or --help given to a command: its usage and flags go to
// stdout, and norn exits 0.
type helpRequest struct{ fs *flag.FlagSet }

func (*helpRequest) Error() string { return "help requested" }

// errorJSON is the --json shape of a failure.
type errorJSON struct {
	Error      string            `json:"error"`
	Code       string            `json:"code"`
	Path       string            `json:"path,omitempty"`
	Current    repo.Revision     `json:"current_revision,omitempty"`
	Violations []hooks.Violation `json:"violations,omitempty"`
}

// report maps an error to its exit code (by classify, the only place that turns
// errors into exit codes) and prints it, unless the command already printed it.
func report(e *env, g *globals, c command, err error) int {
	if err == nil {
		return exitOK
	}
	if hr := (*helpRequest)(nil); errors.As(err, &hr) {
		fmt.Fprintf(e.stdout, "usage: %s\n  %s\n\nflags:\n", c.usage(), c.summary)
		hr.fs.SetOutput(e.stdout)
		hr.fs.PrintDefaults()
		return exitOK
	}
	out, code := classify(err)
	if pe := (*printedError)(nil); errors.As(err, &pe) {
		return code // the command printed its one JSON document, the error in it
	}
	if g.json {
		json.NewEncoder(e.stdout).Encode(out)
		return code
	}
	if rej := (*hooks.Rejection)(nil); errors.As(err, &rej) {
		fmt.Fprintf(e.stderr, "norn %s: rejected by the write gates:\n", c.name)
		for _, v := range rej.Violations {
			fmt.Fprintf(e.stderr, "  %s\n", v)
		}
		return code
	}
	fmt.Fprintf(e.stderr, "norn %s: %s\n", c.name, out.Error)
	if code == exitUsage {
		fmt.Fprintf(e.stderr, "usage: %s\n", c.usage())
	}
	return code
}

// printedError is an error a command has already printed with --json, inside its
// one JSON document (a dry run's result with its verdict): report only maps it to
// its exit code.
type printedError struct{ err error }

func (e *printedError) Error() string { return e.err.Error() }
func (e *printedError) Unwrap() error { return e.err }

// cliWords spells the arguments errors name (as the tools' arguments, shared
// with MCP) as the flags the norn command takes.
var cliWords = strings.NewReplacer("expected_revision", "--expected-revision")

// classify renders an error's code (errcode.Classify, the one mapping every
// surface shares) as its --json shape and exit code.
func classify(err error) (errorJSON, int) {
	code := errcode.Classify(err)
	in := code.Info()
	out := errorJSON{Error: cliWords.Replace(err.Error()), Code: in.CLI}
	var ce *repo.ConflictError
	var rej *hooks.Rejection
	if code == errcode.Conflict && errors.As(err, &ce) {
		out.Path, out.Current = string(ce.Path), ce.Current
	}
	if code == errcode.GateRejected && errors.As(err, &rej) {
		out.Violations = rej.Violations
	}
	return out, in.Exit
}

// checkedString is a string flag whose value, when given, must pass check. It is for
// flags whose empty value would mean their default: an explicitly given empty (or
// otherwise bad) value, as `--agent "$AGENT"` with AGENT unset gives, is a usage
// error instead of silently acting as the default (the vault owner, the current
// folder).
type checkedString struct {
	value *string
	check func(string) error
}

func (f checkedString) String() string {
	if f.value == nil {
		return ""
	}
	return *f.value
}

func (f checkedString) Set(s string) error {
	if err := f.check(s); err != nil {
		return err
	}
	*f.value = s
	return nil
}

// nonEmpty refuses an empty flag value.
func nonEmpty(s string) error {
	if s == "" {
		return errors.New("empty value (leave the flag out for its default)")
	}
	return nil
}

// parseFlags parses a command's flags, which may come before, between or after its
// positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, &helpRequest{fs}
		} else if err != nil {
			return nil, usagef("%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// newFlags returns a command's flag set with the global flags registered.
func newFlags(name string, g *globals) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	g.register(fs)
	return fs
}

// parseArgs parses a command's flags and checks it got lo to hi arguments.
func parseArgs(fs *flag.FlagSet, args []string, lo, hi int) ([]string, error) {
	args, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	return args, wantArgs(args, lo, hi)
}

// inRange checks a numeric flag.
func inRange(flag string, v, lo, hi int) error {
	if v < lo || v > hi {
		return usagef("--%s must be %d..%d", flag, lo, hi)
	}
	return nil
}

// wantArgs checks the number of positional arguments.
func wantArgs(args []string, lo, hi int) error {
	if len(args) < lo {
		return usagef("missing argument")
	}
	if len(args) > hi {
		return usagef("unexpected argument %q", args[hi])
	}
	return nil
}

func logger(e *env, g *globals) *slog.Logger {
	level := slog.LevelWarn
	if g.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
}

func printJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
