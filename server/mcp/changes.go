package mcp

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/sync/feed"
)

// defaultChangesWait is how long wait_for_changes waits when timeout is not given.
const defaultChangesWait = 30 * time.Second

// WaitForChangesArgs are wait_for_changes' arguments.
type WaitForChangesArgs struct {
	Since   string   `json:"since,omitempty" jsonschema:"the cursor of the previous answer (a 40-character commit id); omitted: from the head now"`
	Timeout *int     `json:"timeout,omitempty" jsonschema:"seconds to wait for a change when none is waiting (default 30, 0 answers at once, at most 60)"`
	Folders []string `json:"folders,omitempty" jsonschema:"only changes under these folders"`
}

// WaitForChangesResult is wait_for_changes' answer.
type WaitForChangesResult struct {
	// Messages are the change feed's messages (docs/feed.md): events, or one
	// resync. A commit whose every change the caller may not see (or filtered
	// out) has none: it only moves Cursor.
	Messages []feed.Message `json:"messages"`
	// Cursor is the since of the next call.
	Cursor repo.CommitID `json:"cursor"`
	// More: commits after Cursor are waiting; call again at once.
	More bool `json:"more"`
	// TimedOut: nothing came within the timeout.
	TimedOut bool `json:"timed_out"`
}

func (t *mcpTools) addFeedTools() {
	addTool(t, toolDef{name: "wait_for_changes", title: "Wait for changes", scope: auth.ScopeRead, readOnly: true, idempotent: true,
		desc: "Long-poll the vault's change feed (for clients that cannot hold the /v1/events websocket): every commit after " +
			"since, as the feed's event messages (commit, parents, author, op, reason, time, source, and the changes: path, " +
			"kind, from, old and new revision). Returns at once when commits after since are waiting (up to 256), else waits " +
			"up to timeout seconds (default 30, at most 60) for the next one. Pass the answer's cursor as the next since; " +
			"more=true means call again at once. A since that is not a commit of the vault, or no longer in its history, " +
			"gets a resync message with the current head instead (reload what you hold, then continue from cursor). " +
			"folders keeps only changes under those folders."}, t.waitForChanges)
}

func (t *mcpTools) waitForChanges(ctx context.Context, c *caller, in WaitForChangesArgs) (*WaitForChangesResult, error) {
	if t.feed == nil {
		return nil, &ToolError{Class: ClassFatal, Code: CodeInternal, Message: "wait_for_changes: this server was started without a change feed"}
	}
	wait := defaultChangesWait
	if in.Timeout != nil {
		if *in.Timeout < 0 || time.Duration(*in.Timeout)*time.Second > feed.MaxPollWait {
			return nil, errInput("timeout is 0 to %d seconds, not %d", int(feed.MaxPollWait/time.Second), *in.Timeout)
		}
		wait = time.Duration(*in.Timeout) * time.Second
	}
	q, err := feed.ParseQuery(url.Values{"since": {in.Since}, "folders": in.Folders})
	if err != nil {
		return nil, errInput("%v", err)
	}
	r := feed.PollRequest{Query: q, Wait: wait}
	if !c.SeesAll() {
		r.Visible = func(p note.Path, rev repo.Revision) bool { return t.v.PublicAt(ctx, p, rev) }
	}
	res, err := t.feed.Poll(ctx, r)
	switch {
	case errors.Is(err, feed.ErrClosed):
		return nil, &ToolError{Class: ClassRetryable, Code: CodeClosed, Message: "wait_for_changes: the server is shutting down; call again with the same since once it is back"}
	case err != nil:
		return nil, err
	}
	return &WaitForChangesResult{Messages: res.Messages, Cursor: res.Cursor, More: res.More, TimedOut: res.TimedOut}, nil
}
