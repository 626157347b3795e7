package vault_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// claimBenchVault is a vault of notes notes and claims claims about claims/5
// subjects (property owner, scope prod), each read from one of the notes: per
// subject a chain of three, then a fourth claim by another agent agreeing with
// the third, then a fifth superseding the fourth (two live claims that agree).
// Every 10th note is edited after, so a tenth of the claims are stale.
func claimBenchVault(b *testing.B, notes, claims int) *vault.Vault {
	ctx := context.Background()
	dir := b.TempDir()
	owner := repo.Author{Name: "o", Email: "o@x"}
	rv, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Owner: owner}})
	if err != nil {
		b.Fatal(err)
	}
	var tx repo.Tx
	tx.Author, tx.Op = owner, repo.OpWrite
	for i := range notes {
		tx.Changes = append(tx.Changes, repo.Change{Kind: repo.Put, Path: benchNote(i), Content: fmt.Appendf(nil, "# Service %d\n\nOwned by team %d.\n", i, i%50)})
	}
	if _, err := rv.Apply(ctx, tx); err != nil {
		b.Fatal(err)
	}
	subjects := claims / 5
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	prev := make([]ledger.ClaimID, subjects)
	const batch = 10000
	for start := 0; start < claims; start += batch {
		tx := repo.Tx{Author: repo.Author{Name: "agent", Email: "a@x"}, Op: repo.OpClaim}
		for j := start; j < min(start+batch, claims); j++ {
			s, step := j%subjects, j/subjects
			src := benchNote(j % notes)
			c := ledger.Claim{Kind: ledger.KindAssertion, Subject: fmt.Sprintf("svc-%d", s),
				Property: "owner", Scope: "prod", Value: fmt.Sprintf("team-%d", min(step, 2)),
				Source:     ledger.Source{Path: src, Revision: rv.Revision(src)},
				AssertedBy: tx.Author, AssertedAt: at.Add(time.Duration(j) * time.Second)}
			if step != 3 {
				c.Supersedes = prev[s]
			}
			if step == 4 {
				c.Supersedes = prev[s] // the fourth: live beside the third, same value
			}
			c.ID = ledger.NewClaimID(&c)
			prev[s] = c.ID
			enc, err := ledger.EncodeClaim(&c)
			if err != nil {
				b.Fatal(err)
			}
			tx.Changes = append(tx.Changes, repo.Change{Kind: repo.Put, Path: ledger.ClaimPath(c.ID), Content: enc})
		}
		if _, err := rv.Apply(ctx, tx); err != nil {
			b.Fatal(err)
		}
	}
	tx = repo.Tx{Author: owner, Op: repo.OpWrite}
	for i := 0; i < notes; i += 10 {
		p := benchNote(i)
		tx.Changes = append(tx.Changes, repo.Change{Kind: repo.Put, Path: p, Content: fmt.Appendf(nil, "# Service %d\n\nOwned by team %d.\nEdited.\n", i, i%50), ExpectedRevision: rv.Revision(p)})
	}
	if _, err := rv.Apply(ctx, tx); err != nil {
		b.Fatal(err)
	}
	rv.Close()
	v, err := vault.Open(ctx, dir, vault.Options{Repo: repo.Options{Owner: owner}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}

func benchNote(i int) note.Path { return note.Path(fmt.Sprintf("svc/%02d/s%05d.md", i%100, i)) }

// BenchmarkVault_ClaimValue measures claim_value (Viewer.ClaimValue: the claims
// tables read, the chain resolved, each live source's revision checked) at
// HEAD, for a viewer that sees everything and one that does not (every source
// checked against the privacy rule), and read_note's claims of a note
// (NoteClaims). p50-ms is the median of the calls.
func BenchmarkVault_ClaimValue(b *testing.B) {
	for _, size := range []struct{ notes, claims int }{{1000, 10000}, {10000, 100000}} {
		b.Run(fmt.Sprintf("notes=%d/claims=%d", size.notes, size.claims), func(b *testing.B) {
			v := claimBenchVault(b, size.notes, size.claims)
			ctx := context.Background()
			subjects := size.claims / 5
			for _, who := range []struct {
				name string
				a    vault.Actor
			}{{"owner", owner}, {"agent", agentA}} {
				b.Run("value/"+who.name, func(b *testing.B) {
					b.ReportAllocs()
					var took []time.Duration
					i := 0
					for b.Loop() {
						start := time.Now()
						vw, err := v.Viewer(ctx, who.a)
						if err != nil {
							b.Fatal(err)
						}
						ans, err := vw.ClaimValue(ctx, vault.ClaimQuery{Subject: fmt.Sprintf("svc-%d", i*7919%subjects), Property: "owner", Scope: "prod"})
						if err != nil || ans.Status == ledger.StatusUnknown {
							b.Fatalf("%v %+v", err, ans)
						}
						took = append(took, time.Since(start))
						i++
					}
					reportP50(b, took)
				})
			}
			b.Run("note-claims", func(b *testing.B) {
				b.ReportAllocs()
				var took []time.Duration
				i := 0
				for b.Loop() {
					start := time.Now()
					vw, _ := v.Viewer(ctx, agentA)
					cs, _, err := vw.NoteClaims(ctx, benchNote(i*7919%size.notes), vault.MaxNoteClaims)
					if err != nil {
						b.Fatal(err)
					}
					_ = cs
					took = append(took, time.Since(start))
					i++
				}
				reportP50(b, took)
			})
		})
	}
}

func reportP50(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}
