package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// --- history ---

// HistoryArgs are history's arguments.
type HistoryArgs struct {
	Path   string `json:"path,omitempty" jsonschema:"only the commits that changed this note, following it across moves"`
	Limit  int    `json:"limit,omitempty" jsonschema:"commits per page (default 20, at most 100)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// HistoryResult is history's answer. With a path, each commit also says what it
// did to the note (kind, the note's path then, from/to for a move, revision).
type HistoryResult struct {
	Path       note.Path            `json:"path,omitempty"`
	Commits    []vault.HistoryEntry `json:"commits"`
	NextCursor string               `json:"next_cursor,omitempty"`
	Truncated  bool                 `json:"truncated"`
}

const maxHistory = vault.MaxHistory

func (t *mcpTools) history(ctx context.Context, c *caller, in HistoryArgs) (*HistoryResult, error) {
	limit, err := bound("limit", in.Limit, 20, 100)
	if err != nil {
		return nil, err
	}
	var p note.Path
	if strings.TrimSpace(in.Path) != "" {
		if p, err = notePathArg("path", in.Path); err != nil {
			return nil, err
		}
	}
	offset := 0
	if in.Cursor != "" {
		offset, err = strconv.Atoi(in.Cursor)
		if err != nil || offset < 0 || offset > maxHistory {
			return nil, errInput("cursor %q is not one this tool handed out: pass next_cursor unchanged (history goes back %d commits at most)", in.Cursor, maxHistory)
		}
	}
	n := min(offset+limit, maxHistory)
	out := &HistoryResult{Path: p, Commits: []vault.HistoryEntry{}}
	var more bool
	if p != "" {
		// A note the caller may not see has the history of a path with no note.
		if out.Commits, more, err = c.VisibleHistory(ctx, p, offset, n-min(offset, n)); err != nil {
			return nil, err
		}
	} else {
		commits, m, err := c.VisibleLog(ctx, p, offset, n-min(offset, n))
		if err != nil {
			return nil, err
		}
		for _, ci := range commits {
			out.Commits = append(out.Commits, vault.HistoryEntry{CommitInfo: ci})
		}
		more = m
	}
	if more {
		out.Truncated = true
		if n < maxHistory {
			out.NextCursor = strconv.Itoa(n)
		}
	}
	return out, nil
}

// --- diff ---

// DiffArgs are diff's arguments.
type DiffArgs struct {
	From     string `json:"from" jsonschema:"the older commit (id or short id, branch or HEAD, each optionally with ~N / ^N, e.g. HEAD~2)"`
	To       string `json:"to,omitempty" jsonschema:"the newer commit (default HEAD)"`
	Path     string `json:"path,omitempty" jsonschema:"also give a unified diff of this note"`
	Limit    int    `json:"limit,omitempty" jsonschema:"most changes listed (default 100, at most 1000)"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"most bytes of unified diff (default 16384, at most 262144)"`
}

// DiffResult is diff's answer.
type DiffResult struct {
	From    repo.CommitID     `json:"from"`
	To      repo.CommitID     `json:"to"`
	Changes []repo.FileChange `json:"changes"`
	// Total counts the changed paths you can see.
	Total     int  `json:"total"`
	Truncated bool `json:"truncated"`
	// Unified is the unified diff of Path (empty when it did not change).
	Path             note.Path `json:"path,omitempty"`
	Unified          string    `json:"unified,omitempty"`
	UnifiedTruncated bool      `json:"unified_truncated,omitempty"`
}

func (t *mcpTools) diff(ctx context.Context, c *caller, in DiffArgs) (*DiffResult, error) {
	if strings.TrimSpace(in.From) == "" {
		return nil, errInput("from is required: a commit id, a branch or HEAD, optionally with ~N or ^N (e.g. HEAD~1)")
	}
	limit, err := bound("limit", in.Limit, 100, 1000)
	if err != nil {
		return nil, err
	}
	maxBytes, err := bound("max_bytes", in.MaxBytes, defaultReadBytes, 256<<10)
	if err != nil {
		return nil, err
	}
	to := in.To
	if to == "" {
		to = "HEAD"
	}
	var p note.Path
	if in.Path != "" {
		if p, err = notePathArg("path", in.Path); err != nil {
			return nil, err
		}
	}
	d, err := c.VisibleDiff(ctx, vault.DiffRequest{From: in.From, To: to, Path: p, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := &DiffResult{From: d.From, To: d.To, Changes: d.Changes, Total: d.Total, Truncated: d.Truncated, Path: p}
	if d.PathChanged {
		out.Unified, out.UnifiedTruncated = unifiedDiff(string(p), string(d.Before), string(d.After), maxBytes)
	}
	return out, nil
}

// unifiedDiff renders a unified diff (3 lines of context) of a → b, cut at max
// bytes on a line boundary (truncated then).
func unifiedDiff(name, a, b string, maxBytes int) (string, bool) {
	al, bl := splitLines(a), splitLines(b)
	ops := diffLines(al, bl)
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	const ctxLines = 3
	type pos struct {
		op   byte
		a, b int
	} // a, b: 0-based line numbers before the op
	var script []pos
	ai, bi := 0, 0
	for _, op := range ops {
		script = append(script, pos{op, ai, bi})
		switch op {
		case ' ':
			ai++
			bi++
		case '-':
			ai++
		case '+':
			bi++
		}
	}
	line := func(op byte, p pos) string {
		s := ""
		if op == '+' {
			s = bl[p.b]
		} else {
			s = al[p.a]
		}
		if !strings.HasSuffix(s, "\n") {
			s += "\n\\ No newline at end of file\n"
		}
		return string(op) + s
	}
	for i := 0; i < len(script); {
		if script[i].op == ' ' {
			i++
			continue
		}
		start := max(i-ctxLines, 0)
		end := i
		for j := i; j < len(script); j++ {
			if script[j].op != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*ctxLines {
				break
			}
		}
		stop := min(end+ctxLines, len(script))
		var hunk strings.Builder
		na, nb := 0, 0
		for _, p := range script[start:stop] {
			hunk.WriteString(line(p.op, p))
			if p.op != '+' {
				na++
			}
			if p.op != '-' {
				nb++
			}
		}
		sa, sb := script[start].a+1, script[start].b+1
		if na == 0 {
			sa--
		}
		if nb == 0 {
			sb--
		}
		h := fmt.Sprintf("@@ -%d,%d +%d,%d @@\n", sa, na, sb, nb) + hunk.String()
		if out.Len()+len(h) > maxBytes {
			for _, l := range strings.SplitAfter(h, "\n") {
				if out.Len()+len(l) > maxBytes {
					break
				}
				out.WriteString(l)
			}
			return out.String(), true
		}
		out.WriteString(h)
		i = stop
	}
	return out.String(), false
}

// splitLines splits s into lines, each with its newline (the last may lack one).
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// maxDiffEdits bounds the edit distance diffLines searches; beyond it, the middle
// of the texts is reported as replaced whole.
const maxDiffEdits = 1000

// diffLines returns an edit script turning a into b: ' ' keep, '-' delete a line
// of a, '+' insert a line of b (Myers' O(ND) algorithm on the lines between the
// common prefix and suffix).
func diffLines(a, b []string) []byte {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	script := make([]byte, 0, len(a)+len(b))
	for range pre {
		script = append(script, ' ')
	}
	script = append(script, myers(ma, mb)...)
	for range suf {
		script = append(script, ' ')
	}
	return script
}

func myers(a, b []string) []byte {
	n, m := len(a), len(b)
	whole := func() []byte {
		s := make([]byte, 0, n+m)
		for range n {
			s = append(s, '-')
		}
		for range m {
			s = append(s, '+')
		}
		return s
	}
	if n == 0 || m == 0 {
		return whole()
	}
	maxD := min(n+m, maxDiffEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int // trace[d] holds v[k] for k in -d..d after step d
	end := -1
	for d := 0; d <= maxD && end < 0; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				end = d
			}
		}
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
	}
	if end < 0 {
		return whole()
	}
	var rev []byte
	x, y := n, m
	for d := end; d > 0; d-- {
		prev := trace[d-1] // index k+(d-1)
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			rev = append(rev, ' ')
			x--
			y--
		}
		if x == px {
			rev = append(rev, '+')
			y--
		} else {
			rev = append(rev, '-')
			x--
		}
	}
	for x > 0 && y > 0 {
		rev = append(rev, ' ')
		x--
		y--
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
