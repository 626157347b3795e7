package errcode_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/rerank"
	"github.com/norn-vault/norn/sync/remote"
)

// TestCode_Info: every code has a class, an exit code and a hint, and its
// spellings are distinct on each surface.
func TestCode_Info(t *testing.T) {
	classes := map[errcode.Class]bool{errcode.Retryable: true, errcode.FixInput: true, errcode.Fatal: true}
	exits := map[int]bool{errcode.ExitError: true, errcode.ExitUsage: true, errcode.ExitConflict: true, errcode.ExitRejected: true}
	cli := map[string]errcode.Code{}
	codes := errcode.Codes()
	if len(codes) < 10 {
		t.Fatalf("only %d codes", len(codes))
	}
	for _, c := range codes {
		in := c.Info()
		if in.Code != c || !classes[in.Class] || !exits[in.Exit] || in.Hint == "" || in.CLI == "" || in.MCP == "" {
			t.Errorf("%s: incomplete row %+v", c, in)
		}
		if other, dup := cli[in.CLI]; dup {
			t.Errorf("%s and %s are both %q in the CLI", c, other, in.CLI)
		}
		cli[in.CLI] = c
	}
	if got := errcode.Code("no_such_code").Info(); got.Code != errcode.Internal {
		t.Errorf("unknown code: %+v, want internal's row", got)
	}
	// The spellings docs/cli.md and docs/mcp-tools.md document.
	for c, want := range map[errcode.Code][3]any{
		errcode.InvalidInput: {"invalid", "invalid_input", errcode.ExitError},
		errcode.Internal:     {"error", "internal", errcode.ExitError},
		errcode.Canceled:     {"canceled", "internal", errcode.ExitError},
		errcode.Conflict:     {"conflict", "conflict", errcode.ExitConflict},
		errcode.GitBusy:      {"git_busy", "git_busy", errcode.ExitConflict},
		errcode.GateRejected: {"gate_rejected", "gate_rejected", errcode.ExitRejected},
		errcode.Usage:        {"usage", "usage", errcode.ExitUsage},
	} {
		if in := c.Info(); in.CLI != want[0] || in.MCP != want[1] || in.Exit != want[2] {
			t.Errorf("%s: %+v, want CLI %v, MCP %v, exit %v", c, in, want[0], want[1], want[2])
		}
	}
}

// TestClassify: each sentinel of repo, graph, hooks, note and config, wrapped as
// the parts wrap them, maps to its code.
func TestClassify(t *testing.T) {
	own := errcode.New(errcode.Forbidden, "forbidden")
	for _, tc := range []struct {
		err  error
		want errcode.Code
	}{
		{nil, ""},
		{fmt.Errorf("write: %w", &repo.ConflictError{Path: "a.md", Current: "c"}), errcode.Conflict},
		{&repo.StaleBaseError{Base: "a", Head: "b"}, errcode.Conflict},
		{repo.ErrConflict, errcode.Conflict},
		{fmt.Errorf("advance: %w", &repo.DirtyError{Paths: []note.Path{"a.md"}}), errcode.Conflict},
		{fmt.Errorf("write: %w", &repo.BusyError{Reason: "a merge"}), errcode.GitBusy},
		{fmt.Errorf("write: %w: %w", repo.ErrRejected, &hooks.Rejection{}), errcode.GateRejected},
		{&hooks.Rejection{}, errcode.GateRejected},
		{hooks.ErrRejected, errcode.GateRejected},
		{hooks.ErrInvalidProposal, errcode.Internal},
		{fmt.Errorf("read: %w: a.md", repo.ErrNotFound), errcode.NotFound},
		{repo.ErrInvalid, errcode.InvalidInput},
		{repo.ErrNotVault, errcode.NotAVault},
		{repo.ErrClosed, errcode.Closed},
		{&note.ParseError{Path: "a.md", Rule: note.RuleYAMLSyntax}, errcode.InvalidInput},
		{note.ErrInvalid, errcode.InvalidInput},
		{fmt.Errorf("set: %w", note.ErrUneditable), errcode.InvalidInput},
		{errors.Join(&config.Error{Key: "gates.profile"}, &config.Error{Key: "x"}), errcode.InvalidInput},
		{config.ErrInvalid, errcode.InvalidInput},
		{rerank.ErrConfig, errcode.InvalidInput},
		{fmt.Errorf("--rerank: %w", rerank.ErrMode), errcode.InvalidInput},
		{fmt.Errorf("egress.jsonl: %w", rerank.ErrEgress), errcode.InvalidInput},
		{&graph.QueryError{Query: `"a`, Reason: "unclosed"}, errcode.InvalidInput},
		{graph.ErrQuery, errcode.InvalidInput},
		{&graph.ArgError{Name: "depth", Reason: "must be 1 to 3"}, errcode.InvalidInput},
		{fmt.Errorf("links: %w", graph.ErrUnknownNote), errcode.NotFound},
		{fmt.Errorf("mv: %w", note.ErrRewrite), errcode.InvalidInput},
		{fmt.Errorf("conflict path: %w", note.ErrMachineName), errcode.InvalidInput},
		{graph.ErrUnavailable, errcode.IndexStale},
		{graph.ErrLocked, errcode.IndexStale},
		{graph.ErrClosed, errcode.Closed},
		{graph.ErrFormat, errcode.Internal},
		{graph.ErrCorrupt, errcode.Internal},
		{graph.ErrInvalidBatch, errcode.Internal},
		{context.Canceled, errcode.Canceled},
		{fmt.Errorf("search: %w", context.DeadlineExceeded), errcode.Canceled},
		{fmt.Errorf("move: %w", own), errcode.Forbidden},
		{fmt.Errorf("%w: %w", errcode.New(errcode.IndexStale, "index unavailable"), graph.ErrCorrupt), errcode.IndexStale},
		{fmt.Errorf("fetch origin: %w: %w", remote.ErrUnreachable, errors.New("connection refused")), errcode.RemoteUnreachable},
		{fmt.Errorf("push origin: %w: pre-receive hook declined", remote.ErrRejected), errcode.RemoteRejected},
		{fmt.Errorf("sync origin: %w", remote.ErrRemoteMoved), errcode.Conflict},
		{remote.ErrSyncBusy, errcode.Conflict},
		{remote.ErrFetchIncomplete, errcode.Conflict},
		{fmt.Errorf("fetch origin: %w", remote.ErrAuth), errcode.InvalidInput},
		{&remote.HostKeyError{Host: "h"}, errcode.InvalidInput},
		{remote.ErrNotFound, errcode.NotFound},
		{fmt.Errorf("fetch: %w (%v)", context.Canceled, remote.ErrUnreachable), errcode.Canceled},
		{errors.New("disk on fire"), errcode.Internal},
	} {
		if got := errcode.Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	if !errors.Is(fmt.Errorf("x: %w", own), own) {
		t.Error("a New sentinel does not match itself through a wrap")
	}
}

// TestCode_Documented: docs/architecture.md's "Errors" table has one row per code
// with the class, exit code and CLI spelling the table here gives it.
func TestCode_Documented(t *testing.T) {
	doc, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 6 {
			continue
		}
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		rows[cells[1]] = cells[2:5]
	}
	for _, c := range errcode.Codes() {
		in := c.Info()
		want := []string{string(in.Class), strconv.Itoa(in.Exit), in.CLI}
		if got, ok := rows[string(c)]; !ok || !slices.Equal(got, want) {
			t.Errorf("docs/architecture.md row for %s: %q, want %q", c, got, want)
		}
	}
}
