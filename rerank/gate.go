package rerank

// DefaultThreshold is the gate's default score ratio (config rerank.threshold).
const DefaultThreshold = 0.9

// Gate decides from BM25's own numbers whether the top of a ranking is contested.
// It costs no allocation and well under a microsecond (BenchmarkGate).
//
// The rule, measured on the shared collections (docs/search-quality.md): the top
// is contested when the second score is at least Threshold × the first. The
// other signals tried (query length, the margin of the first over the tenth) did
// not separate wrong top-1s from right ones better than the ratio at a similar gate
// rate, so they are not part of the rule.
type Gate struct {
	// Threshold: contested when scores[1] ≥ Threshold × scores[0]; from 0 (always)
	// to 1 (only ties). Callers pass config.Rerank.Threshold (default 0.9).
	Threshold float64
}

// Decision is a Gate's verdict on one ranking.
type Decision struct {
	Contested bool
	// Ratio is the second score over the first (0 with fewer than two scores).
	Ratio float64
}

// Decide judges a ranking by its scores, best first. Fewer than two scores, or a
// first score that is not positive, is never contested: there is nothing to pick.
func (g Gate) Decide(scores []float64) Decision {
	if len(scores) < 2 || scores[0] <= 0 {
		return Decision{}
	}
	r := scores[1] / scores[0]
	return Decision{Contested: r >= g.Threshold, Ratio: r}
}
