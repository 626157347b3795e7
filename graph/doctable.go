package graph

import (
	"github.com/norn-vault/norn/note"
)

// docTable is the in-memory table of indexed notes, by doc id: what ranking needs
// for every candidate (lengths, folder factor) and what a hit shows (path, title).
// It mirrors the s/d/ records and s/m/stats.
type docTable struct {
	docs    []docInfo
	byPath  map[note.Path]uint32
	stats   stats
	factors map[string]float64
	// norm holds, per doc and scored field, the field's BM25F weight divided by
	// its length normalisation: a posting's pseudo term frequency is the sum of
	// tf × norm over its fields. Recomputed by refresh after every change.
	norm []float32
}

type docInfo struct {
	path     note.Path
	title    string
	revision string
	lens     [numFields]uint32
	factor   float32 // folder factor
	live     bool
}

func newDocTable(factors map[string]float64) *docTable {
	return &docTable{byPath: make(map[note.Path]uint32), factors: factors}
}

// grow makes room for ids below n.
func (t *docTable) grow(n uint32) {
	for uint32(len(t.docs)) < n {
		t.docs = append(t.docs, docInfo{})
	}
}

// set records a live doc (stats are the caller's business).
func (t *docTable) set(id uint32, r docRecord) {
	t.grow(id + 1)
	t.docs[id] = docInfo{
		path: r.path, title: r.title, revision: r.revision, lens: r.lens, live: true,
		factor: float32(folderFactor(t.factors, string(r.path))),
	}
	t.byPath[r.path] = id
}

// setFactors replaces the folder factors and recomputes every live doc's.
func (t *docTable) setFactors(ff map[string]float64) {
	t.factors = ff
	for i := range t.docs {
		if d := &t.docs[i]; d.live {
			d.factor = float32(folderFactor(ff, string(d.path)))
		}
	}
}

// remove forgets a doc.
func (t *docTable) remove(id uint32) {
	if int(id) < len(t.docs) && t.docs[id].live {
		delete(t.byPath, t.docs[id].path)
		t.docs[id] = docInfo{}
	}
}

// avgLens returns the mean length of each field over live docs (1 when unknown).
func (t *docTable) avgLens() [numFields]float64 {
	var avg [numFields]float64
	for f := range avg {
		avg[f] = 1
		if t.stats.docs > 0 && t.stats.total[f] > 0 {
			avg[f] = float64(t.stats.total[f]) / float64(t.stats.docs)
		}
	}
	return avg
}

// refresh recomputes norm from the lengths, the collection stats and w.
func (t *docTable) refresh(w *Weights) {
	avg := t.avgLens()
	var fw, fb, inv [numFields]float64
	for f := range fieldMeta {
		p := w.field(f)
		fw[f], fb[f], inv[f] = p.Weight, p.B, 1/avg[f]
	}
	n := len(t.docs) * int(fieldMeta)
	if cap(t.norm) < n {
		t.norm = make([]float32, n, n+n/8)
	}
	t.norm = t.norm[:n]
	for d := range t.docs {
		row := t.norm[d*int(fieldMeta) : (d+1)*int(fieldMeta)]
		lens := &t.docs[d].lens
		for f := range fieldMeta {
			row[f] = float32(fw[f] / (1 - fb[f] + fb[f]*float64(lens[f])*inv[f]))
		}
	}
}
