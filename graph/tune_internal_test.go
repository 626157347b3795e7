package graph

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/bench/metric"
)

// TestTune sweeps ranking parameters over the tuning sets (Cranfield, CISI) and the
// known-item sets, printing one line per variant. It is a tool, not a check: it
// runs only with NORN_TUNE=1 (CACM is never tuned on: it is reported untouched).
// NORN_TUNE_SETS picks sets by name; NORN_TUNE_STUB=1 adds a copy of each IR set
// with half its docs cut to the title, as a vault's stub notes are;
// NORN_TUNE_SPEC lists variants ("fbdocs=0;k1=1.5,title=4").
func TestTune(t *testing.T) {
	if os.Getenv("NORN_TUNE") == "" {
		t.Skip("set NORN_TUNE=1 to sweep ranking parameters")
	}
	type set struct {
		name string
		ix   *Index
		qs   []irQuery
		q    metric.Qrels
		lim  int
	}
	var sets []set
	only := os.Getenv("NORN_TUNE_SETS")
	bopts := Options{}
	if os.Getenv("NORN_TUNE_STOP") == "nltk" {
		bopts.StopWords = nltkStop
	}
	for _, name := range []string{"ir-cranfield", "ir-cisi"} {
		if !selected(only, name) {
			continue
		}
		dir := filepath.Join(corporaDir, name)
		sets = append(sets, set{name, buildIndex(t, irDocs(t, dir), bopts), readQueries(t, filepath.Join(dir, "queries.jsonl")), readQrels(t, filepath.Join(dir, "qrels.tsv")), 100})
		if os.Getenv("NORN_TUNE_STUB") != "" {
			// Half the docs cut to their title, as a vault's stub notes are.
			stub := func(id string) bool {
				h := fnv.New32a()
				h.Write([]byte(id))
				return h.Sum32()%2 == 0
			}
			sets = append(sets, set{name + "-stub", buildIndex(t, irDocsStub(t, dir, stub), bopts), readQueries(t, filepath.Join(dir, "queries.jsonl")), readQrels(t, filepath.Join(dir, "qrels.tsv")), 100})
		}
	}
	for _, ki := range []struct{ name, corpus string }{{"obsidian-hub", "vault-obsidian-hub"}, {"cpp-docs", "md-cpp-docs"}} {
		if !selected(only, ki.name) {
			continue
		}
		docs := vaultDocs(t, filepath.Join(corporaDir, ki.corpus, "notes"), nil)
		qd := filepath.Join(benchDir, "queries")
		sets = append(sets, set{ki.name, buildIndex(t, docs, bopts), readQueries(t, filepath.Join(qd, ki.name+".queries.jsonl")), readQrels(t, filepath.Join(qd, ki.name+".qrels.tsv")), 10})
	}
	for _, v := range tuneVariants() {
		line := fmt.Sprintf("%-28s", v.name)
		for _, s := range sets {
			s.ix.opts.Weights = v.w
			run, _ := runQueries(t, s.ix, s.qs, s.lim)
			m := metric.Score(s.q, run, 10)
			if s.lim == 100 {
				line += fmt.Sprintf(" %s MAP %.4f nDCG %.4f |", s.name[3:], m.MAP, m.NDCG)
			} else {
				line += fmt.Sprintf(" %s MRR %.4f |", s.name, m.MRR)
			}
		}
		fmt.Println(line)
	}
}

type tuneVariant struct {
	name string
	w    Weights
}

func tuneVariants() []tuneVariant {
	d := DefaultWeights()
	vs := []tuneVariant{{"default", d}}
	add := func(name string, f func(w *Weights)) {
		w := d
		f(&w)
		vs = append(vs, tuneVariant{name, w})
	}
	spec := os.Getenv("NORN_TUNE_SPEC")
	if spec == "" {
		return vs
	}
	for _, item := range strings.Split(spec, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		add(item, func(w *Weights) { applySpec(w, item) })
	}
	return vs
}

// applySpec sets weights from "k1=1.5,title=4,titleb=0.3,prox=1,fbdocs=5,...".
func applySpec(w *Weights, spec string) {
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		var x float64
		fmt.Sscan(v, &x)
		switch k {
		case "k1":
			w.K1 = x
		case "prefix":
			w.Prefix = x
		case "fbdocs":
			w.FeedbackDocs = int(x)
		case "fbterms":
			w.FeedbackTerms = int(x)
		case "fb":
			w.Feedback = x
		case "prox":
			w.Proximity = x
		default:
			fields := map[string]*FieldWeight{"title": &w.Title, "aliases": &w.Aliases, "tags": &w.Tags, "headings": &w.Headings, "body": &w.Body, "path": &w.Path, "fm": &w.Frontmatter}
			name, isB := strings.CutSuffix(k, "b")
			if f, ok := fields[k]; ok {
				f.Weight = x
			} else if f, ok := fields[name]; ok && isB {
				f.B = x
			}
		}
	}
}

func selected(only, name string) bool {
	if only == "" {
		return true
	}
	for _, o := range strings.Split(only, ",") {
		if o != "" && strings.Contains(name, o) {
			return true
		}
	}
	return false
}

var nltkStop = strings.Fields(`i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now`)
