package web

import (
	"context"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
)

// changeOut is one path a commit changed.
type changeOut struct {
	Path note.Path       `json:"path"`
	Kind repo.ChangeKind `json:"kind"`
	From note.Path       `json:"from,omitempty"`
}

// commitOut is one commit of a history.
type commitOut struct {
	Commit  repo.CommitID `json:"commit"`
	Author  string        `json:"author"`
	Time    time.Time     `json:"time"`
	Op      repo.Op       `json:"op"`
	Reason  repo.Reason   `json:"reason"`
	Subject string        `json:"subject"`
	Changes []changeOut   `json:"changes"`
	// ChangesTotal counts the paths changed the viewer sees (Changes holds the
	// first 20).
	ChangesTotal int `json:"changes_total"`
}

func (rq *request) history(ctx context.Context) (any, error) {
	p := rq.ps.path("path", false)
	skip := rq.ps.num("skip", 0, 0, vault.MaxHistory)
	n := rq.ps.num("n", 20, 1, 100)
	if rq.ps.err != nil {
		return nil, rq.ps.err
	}
	out := map[string]any{"commits": []commitOut{}, "more": false}
	if p != "" && !rq.vw.Visible(ctx, p) {
		return out, nil // a hidden note has the history of a path with no note
	}
	n = min(n, vault.MaxHistory-skip)
	if n <= 0 {
		return out, nil
	}
	log, more, err := rq.vw.VisibleLog(ctx, p, skip, n)
	if err != nil {
		return nil, err
	}
	cfg := rq.vw.Config()
	commits := make([]commitOut, 0, len(log))
	for _, ci := range log {
		co := commitOut{Commit: ci.Commit, Author: ci.Author, Time: ci.Time, Op: ci.Op, Reason: ci.Reason, Subject: ci.Subject,
			Changes: []changeOut{}, ChangesTotal: ci.PathsTotal}
		for _, ch := range ci.Changes {
			c := changeOut{Path: ch.Path, Kind: ch.Kind, From: ch.From}
			if c.From != "" && !rq.vw.SeesAll() && cfg.IsPrivate(c.From, nil) {
				c.From = "" // moved out of a private folder: where from is private
			}
			co.Changes = append(co.Changes, c)
		}
		commits = append(commits, co)
	}
	out["commits"], out["more"] = commits, more && skip+len(log) < vault.MaxHistory
	return out, nil
}

// diffLine is one line of a note's diff.
type diffLine struct {
	Kind string `json:"kind"` // context, add or del
	Old  int    `json:"old,omitempty"`
	New  int    `json:"new,omitempty"`
	Text string `json:"text"`
}

// maxDiffLines bounds the lines of a diff answer (truncated beyond).
const maxDiffLines = 20000

func (rq *request) diff(ctx context.Context) (any, error) {
	p := rq.ps.path("path", true)
	from := rq.ps.rev("from")
	to := rq.ps.rev("to")
	if rq.ps.err != nil {
		return nil, rq.ps.err
	}
	if from == "" {
		return nil, badInput("from is required: a commit (id, branch or HEAD, optionally with ~N or ^N)")
	}
	if to == "" {
		to = "HEAD"
	}
	d, err := rq.vw.VisibleDiff(ctx, vault.DiffRequest{From: from, To: to, Path: p, Limit: 1})
	if err != nil {
		return nil, err
	}
	lines, truncated := []diffLine{}, false
	if d.PathChanged {
		lines, truncated = lineDiff(string(d.Before), string(d.After))
	}
	return map[string]any{"from": d.From, "to": d.To, "path": p, "changed": d.PathChanged, "lines": lines, "truncated": truncated}, nil
}

// lineDiff is the line diff of a → b with every line: context, del or add, with
// its 1-based line numbers in a (old) and b (new). Cut at maxDiffLines.
func lineDiff(a, b string) ([]diffLine, bool) {
	dmp := diffmatchpatch.New()
	ca, cb, arr := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), arr)
	out := []diffLine{}
	oldN, newN := 0, 0
	for _, d := range diffs {
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l == "" {
				continue
			}
			if len(out) == maxDiffLines {
				return out, true
			}
			dl := diffLine{Text: strings.TrimSuffix(l, "\n")}
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				oldN++
				newN++
				dl.Kind, dl.Old, dl.New = "context", oldN, newN
			case diffmatchpatch.DiffDelete:
				oldN++
				dl.Kind, dl.Old = "del", oldN
			case diffmatchpatch.DiffInsert:
				newN++
				dl.Kind, dl.New = "add", newN
			}
			out = append(out, dl)
		}
	}
	return out, false
}

// restoreIn is POST /web/api/restore's body.
type restoreIn struct {
	Path     string `json:"path"`
	Revision string `json:"revision"`
}

// maxRestoreBody bounds a restore request's body.
const maxRestoreBody = 16 << 10

func (rq *request) restore(ctx context.Context) (any, error) {
	if !rq.sess.p.Can(auth.ScopeWrite) {
		return nil, forbidden("%s may not restore notes: it needs the write scope and holds %s", rq.sess.p.Name, auth.ScopeList(rq.sess.p.Scopes))
	}
	var in restoreIn
	if err := decodeBody(rq.r, &in, maxRestoreBody); err != nil {
		return nil, err
	}
	ps := params{q: map[string][]string{"path": {in.Path}, "revision": {in.Revision}}}
	p, rev := ps.path("path", true), ps.rev("revision")
	if ps.err != nil {
		return nil, ps.err
	}
	if !vault.IsRevision(rev) {
		return nil, badInput("revision must be a note's revision (a 40-character blob id, as the note view answers it)")
	}
	r := vault.RestoreRequest{Path: p, Revision: repo.Revision(rev), Author: rq.sess.p.Author(), Roles: rq.sess.p.Roles(),
		Hidden: rq.vw.Hidden(ctx)}
	if !rq.vw.SeesAll() {
		r.Readable = rq.vw.VisibleContent
	}
	res, err := rq.h.v.RestoreNote(ctx, r)
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": p, "commit": res.Commit, "revision": res.Revision}, nil
}
