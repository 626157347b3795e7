package graph

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"

	"github.com/norn-vault/norn/note"
)

// covered reports whether one of the feedback docs matches (nearly) every query
// word: the query's vocabulary is the collection's, so there is no mismatch for
// feedback to bridge, and a near-verbatim query is better served as it is.
func (se *searcher) covered(cs []cand) bool {
	n := min(len(se.pl.labels), 64)
	if n == 0 {
		return true
	}
	best := 0
	for _, c := range cs[:min(len(cs), se.w.FeedbackDocs)] {
		best = max(best, bits.OnesCount64(se.s.mask[c.doc]))
	}
	return best >= n
}

// feedbackMinDocs is how many feedback docs must hold a term for it to expand the
// query (Terrier's expansion.mindocuments default): a word found in one doc only
// is that doc's, not the topic's, and a short note would otherwise lend every
// word of its few the largest shares.
const feedbackMinDocs = 2

// feedback expands the query with the terms most typical of the best docs
// (RM3-style pseudo-relevance feedback) and scores everything again.
func (se *searcher) feedback(cs []cand, allowed docSet) ([]cand, error) {
	top := cs[:min(len(cs), se.w.FeedbackDocs)]
	sum := 0.0
	for _, c := range top {
		sum += c.score
	}
	st := se.ix.an.newStemmer()
	prob := map[string]float64{}
	in := map[string]int{} // feedback docs holding the term
	used := 0
	for _, c := range top {
		tf := map[string]int{}
		n := 0
		err := se.withStoredText(c.doc, func(t *storedText) {
			words(t.raw[min(t.bodyStart, len(t.raw)):], func(w word) {
				if tm := st.term(w.folded); tm != "" && len(tm) > 2 && tm[0] > '9' {
					tf[tm]++
					n++
				}
			})
		})
		if err != nil {
			return nil, err
		}
		if n == 0 {
			continue
		}
		used++
		wd := c.score / sum
		for tm, k := range tf {
			prob[tm] += wd * float64(k) / float64(n)
			in[tm]++
		}
	}
	need := min(used, feedbackMinDocs)
	type tp struct {
		t string
		p float64
	}
	var tps []tp
	for t, p := range prob {
		if in[t] < need {
			continue
		}
		tps = append(tps, tp{t, p})
	}
	slices.SortFunc(tps, func(a, b tp) int {
		if c := cmp.Compare(b.p, a.p); c != 0 {
			return c
		}
		return strings.Compare(a.t, b.t)
	})
	tps = tps[:min(len(tps), se.w.FeedbackTerms)]
	tot := 0.0
	for _, x := range tps {
		tot += x.p
	}
	qlen := 0.0
	for _, w := range se.pl.words {
		qlen += float64(w.qtf)
	}
	lam := 1 - se.w.Feedback
	idx := map[string]int{}
	for i := range se.pl.words {
		se.pl.words[i].boost = lam
		idx[se.pl.words[i].term] = i
	}
	for _, x := range tps {
		extra := (1 - lam) * qlen * x.p / tot
		if i, ok := idx[x.t]; ok {
			w := &se.pl.words[i]
			w.boost = lam + extra/float64(w.qtf)
			continue
		}
		se.pl.words = append(se.pl.words, wordPlan{term: x.t, qtf: 1, boost: extra, label: -1})
	}
	se.s.resetScores()
	for i := range se.pl.words {
		if err := se.scoreWord(i); err != nil {
			return nil, err
		}
	}
	for i := range se.pl.phrases {
		if err := se.scorePhrase(&se.pl.phrases[i]); err != nil {
			return nil, err
		}
	}
	out := cs[:0]
	for _, d := range se.s.cands {
		if (allowed != nil && !allowed.has(d)) || !se.dt.docs[d].live {
			continue
		}
		out = append(out, cand{d, se.s.score[d] * float64(se.dt.docs[d].factor)})
	}
	return out, nil
}

// cand is a candidate hit.
type cand struct {
	doc   uint32
	score float64
}

// rank orders the best k of cs first (score descending, then path), leaving the
// rest unordered after them.
func (se *searcher) rank(cs []cand, k int) {
	less := func(a, b cand) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(string(se.dt.docs[a.doc].path), string(se.dt.docs[b.doc].path))
	}
	if k < len(cs) && len(cs) > 2*k+64 {
		selectTop(cs, k, less)
		cs = cs[:k]
	}
	slices.SortFunc(cs, less)
}

// selectTop moves the k smallest elements of cs under less to its front
// (quickselect, median-of-three pivots).
func selectTop(cs []cand, k int, less func(a, b cand) int) {
	lo, hi := 0, len(cs)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if less(cs[mid], cs[lo]) < 0 {
			cs[mid], cs[lo] = cs[lo], cs[mid]
		}
		if less(cs[hi], cs[lo]) < 0 {
			cs[hi], cs[lo] = cs[lo], cs[hi]
		}
		if less(cs[hi], cs[mid]) < 0 {
			cs[hi], cs[mid] = cs[mid], cs[hi]
		}
		pivot := cs[mid]
		i, j := lo, hi
		for i <= j {
			for less(cs[i], pivot) < 0 {
				i++
			}
			for less(pivot, cs[j]) < 0 {
				j--
			}
			if i <= j {
				cs[i], cs[j] = cs[j], cs[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// Proximity: the best proxDepth candidates get a bonus for pairs of distinct
// query words within proxWindow positions of each other in the body.
const (
	proxDepth  = 200
	proxWindow = 5
)

// proximity adds to each candidate's score Weights.Proximity times a BM25TP-style
// bonus: for each pair of words next to each other in the query, the sum of 1/d²
// over their occurrences at distance d ≤ proxWindow in the body, saturated like a
// term frequency and weighted by the rarer word's idf.
func (se *searcher) proximity(cs []cand) {
	ws := se.pl.words[:se.pl.orig]
	k1 := se.w.K1
	b := se.fb[fieldBody]
	ps := make([][]uint32, len(ws))
	for i := range cs {
		d := cs[i].doc
		for ti := range ws {
			ps[ti] = se.tracked[ti].bodyPositions(se.s.arena, ps[ti][:0], d)
		}
		bonus := 0.0
		var kk float64
		for x := 0; x+1 < len(ws); x++ {
			a := pairProximity(ps[x], ps[x+1])
			if a == 0 {
				continue
			}
			if kk == 0 {
				lens := &se.dt.docs[d].lens
				kk = k1 * (1 - b + b*float64(lens[fieldBody])*se.invAvg[fieldBody])
			}
			bonus += min(ws[x].idf, ws[x+1].idf) * (k1 + 1) * a / (kk + a)
		}
		cs[i].score += se.w.Proximity * bonus * float64(se.dt.docs[d].factor)
	}
}

// pairProximity sums 1/d² over the pairs of positions of xs and ys (both sorted)
// at distance 1 ≤ d ≤ proxWindow.
func pairProximity(xs, ys []uint32) float64 {
	if len(xs) == 0 || len(ys) == 0 {
		return 0
	}
	acc := 0.0
	j := 0
	for _, x := range xs {
		lo := uint32(0)
		if x > proxWindow {
			lo = x - proxWindow
		}
		for j < len(ys) && ys[j] < lo {
			j++
		}
		for k := j; k < len(ys) && ys[k] <= x+proxWindow; k++ {
			if ys[k] == x {
				continue
			}
			d := float64(int64(ys[k]) - int64(x))
			acc += 1 / (d * d)
		}
	}
	return acc
}

// folderOf returns the folder of a path ("" at the root).
func folderOf(p note.Path) string {
	if i := strings.LastIndexByte(string(p), '/'); i >= 0 {
		return string(p[:i])
	}
	return ""
}

// diversify keeps order but moves, for each folder, the hits after its first
// cap to the end (in their order), so one folder cannot fill a page.
func diversify(order []uint32, limit int, folder func(uint32) string) []uint32 {
	seen := map[string]int{}
	out := make([]uint32, 0, len(order))
	var rest []uint32
	for _, d := range order {
		f := folder(d)
		if seen[f] < limit {
			seen[f]++
			out = append(out, d)
		} else {
			rest = append(rest, d)
		}
	}
	return append(out, rest...)
}
