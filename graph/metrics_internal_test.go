package graph

import (
	"math"
	"path"
	"sort"
	"strings"
)

// metrics are eval.py's measures, averaged over the judged queries.
type metrics struct {
	MAP, NDCG10, MRR10, P10, Top1, R100 float64
	Queries                             int
}

// score is bench/eval.py's score(qrels, run, k=10), ported: a result maps to a
// doc id by its file stem unless the qrels name notes by path.
func score(q qrels, run map[string][]string) metrics {
	const k = 10
	byPath := false
	for _, rel := range q {
		for d := range rel {
			if strings.Contains(d, "/") || strings.HasSuffix(d, ".md") {
				byPath = true
			}
		}
	}
	key := func(p string) string {
		if byPath {
			return strings.TrimLeft(p, "./")
		}
		b := path.Base(p)
		return strings.TrimSuffix(b, path.Ext(b))
	}
	var m metrics
	ids := make([]string, 0, len(q))
	for id := range q {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, qid := range ids {
		rel := q[qid]
		if len(rel) == 0 {
			continue
		}
		m.Queries++
		var docs []string
		for _, r := range run[qid] {
			docs = append(docs, key(r))
		}
		hits, ap, rr := 0, 0.0, 0.0
		for i, d := range docs {
			if _, ok := rel[d]; ok {
				hits++
				ap += float64(hits) / float64(i+1)
				if rr == 0 && i < k {
					rr = 1 / float64(i+1)
				}
			}
		}
		m.MAP += ap / float64(len(rel))
		m.MRR10 += rr
		p := 0
		for _, d := range docs[:min(k, len(docs))] {
			if _, ok := rel[d]; ok {
				p++
			}
		}
		m.P10 += float64(p) / k
		if len(docs) > 0 {
			if _, ok := rel[docs[0]]; ok {
				m.Top1++
			}
		}
		r100 := 0
		for _, d := range docs[:min(100, len(docs))] {
			if _, ok := rel[d]; ok {
				r100++
			}
		}
		m.R100 += float64(r100) / float64(len(rel))
		dcg := 0.0
		for i, d := range docs[:min(k, len(docs))] {
			dcg += (math.Pow(2, float64(rel[d])) - 1) / math.Log2(float64(i+2))
		}
		var grades []int
		for _, g := range rel {
			grades = append(grades, g)
		}
		sort.Sort(sort.Reverse(sort.IntSlice(grades)))
		idcg := 0.0
		for i, g := range grades[:min(k, len(grades))] {
			idcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
		}
		if idcg > 0 {
			m.NDCG10 += dcg / idcg
		}
	}
	if m.Queries > 0 {
		n := float64(m.Queries)
		for _, v := range []*float64{&m.MAP, &m.NDCG10, &m.MRR10, &m.P10, &m.Top1, &m.R100} {
			*v = math.Round(*v/n*1e4) / 1e4
		}
	}
	return m
}
