package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/repo"
)

// TestResolveAt: a date or time names the last commit at or before it on the
// branch (a day means its end, UTC; an offset is honoured); a commit-ish passes
// through; a malformed date is ErrInvalid and one before the history
// ErrNotFound. Commits are a minute apart from epoch (the seed commit).
func TestResolveAt(t *testing.T) {
	ctx := context.Background()
	v := newVault(t)
	var commits []repo.CommitID // commits[i] is at epoch + (i+1) minutes
	for i := range 3 {
		res, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "a"}, Op: repo.OpWrite,
			Changes: []repo.Change{{Kind: repo.Put, Path: "n.md", Content: fmt.Appendf(nil, "# N\n\nv%d\n", i), ExpectedRevision: v.Revision("n.md")}}})
		if err != nil {
			t.Fatal(err)
		}
		commits = append(commits, res.Commit)
	}
	seedCommit, err := v.Commit(ctx, string(commits[0])+"~1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   string
		want repo.CommitID
	}{
		{"2026-12-01T12:01:00Z", commits[0]},
		{"2026-12-01T12:01:59Z", commits[0]},
		{"2026-12-01T12:02:00Z", commits[1]},
		{"2026-12-01T13:02:30+01:00", commits[1]},
		{"2026-12-01T12:00:30.5Z", seedCommit.ID},
		{"2026-12-01", commits[2]},
		{"2030-01-01", commits[2]},
		{"HEAD~1", "HEAD~1"},
	} {
		got, err := ledger.ResolveAt(ctx, v, c.at)
		if err != nil || got != string(c.want) {
			t.Errorf("ResolveAt(%q) = %q, %v; want %q", c.at, got, err, c.want)
		}
	}
	for _, bad := range []string{"2026-13-01", "2026-02-30", "2026-12-01T25:00:00Z", "2026-12-01 12:00", "2026-12-1", "2026-12-01T12:00:00"} {
		if _, err := ledger.ResolveAt(ctx, v, bad); !errors.Is(err, repo.ErrInvalid) {
			t.Errorf("ResolveAt(%q): %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := ledger.ResolveAt(ctx, v, "2026-11-30"); !errors.Is(err, repo.ErrNotFound) {
		t.Errorf("ResolveAt before the history: %v, want ErrNotFound", err)
	}
}

// FuzzParseDate: ParseDate never panics, refuses with ErrInvalid, and a day it
// accepts spans exactly that day; a time, one instant.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-12-07", "2026-12-07T10:00:00Z", "2026-12-07T10:00:00.123+05:30",
		"2026-02-29", "2024-02-29", "9999-12-31", "0000-01-01", "2026-12-07T", "2026-", "", "deadbeef", "2026-12-07\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		from, d, err := ledger.ParseDate(s)
		if err != nil {
			if !errors.Is(err, repo.ErrInvalid) {
				t.Fatalf("ParseDate(%q): %v is not ErrInvalid", s, err)
			}
			return
		}
		if len(s) == len(time.DateOnly) {
			if d.Format(time.DateOnly) != s || d.Add(time.Nanosecond).Format(time.DateOnly) == s ||
				from.Format(time.DateOnly) != s || from.Add(-time.Nanosecond).Format(time.DateOnly) == s {
				t.Fatalf("ParseDate(%q) = %v, %v: not the whole of that day", s, from, d)
			}
		} else if !from.Equal(d) {
			t.Fatalf("ParseDate(%q) = %v, %v: a time names one instant", s, from, d)
		}
	})
}
