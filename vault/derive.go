package vault

import (
	"context"
	"iter"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/repo"
)

// A deriver keeps one or more derived tables of the index (graph.Row records) in
// step with the vault: the ledger's archive catalog, claims and synthesis tables.
// The index is a cache, so a deriver's rows are a function of git alone: a
// rebuild asks for every row at HEAD, a catch-up for the rows that one tree diff
// changes. Both run under the indexer's catch-up lock, in the batch that records
// the commit the index reflects, so rows and notes never disagree about HEAD.
type deriver interface {
	// AllRows yields every row of the deriver's tables at head (a rebuild drops
	// every row it is not given).
	AllRows(ctx context.Context, v *repo.Vault, head repo.CommitID, files []repo.File) iter.Seq2[graph.Row, error]
	// ChangedRows returns the rows to put or delete (Row.Delete) when the index
	// moves from commit from to commit to, whose tree diff is changes.
	ChangedRows(ctx context.Context, v *repo.Vault, from, to repo.CommitID, changes []repo.FileChange) ([]graph.Row, error)
}

// derivers are the derived tables every index keeps. Each ledger table adds its
// deriver here.
func derivers() []deriver {
	return []deriver{
		synthesisDeriver{}, // synthesis.go
		archiveDeriver{},   // archive.go
		claimDeriver{},     // claims.go
	}
}

// withRows appends the derivers' rows at head to a rebuild's records.
func (x *Indexer) withRows(ctx context.Context, head repo.CommitID, files []repo.File, docs iter.Seq2[graph.Record, error]) iter.Seq2[graph.Record, error] {
	return func(yield func(graph.Record, error) bool) {
		for r, err := range docs {
			if !yield(r, err) {
				return
			}
		}
		for _, d := range x.derivers {
			for row, err := range d.AllRows(ctx, x.vault, head, files) {
				if !yield(row, err) {
					return
				}
			}
		}
	}
}

// changedRows appends the derivers' rows for one catch-up to b.
func (x *Indexer) changedRows(ctx context.Context, b *graph.Batch, from, to repo.CommitID, changes []repo.FileChange) error {
	for _, d := range x.derivers {
		rows, err := d.ChangedRows(ctx, x.vault, from, to, changes)
		if err != nil {
			return err
		}
		for _, r := range rows {
			b.Records = append(b.Records, r)
		}
	}
	return nil
}
