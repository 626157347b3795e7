package vault

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// CommitInfo is one commit as a viewer sees it. To a viewer that may not see
// private notes the vault is the vault without the private notes: a commit that
// changed only private notes is not listed at all, and one that also changed
// visible notes lists only those, under a subject made from them (see
// commitInfo).
type CommitInfo struct {
	Commit  repo.CommitID   `json:"commit"`
	Parents []repo.CommitID `json:"parents"`
	Author  string          `json:"author"`
	Time    time.Time       `json:"time"`
	Op      repo.Op         `json:"op,omitempty"`
	Reason  repo.Reason     `json:"reason,omitempty"`
	Subject string          `json:"subject"`
	// Paths are the first changed paths (at most 20); PathsTotal counts them all.
	Paths      []note.Path `json:"paths"`
	PathsTotal int         `json:"paths_total"`
	// Changes are the changes behind Paths (kind, path, a move's source), for the
	// surfaces that show the kinds (the web explorer); not part of the JSON.
	Changes []repo.FileChange `json:"-"`
}

// maxCommitPaths bounds CommitInfo.Paths; maxPrivacyReads bounds how many changed
// notes of one commit are read to judge their privacy (beyond it, unknown notes
// count as private).
const (
	maxCommitPaths  = 20
	maxPrivacyReads = 100
)

// commitInfo describes commit cm with the paths it changed (against its first
// parent), as the viewer may see them. ok is false when the viewer may see none
// of the paths cm changed (or its changes cannot be read): to it, cm does not
// exist. A commit that also changed hidden notes has the subject Norn gives a
// commit of the visible changes alone ("<op> <paths>"), since its own may name
// a hidden note; a commit that changed nothing is listed as it is.
func (c *Viewer) commitInfo(ctx context.Context, cm repo.Commit) (ci CommitInfo, ok bool) {
	ci = CommitInfo{Commit: cm.ID, Parents: cm.Parents, Author: fmt.Sprintf("%s <%s>", cm.Author.Name, cm.Author.Email),
		Time: cm.When, Op: cm.Op, Reason: cm.Reason, Subject: cm.Subject, Paths: []note.Path{}}
	if ci.Parents == nil {
		ci.Parents = []repo.CommitID{}
	}
	parent := ""
	if len(cm.Parents) > 0 {
		parent = string(cm.Parents[0])
	}
	changes, err := c.v.Diff(ctx, parent, string(cm.ID))
	if err != nil && !c.SeesAll() {
		return ci, false
	}
	hidden, reads := false, 0
	var visible []note.Path
	for _, ch := range changes {
		if !c.SeesAll() && !c.changeVisible(ctx, ch, &reads) {
			hidden = true
			continue
		}
		visible = append(visible, ch.Path)
		if len(ci.Changes) < maxCommitPaths {
			ci.Changes = append(ci.Changes, ch)
		}
	}
	if hidden && len(visible) == 0 {
		return ci, false
	}
	ci.PathsTotal = len(visible)
	ci.Paths = append(ci.Paths, visible[:min(len(visible), maxCommitPaths)]...)
	if hidden {
		ci.Subject = visibleSubject(cm.Op, visible)
	}
	return ci, true
}

// changeVisible reports whether a viewer that may not see private notes may see the
// change ch of a commit; reads counts the note revisions read so far for one
// commit (beyond maxPrivacyReads, a note not at HEAD as it was counts as hidden).
func (c *Viewer) changeVisible(ctx context.Context, ch repo.FileChange, reads *int) bool {
	rev := ch.Revision
	if rev == "" {
		rev = ch.OldRevision
	}
	switch {
	case privatePath(c.Config(), ch.Path):
		return false
	case ledger.IsClaimPath(ch.Path):
		return c.VisibleAt(ctx, ch.Path, rev)
	case !note.IsNote(ch.Path):
		return true
	case c.v.Revision(ch.Path) == rev:
		return c.Visible(ctx, ch.Path)
	case *reads < maxPrivacyReads:
		*reads++
		return c.VisibleAt(ctx, ch.Path, rev)
	}
	return false
}

// visibleSubject is the subject Norn writes for a commit of op changing paths
// (repo's default message): "<op> <path>, <path>", or "<op> <n> notes" when
// that is too long.
func visibleSubject(op repo.Op, paths []note.Path) string {
	if op == "" {
		op = repo.OpExternal
	}
	ps := make([]string, len(paths))
	for i, p := range paths {
		ps[i] = string(p)
	}
	s := string(op) + " " + strings.Join(ps, ", ")
	if len(s) > repo.MaxSubjectBytes {
		s = fmt.Sprintf("%s %d notes", op, len(paths))
	}
	return repo.Subject(s)
}

// MaxHistory is how far back a history listing goes, in commits a viewer may see;
// maxLogScan bounds how many commits one VisibleLog call walks to find them.
const (
	MaxHistory = 1000
	maxLogScan = 20 * MaxHistory
)

// VisibleLog returns the commits of the log of p ("" for all) that the viewer
// may see, from the skip-th to the (skip+n)-th, and whether another follows.
// It walks at most maxLogScan commits.
func (c *Viewer) VisibleLog(ctx context.Context, p note.Path, skip, n int) ([]CommitInfo, bool, error) {
	want := skip + n + 1
	var seen []CommitInfo
	done := 0 // commits of the log examined
	for window := want; ; window = min(2*window, maxLogScan) {
		log, err := c.v.Log(ctx, p, window)
		if err != nil {
			return nil, false, err
		}
		for ; done < len(log) && len(seen) < want; done++ {
			if ci, ok := c.commitInfo(ctx, log[done]); ok {
				seen = append(seen, ci)
			}
		}
		if len(seen) >= want || len(log) < window || window == maxLogScan {
			break
		}
	}
	if skip >= len(seen) {
		return []CommitInfo{}, false, nil
	}
	end := min(len(seen), skip+n)
	return seen[skip:end], len(seen) > end, nil
}
