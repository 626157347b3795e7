package vault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// The claims tables of the index (docs/ledger.md):
//
//	claims.key     subject\0property\0scope\0id -> the claim (JSON)
//	claims.source  source path\0id              -> the claim (JSON), assertions only
//	claims.id      id                           -> subject\0property\0scope
//
// They are derived from the files under .norn/claims/ at HEAD; a file that does
// not decode (ledger.DecodeClaim: the gates refuse such a write, but a person
// or a sync could commit one) has no rows.
const (
	tableClaimKey    = "claims.key"
	tableClaimSource = "claims.source"
	tableClaimID     = "claims.id"
)

// claimDeriver keeps the claims tables.
type claimDeriver struct{}

// claimRows are the rows of one claim.
func claimRows(c *ledger.Claim) ([]graph.Row, error) {
	js, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode claim %s: %w", c.ID, err)
	}
	key := c.Key()
	rows := []graph.Row{
		{Table: tableClaimKey, Key: []byte(key + "\x00" + string(c.ID)), Value: js},
		{Table: tableClaimID, Key: []byte(c.ID), Value: []byte(key)},
	}
	if c.Kind == ledger.KindAssertion {
		rows = append(rows, graph.Row{Table: tableClaimSource, Key: []byte(string(c.Source.Path) + "\x00" + string(c.ID)), Value: js})
	}
	return rows, nil
}

// readClaim reads and decodes the claim file p at rev; ok is false for a file
// that is not a claim record.
func readClaim(ctx context.Context, v *repo.Vault, p note.Path, rev repo.Revision) (*ledger.Claim, bool, error) {
	if !ledger.IsClaimPath(p) || rev == "" {
		return nil, false, nil
	}
	b, err := v.ReadRevision(ctx, rev)
	if err != nil {
		return nil, false, fmt.Errorf("read claim %s: %w", p, err)
	}
	c, err := ledger.DecodeClaim(p, b)
	if err != nil {
		return nil, false, nil
	}
	return c, true, nil
}

// AllRows yields the rows of every claim at head.
func (claimDeriver) AllRows(ctx context.Context, v *repo.Vault, head repo.CommitID, files []repo.File) iter.Seq2[graph.Row, error] {
	return func(yield func(graph.Row, error) bool) {
		for _, f := range files {
			c, ok, err := readClaim(ctx, v, f.Path, f.Revision)
			if err != nil {
				yield(graph.Row{}, err)
				return
			}
			if !ok {
				continue
			}
			rows, err := claimRows(c)
			if err != nil {
				yield(graph.Row{}, err)
				return
			}
			for _, r := range rows {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
}

// ChangedRows deletes the rows of the claim files changes replace or remove and
// puts those of the files they write.
func (claimDeriver) ChangedRows(ctx context.Context, v *repo.Vault, from, to repo.CommitID, changes []repo.FileChange) ([]graph.Row, error) {
	var put, del []graph.Row
	for _, ch := range changes {
		if !ledger.IsClaimPath(ch.Path) {
			continue
		}
		for _, side := range []struct {
			rev repo.Revision
			out *[]graph.Row
		}{{ch.OldRevision, &del}, {ch.Revision, &put}} {
			c, ok, err := readClaim(ctx, v, ch.Path, side.rev)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			rows, err := claimRows(c)
			if err != nil {
				return nil, err
			}
			*side.out = append(*side.out, rows...)
		}
	}
	// A key both deleted and put is put (a batch names a key once).
	kept := make(map[string]bool, len(put))
	for _, r := range put {
		kept[r.Table+"\x00"+string(r.Key)] = true
	}
	for _, r := range del {
		if k := r.Table + "\x00" + string(r.Key); !kept[k] {
			kept[k] = true
			put = append(put, graph.Row{Table: r.Table, Key: r.Key, Delete: true})
		}
	}
	return put, nil
}

// claimReader reads the rows of a claims table whose keys start with a prefix,
// as of one HEAD.
type claimReader func(ctx context.Context, table string, prefix []byte) ([]graph.Row, error)

// claimReader returns a reader of the claims tables as of HEAD: the index's once
// it has caught up, else (an index unusable, or locked by another process) the
// rows derived from the claim files at HEAD, read once.
func (v *Vault) claimReader(ctx context.Context) (claimReader, error) {
	x := v.Index
	x.load()
	ix, _ := x.index()
	if ix == nil || ix.Commit() != string(v.Head()) {
		if err := x.CatchUp(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			x.log.Warn("catch up index", "err", err)
		}
		ix, _ = x.index()
	}
	if ix != nil && ix.Commit() == string(v.Head()) {
		return func(ctx context.Context, table string, prefix []byte) ([]graph.Row, error) {
			rows, err := ix.Rows(ctx, table, prefix)
			if err != nil {
				return nil, x.checked(ix, err)
			}
			return rows, nil
		}, nil
	}
	files, head, err := v.Files(ctx, "")
	if err != nil {
		return nil, err
	}
	var claimFiles []repo.File
	for _, f := range files {
		if ledger.IsClaimPath(f.Path) {
			claimFiles = append(claimFiles, f)
		}
	}
	var all []graph.Row
	for r, err := range (claimDeriver{}).AllRows(ctx, v.repo, head, claimFiles) {
		if err != nil {
			return nil, err
		}
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b graph.Row) int { return bytes.Compare(a.Key, b.Key) })
	return func(ctx context.Context, table string, prefix []byte) ([]graph.Row, error) {
		var out []graph.Row
		for _, r := range all {
			if r.Table == table && bytes.HasPrefix(r.Key, prefix) {
				out = append(out, r)
			}
		}
		return out, nil
	}, nil
}

// claimsOf decodes rows of claims.key or claims.source.
func claimsOf(rows []graph.Row) ([]ledger.Claim, error) {
	out := make([]ledger.Claim, 0, len(rows))
	for _, r := range rows {
		var c ledger.Claim
		if err := json.Unmarshal(r.Value, &c); err != nil {
			return nil, fmt.Errorf("claims table %s: %w: %v", r.Table, graph.ErrCorrupt, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// claimsAbout returns every claim about one subject, property and scope the
// viewer may see (visibleClaims).
func (c *Viewer) claimsAbout(ctx context.Context, rd claimReader, key string) ([]ledger.Claim, error) {
	rows, err := rd(ctx, tableClaimKey, []byte(key+"\x00"))
	if err != nil {
		return nil, err
	}
	all, err := claimsOf(rows)
	if err != nil {
		return nil, err
	}
	return c.visibleClaims(ctx, all), nil
}

// claimByID returns the claim id and every claim about its subject, property and
// scope the viewer may see; a claim the viewer may not see is not found.
func (c *Viewer) claimByID(ctx context.Context, rd claimReader, id ledger.ClaimID) (*ledger.Claim, []ledger.Claim, error) {
	rows, err := rd(ctx, tableClaimID, []byte(id))
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rows {
		if string(r.Key) != string(id) {
			continue
		}
		group, err := c.claimsAbout(ctx, rd, string(r.Value))
		if err != nil {
			return nil, nil, err
		}
		for i := range group {
			if group[i].ID == id {
				return &group[i], group, nil
			}
		}
	}
	return nil, nil, missingf("", "no claim %s: see the claims of a subject with claim_history", id)
}

// visibleClaims keeps the claims of one subject, property and scope the viewer
// may see: an assertion whose source it may see (sourceVisible), a retraction
// of a claim it may see. A superseded claim hidden from it leaves no trace: the
// supersedes of a claim it sees is blanked, as is one naming no claim at all
// (a file removed outside Norn), so that both read alike.
func (c *Viewer) visibleClaims(ctx context.Context, all []ledger.Claim) []ledger.Claim {
	seen := map[ledger.ClaimID]bool{}
	for _, cl := range all {
		if cl.Kind == ledger.KindAssertion && (c.all || !cl.Private && c.sourceVisible(ctx, cl.Source, c.v.Revision(cl.Source.Path))) {
			seen[cl.ID] = true
		}
	}
	// A retraction of a retraction is visible when what it leads back to is.
	for changed := true; changed; {
		changed = false
		for _, cl := range all {
			if cl.Kind == ledger.KindRetraction && !seen[cl.ID] && seen[cl.Supersedes] && (c.all || !cl.Private) {
				seen[cl.ID], changed = true, true
			}
		}
	}
	out := all[:0:0]
	for _, cl := range all {
		if !seen[cl.ID] {
			continue
		}
		if cl.Supersedes != "" && !seen[cl.Supersedes] {
			cl.Supersedes = ""
		}
		out = append(out, cl)
	}
	return out
}

// sourceVisible reports whether the viewer may learn anything of source s (a
// claim's, or a summary's), whose revision at HEAD is cur ("" when it is gone):
// it must see the note at HEAD (or, gone, its path) and, when it drifted, the
// revision that was read too.
func (c *Viewer) sourceVisible(ctx context.Context, s ledger.Source, cur repo.Revision) bool {
	if c.all {
		return true
	}
	if !c.Visible(ctx, s.Path) {
		return false
	}
	return cur == s.Revision || c.VisibleAt(ctx, s.Path, s.Revision)
}

// claimKeyArgs checks the subject, property and scope of a request.
func claimKeyArgs(subject, property, scope string) (string, error) {
	var missing []string
	for _, f := range []struct{ name, v string }{{"subject", subject}, {"property", property}, {"scope", scope}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
		if strings.ContainsRune(f.v, 0) {
			return "", invalidf("%s holds a 0 byte", f.name)
		}
	}
	if len(missing) > 0 {
		return "", invalidf("%s required: a claim is about a subject, a property and a scope", strings.Join(missing, ", "))
	}
	return ledger.KeyOf(strings.TrimSpace(subject), strings.TrimSpace(property), strings.TrimSpace(scope)), nil
}

// claimViolations are the gate rules on a change under .norn/claims/: a claim
// file is created once, whole and valid (ledger.DecodeClaim: claim-* rules),
// and never changed, moved or removed after (claim-immutable: supersede or
// retract it instead), so the ledger's history is the files' history.
func claimViolations(c repo.ProposedChange) []hooks.Violation {
	var out []hooks.Violation
	immutable := func(p note.Path) {
		out = append(out, hooks.Violation{Rule: "claim-immutable", Path: p,
			Message: "a claim record is never changed, moved or removed: supersede it with a new claim, or retract it (norn claim retract ID)"})
	}
	if c.Kind == repo.Move && ledger.IsClaimPath(c.From) {
		immutable(c.From)
	}
	if !ledger.IsClaimPath(c.Path) {
		return out
	}
	if c.Kind == repo.Archive || c.Kind == repo.Move || c.OldRevision != "" {
		immutable(c.Path)
		return out
	}
	if _, err := ledger.DecodeClaim(c.Path, c.New); err != nil {
		var ce *ledger.ClaimError
		if !errors.As(err, &ce) {
			return append(out, hooks.Violation{Rule: ledger.RuleSyntax, Path: c.Path, Message: err.Error()})
		}
		for _, p := range ce.Problems {
			msg := p.Msg
			if p.Field != "" {
				msg = p.Field + ": " + msg
			}
			out = append(out, hooks.Violation{Rule: p.Rule, Path: c.Path, Line: p.Line, Message: msg})
		}
	}
	return out
}
