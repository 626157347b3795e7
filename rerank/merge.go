package rerank

import "slices"

// DefaultConfident is the model score from which Merge trusts the model.
const DefaultConfident = 0.7

// Merge returns cands (BM25 order) with the model's scores applied. Private
// candidates, and public ones not sent, keep their places; the sent public
// candidates are reordered among the slots they held: first those the model
// scored at least confident, best score first (ties in BM25 order), then the
// others in their BM25 order. So a model that is sure of nothing changes
// nothing, and a candidate moves up only on a confident score.
func Merge(cands []Candidate, sent []int, scores map[string]float64, confident float64) []Candidate {
	out := slices.Clone(cands)
	order := slices.Clone(sent) // indices into cands, BM25 order
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := scores[cands[a].ID], scores[cands[b].ID]
		ca, cb := sa >= confident, sb >= confident
		switch {
		case ca && cb:
			if sa > sb {
				return -1
			}
			if sa < sb {
				return 1
			}
			return 0
		case ca:
			return -1
		case cb:
			return 1
		}
		return 0
	})
	for i, slot := range sent {
		out[slot] = cands[order[i]]
	}
	return out
}
