package vault

import (
	"context"
	"slices"

	"github.com/norn-vault/norn/graph"
)

// Search answers r (Vault.Search) as the viewer sees the vault: a viewer that
// may not see private notes searches the public view (r.HidePrivate: private
// notes match nothing and weigh in no statistic, Total included), and a hit
// private under the current settings (a private folder, or a private tag) is
// dropped too (HitPrivate: the index judged privacy under the settings it was
// built with, until the maintainer has it rebuilt after they changed).
func (c *Viewer) Search(ctx context.Context, r SearchRequest) (*SearchResponse, error) {
	r.HidePrivate = !c.all
	resp, err := c.v.Search(ctx, r)
	if err != nil || c.all {
		return resp, err
	}
	n := len(resp.Hits)
	resp.Hits = slices.DeleteFunc(slices.Clone(resp.Hits), func(h graph.Hit) bool { return c.v.HitPrivate(ctx, c.cfg, h) })
	resp.Total -= n - len(resp.Hits)
	return resp, nil
}
