package graph

import (
	"github.com/norn-vault/norn/note"
)

// docTable is the in-memory table of indexed notes, by doc id: what ranking needs
// for every candidate (lengths, folder factor) and what a hit shows (path, title).
// It mirrors the s/d/ records and s/m/stats.
//
// Beside the collection statistics of every doc it keeps those of the public
// docs (not private), which a search that hides private docs ranks with, so that
// it answers exactly as an index without them would.
type docTable struct {
	docs    []docInfo
	byPath  map[note.Path]uint32
	stats   stats
	factors map[string]float64
	// pub are the statistics of the public docs (next unused), kept by set and
	// remove.
	pub stats
}

// docView is the collection one search ranks against: every doc, or only the public
// ones (hide). The table keeps raw field lengths only: a search works out the
// length norms of the postings it reads from them and the view's mean lengths
// (fieldNorm), so that a change costs O(changed docs), never a pass over every
// doc, whatever the view.
type docView struct {
	stats *stats
	hide  bool
}

// view returns the collection as a search sees it: without the private docs
// when hidePrivate.
func (t *docTable) view(hidePrivate bool) docView {
	if !hidePrivate {
		return docView{stats: &t.stats}
	}
	return docView{stats: &t.pub, hide: true}
}

// hides reports whether v treats doc d as absent (d < len(docs)).
func (v *docView) hides(t *docTable, d uint32) bool { return v.hide && t.docs[d].private }

type docInfo struct {
	path     note.Path
	title    string
	revision string
	lens     [numFields]uint32
	in       [2]uint32 // docRecord.in
	factor   float32   // folder factor
	live     bool
	private  bool
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

// set records a live doc, in place of the one at id if any (stats are the
// caller's business, the public statistics set's).
func (t *docTable) set(id uint32, r docRecord) {
	t.grow(id + 1)
	t.unpublish(id)
	if !r.private {
		t.pub.docs++
		for f := range t.pub.total {
			t.pub.total[f] += uint64(r.lens[f])
		}
		t.pub.in[0] += uint64(r.in[0]) // a public view holds no private lines
	}
	t.docs[id] = docInfo{
		path: r.path, title: r.title, revision: r.revision, lens: r.lens, in: r.in, live: true, private: r.private,
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
		t.unpublish(id)
		delete(t.byPath, t.docs[id].path)
		t.docs[id] = docInfo{}
	}
}

// unpublish takes the doc at id, if live and public, out of the public statistics.
func (t *docTable) unpublish(id uint32) {
	if d := &t.docs[id]; d.live && !d.private {
		t.pub.docs--
		for f := range t.pub.total {
			t.pub.total[f] -= uint64(d.lens[f])
		}
		t.pub.in[0] -= uint64(d.in[0])
	}
}

// avgLens returns the mean length of each field over the docs st counts (1 when
// unknown).
func avgLens(st *stats) [numFields]float64 {
	var avg [numFields]float64
	for f := range avg {
		avg[f] = 1
		if st.docs > 0 && st.total[f] > 0 {
			avg[f] = float64(st.total[f]) / float64(st.docs)
		}
	}
	return avg
}

// record returns the doc record of live doc id.
func (t *docTable) record(id uint32) docRecord {
	d := &t.docs[id]
	return docRecord{path: d.path, revision: d.revision, title: d.title, lens: d.lens, in: d.in, private: d.private}
}

// inLen returns the length of doc d's inbound field in view v: the lines from
// public notes only when v hides private notes, else all of them.
func (v *docView) inLen(t *docTable, d uint32) uint32 {
	if v.hide {
		return t.docs[d].in[0]
	}
	return t.docs[d].in[0] + t.docs[d].in[1]
}

// inAvg returns the mean length of the inbound field over the docs v counts (1
// when unknown).
func (v *docView) inAvg() float64 {
	tot := v.stats.in[0]
	if !v.hide {
		tot += v.stats.in[1]
	}
	if v.stats.docs == 0 || tot == 0 {
		return 1
	}
	return float64(tot) / float64(v.stats.docs)
}

// fieldNorm is a field's BM25F weight w divided by its length normalisation, for
// length b and the inverse inv of the field's mean length.
func fieldNorm(w, b, inv float64, length uint32) float32 {
	return float32(w / (1 - b + b*float64(length)*inv))
}
