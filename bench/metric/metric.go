package metric

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Qrels maps a query id to its judged documents (ids or paths) and their grades.
type Qrels map[string]map[string]int

// ParseQrels reads "query_id doc grade" lines, tab-separated, else separated by
// white space, as eval.py does; lines with fewer than three fields are skipped.
func ParseQrels(b []byte) (Qrels, error) {
	q := Qrels{}
	for n, line := range strings.Split(string(b), "\n") {
		var parts []string
		if strings.Contains(line, "\t") {
			parts = strings.Split(strings.TrimRight(line, "\r"), "\t")
		} else {
			parts = strings.Fields(line)
		}
		if len(parts) < 3 {
			continue
		}
		grade, err := strconv.Atoi(strings.TrimSpace(parts[2]))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		if q[parts[0]] == nil {
			q[parts[0]] = map[string]int{}
		}
		q[parts[0]][parts[1]] = grade
	}
	return q, nil
}

// Scores are a run's measures averaged over the judged queries, rounded to four
// places. K is the cut-off of NDCG, MRR, P and RecallK.
type Scores struct {
	Queries int // judged queries (those with at least one judgement)
	K       int
	MAP     float64
	NDCG    float64 // nDCG@K
	MRR     float64 // MRR@K
	P       float64 // precision@K
	Top1    float64 // share of queries whose first result is relevant
	Recall1 float64 // recall@1
	RecallK float64 // recall@K
	R100    float64 // recall@100
}

// Score scores a run (query id → result paths in rank order) as eval.py's score
// does: over the queries with judgements; a judged document counts as relevant
// whatever its grade; documents are compared by path when the qrels name paths (a
// "/" or ".md"; leading "." and "/" of results dropped), else by Stem. MRR@k is the
// reciprocal rank of the first relevant result in the top k; nDCG@k gains
// 2^grade−1 at rank i discounted by log2(i+1), over the ideal ordering of the
// judged grades; recall@n the relevant results in the top n over the number judged;
// MAP the mean over relevant results of the precision at their rank, over the
// number judged. Queries are summed in id order, so a score does not depend on
// map order.
func Score(q Qrels, run map[string][]string, k int) Scores {
	key := keyFunc(q)
	s := Scores{K: k}
	for _, qid := range slices.Sorted(maps.Keys(q)) {
		rel := q[qid]
		if len(rel) == 0 {
			continue
		}
		s.Queries++
		docs := make([]string, 0, len(run[qid]))
		for _, r := range run[qid] {
			docs = append(docs, key(r))
		}
		hits, ap, rr, dcg := 0, 0.0, 0.0, 0.0
		for i, d := range docs {
			g, ok := rel[d]
			if !ok {
				continue
			}
			hits++
			ap += float64(hits) / float64(i+1)
			if i < k {
				if rr == 0 {
					rr = 1 / float64(i+1)
				}
				dcg += gain(i, g)
			}
		}
		s.MAP += ap / float64(len(rel))
		s.MRR += rr
		if idcg := idealDCG(rel, k); idcg > 0 {
			s.NDCG += dcg / idcg
		}
		s.P += float64(relevantIn(docs, rel, k)) / float64(k)
		if len(docs) > 0 {
			if _, ok := rel[docs[0]]; ok {
				s.Top1++
			}
		}
		s.Recall1 += float64(relevantIn(docs, rel, 1)) / float64(len(rel))
		s.RecallK += float64(relevantIn(docs, rel, k)) / float64(len(rel))
		s.R100 += float64(relevantIn(docs, rel, 100)) / float64(len(rel))
	}
	if s.Queries > 0 {
		n := float64(s.Queries)
		for _, v := range []*float64{&s.MAP, &s.NDCG, &s.MRR, &s.P, &s.Top1, &s.Recall1, &s.RecallK, &s.R100} {
			*v = Round(*v/n, 4)
		}
	}
	return s
}

// keyFunc is how results are compared with q's documents: by path when q names
// paths, else by Stem.
func keyFunc(q Qrels) func(string) string {
	for _, rel := range q {
		for d := range rel {
			if strings.Contains(d, "/") || strings.HasSuffix(d, ".md") {
				return func(p string) string { return strings.TrimLeft(p, "./") }
			}
		}
	}
	return Stem
}

// gain is nDCG's discounted gain of a grade-g document at 0-based rank i.
func gain(i, g int) float64 {
	return (math.Exp2(float64(g)) - 1) / math.Log2(float64(i+2))
}

// idealDCG is the DCG@k of rel's grades in the best order.
func idealDCG(rel map[string]int, k int) float64 {
	grades := make([]int, 0, len(rel))
	for _, g := range rel {
		grades = append(grades, g)
	}
	slices.SortFunc(grades, func(a, b int) int { return b - a })
	idcg := 0.0
	for i, g := range grades[:min(k, len(grades))] {
		idcg += gain(i, g)
	}
	return idcg
}

// relevantIn counts the relevant documents among the first n of docs.
func relevantIn(docs []string, rel map[string]int, n int) int {
	hits := 0
	for _, d := range docs[:min(n, len(docs))] {
		if _, ok := rel[d]; ok {
			hits++
		}
	}
	return hits
}

// Stem is Python's os.path.splitext(os.path.basename(p))[0], the doc id eval.py
// compares by: leading dots are not an extension (".hidden" stays ".hidden").
func Stem(p string) string {
	base := p[strings.LastIndex(p, "/")+1:]
	lead := len(base) - len(strings.TrimLeft(base, "."))
	if i := strings.LastIndex(base[lead:], "."); i >= 0 {
		return base[:lead+i]
	}
	return base
}

// Round rounds f to places decimal places.
func Round(f float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(f*p) / p
}
