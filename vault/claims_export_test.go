package vault

import (
	"context"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// ClaimTables are the claims tables' names, for tests.
var ClaimTables = []string{tableClaimKey, tableClaimSource, tableClaimID}

// IndexRows reads every row of table from the open index (nil when it is not
// open), for tests that compare an index caught up commit by commit with a
// rebuilt one.
func (x *Indexer) IndexRows(ctx context.Context, table string) ([]graph.Row, error) {
	ix, _ := x.index()
	if ix == nil {
		return nil, nil
	}
	return ix.Rows(ctx, table, nil)
}

// IndexResolves reports whether a wikilink naming the file p resolves in the
// open index (an attachment or note it holds).
func (x *Indexer) IndexResolves(p note.Path) bool {
	ix, _ := x.index()
	if ix == nil {
		return false
	}
	r, err := ix.Resolve("", note.Link{Kind: note.LinkWiki, Target: string(p)})
	return err == nil && r.Status == graph.LinkResolved
}
