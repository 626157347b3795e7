package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/mcp"
)

func TestMCP_ToolErrorFrom(t *testing.T) {
	conflict := fmt.Errorf("write a.md: %w", &repo.ConflictError{Path: "a.md", Expected: "e1", Current: "c2", Reason: "changed"})
	rejected := fmt.Errorf("write a.md: %w: %w", repo.ErrRejected, &hooks.Rejection{Violations: []hooks.Violation{{Rule: "final-newline", Path: "a.md", Line: 3, Message: "add one"}}})
	for _, tc := range []struct {
		err   error
		class mcp.ErrorClass
		code  mcp.ErrorCode
		in    string
	}{
		{conflict, mcp.ClassRetryable, mcp.CodeConflict, "expected_revision=c2"},
		{fmt.Errorf("x: %w", &repo.ConflictError{Reason: "the branch moved"}), mcp.ClassRetryable, mcp.CodeConflict, "retry the call"},
		{rejected, mcp.ClassFixInput, mcp.CodeGateRejected, "[final-newline] a.md:3: add one"},
		{fmt.Errorf("read: %w: no a.md", repo.ErrNotFound), mcp.ClassFixInput, mcp.CodeNotFound, "no a.md"},
		{fmt.Errorf("write: %w: bad path", repo.ErrInvalid), mcp.ClassFixInput, mcp.CodeInvalidInput, "bad path"},
		{&note.ParseError{Path: "a.md", Line: 2, Rule: note.RuleYAMLSyntax, Msg: "bad"}, mcp.ClassFixInput, mcp.CodeInvalidInput, "yaml-syntax"},
		{repo.ErrClosed, mcp.ClassRetryable, mcp.CodeClosed, "retry"},
		{fmt.Errorf("write: %w", &repo.BusyError{Reason: "a merge is in progress"}), mcp.ClassRetryable, mcp.CodeGitBusy, "a merge is in progress. Nothing was written. A person has to finish that in git; tell the user"},
		{fmt.Errorf("write: %w", &repo.BusyError{Locked: true, Reason: "a git command is running"}), mcp.ClassRetryable, mcp.CodeGitBusy, "a git command is running. Nothing was written. git is busy for a moment (a person's git command): retry in a second or two"},
		{context.DeadlineExceeded, mcp.ClassRetryable, mcp.CodeInternal, "retry"},
		{errors.New("disk on fire"), mcp.ClassFatal, mcp.CodeInternal, "disk on fire"},
	} {
		te := mcp.ToolErrorFrom(tc.err, nil)
		if te.Class != tc.class || te.Code != tc.code || !strings.Contains(te.Message, tc.in) {
			t.Errorf("%v: %+v", tc.err, te)
		}
	}
	te := mcp.ToolErrorFrom(conflict, nil)
	if te.Path != "a.md" || te.CurrentRevision != "c2" || te.ExpectedRevision != "e1" {
		t.Fatalf("conflict detail: %+v", te)
	}
	if te := mcp.ToolErrorFrom(rejected, nil); len(te.Violations) != 1 || te.Violations[0].Line != 3 {
		t.Fatalf("violations: %+v", te)
	}
	hidden := mcp.ToolErrorFrom(conflict, func(p note.Path) bool { return p == "a.md" })
	if hidden.Path != "" || hidden.CurrentRevision != "" || strings.Contains(hidden.Message, "a.md") || strings.Contains(hidden.Message, "c2") {
		t.Fatalf("a conflict on a hidden note leaks it: %+v", hidden)
	}
}

// TestMCP_VaultSubscribe: observers hear every commit with its changes once it is
// durable and the index caught up with it, in registration order, until cancelled.
func TestMCP_VaultSubscribe(t *testing.T) {
	v, _ := testmcp.NewEnv(t, testmcp.Fixture)
	ctx := context.Background()
	var mu sync.Mutex
	var got []string
	seen := make(chan repo.CommitID, 16)
	cancelA := v.Subscribe(func(ev repo.Event) {
		commit, _ := v.Index.Status()
		mu.Lock()
		got = append(got, "a:"+string(ev.ID)+":"+fmt.Sprint(commit == string(ev.ID)))
		mu.Unlock()
	})
	cancelB := v.Subscribe(func(ev repo.Event) {
		mu.Lock()
		got = append(got, "b:"+string(ev.Changes[0].Kind)+":"+string(ev.Changes[0].Path))
		mu.Unlock()
		seen <- ev.ID
	})
	write := func(p string) repo.CommitID {
		res, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "w"}, Op: repo.OpWrite,
			Changes: []repo.Change{{Kind: repo.Put, Path: note.Path(p), Content: []byte("# " + p + "\n")}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Commit
	}
	c1 := write("one.md")
	if id := <-seen; id != c1 {
		t.Fatalf("B saw %s first, want %s", id, c1)
	}
	cancelA()
	cancelA()
	c2 := write("two.md")
	if id := <-seen; id != c2 {
		t.Fatalf("B saw %s, want %s", id, c2)
	}
	cancelB()
	// C comes after B: once C heard of the third commit, B would have too.
	last := make(chan repo.CommitID, 1)
	defer v.Subscribe(func(ev repo.Event) { last <- ev.ID })()
	if c3 := write("three.md"); <-last != c3 {
		t.Fatal("C missed the third commit")
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"a:" + string(c1) + ":true", "b:added:one.md", "b:added:two.md"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("observed %v, want %v", got, want)
	}
}
