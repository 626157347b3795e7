package graph

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// defaultRunBytes is about how much memory a rebuild's postings take before
// they spill to disk as a sorted run (postingRuns).
const defaultRunBytes = 16 << 20

// postingRuns collects a rebuild's postings with memory bounded by limit, the
// way an external sort does: postings are added in arrival order (doc ids rise
// for each term) and held until they take about limit bytes; then they are
// sorted by term (a counting sort, so each term's docs keep their order) and
// written to the spill file as one run. At the end, merge reads the runs back
// together, in term order, and cuts each term's postings into blocks exactly
// as a builder holding every posting in memory would.
//
// A run is, per term in increasing order: uvarint len(term), term, uvarint
// count, then per posting uvarint doc, uvarint len(head), uvarint len(pos),
// head, pos — the posting as add keeps it in memory.
type postingRuns struct {
	limit int
	spill *spillFile
	runs  []spillSpan

	slots map[string]int32 // term → slot in this run
	terms []string         // by slot
	count []int32          // postings by slot
	ps    []runPosting     // in arrival order
	arena []byte           // the postings of ps, encoded as in a run, one after another
	order []int32          // scratch: ps indexes sorted by term
	wbuf  []byte           // scratch: one term's header
}

// runPosting is one posting of the run being filled: it starts at arena[off]
// and ends where the next one starts.
type runPosting struct{ slot, off uint32 }

// runPostingSize estimates the memory a posting takes besides its bytes,
// runTermSize that of a term besides its text (slot, map entry, count).
const (
	runPostingSize = 8
	runTermSize    = 64
)

func newPostingRuns(spill *spillFile, limit int) *postingRuns {
	return &postingRuns{limit: max(1, limit), spill: spill, slots: make(map[string]int32, 1<<14)}
}

// add adds doc id's postings; ids come in increasing order for each term.
func (r *postingRuns) add(id uint32, entries []termEntry) {
	for _, e := range entries {
		slot, ok := r.slots[e.term]
		if !ok {
			slot = int32(len(r.terms))
			r.slots[e.term] = slot
			r.terms = append(r.terms, e.term)
			r.count = append(r.count, 0)
		}
		r.count[slot]++
		r.ps = append(r.ps, runPosting{slot: uint32(slot), off: uint32(len(r.arena))})
		r.arena = binary.AppendUvarint(r.arena, uint64(id))
		r.arena = binary.AppendUvarint(r.arena, uint64(len(e.head)))
		r.arena = binary.AppendUvarint(r.arena, uint64(len(e.pos)))
		r.arena = append(r.arena, e.head...)
		r.arena = append(r.arena, e.pos...)
	}
	if r.size() >= r.limit {
		r.flush()
	}
}

// size estimates the memory the run being filled holds.
func (r *postingRuns) size() int {
	return len(r.arena) + runPostingSize*len(r.ps) + runTermSize*len(r.terms)
}

// flush writes the run being filled to the spill file, sorted by term, and
// empties it (keeping its memory for the next run).
func (r *postingRuns) flush() {
	if len(r.ps) == 0 {
		return
	}
	// Rank the slots by term, then place every posting after those of the
	// terms before its own: start[rank] is where a term's postings begin.
	bySlot := make([]int32, len(r.terms))
	for i := range bySlot {
		bySlot[i] = int32(i)
	}
	slices.SortFunc(bySlot, func(a, b int32) int { return strings.Compare(r.terms[a], r.terms[b]) })
	start := make([]int32, len(r.terms)) // by slot
	n := int32(0)
	for _, s := range bySlot {
		start[s] = n
		n += r.count[s]
	}
	r.order = slices.Grow(r.order[:0], len(r.ps))[:len(r.ps)]
	for i := range r.ps {
		s := r.ps[i].slot
		r.order[start[s]] = int32(i)
		start[s]++
	}
	off0 := r.spill.off
	at := 0
	for _, s := range bySlot {
		term, cnt := r.terms[s], int(r.count[s])
		w := binary.AppendUvarint(r.wbuf[:0], uint64(len(term)))
		w = append(w, term...)
		w = binary.AppendUvarint(w, uint64(cnt))
		r.spill.write(w)
		r.wbuf = w
		for _, i := range r.order[at : at+cnt] {
			end := uint32(len(r.arena))
			if int(i)+1 < len(r.ps) {
				end = r.ps[i+1].off
			}
			r.spill.write(r.arena[r.ps[i].off:end])
		}
		at += cnt
	}
	r.runs = append(r.runs, spillSpan{off0, r.spill.off - off0})
	clear(r.slots)
	r.terms, r.count, r.ps, r.arena = r.terms[:0], r.count[:0], r.ps[:0], r.arena[:0]
}

// merge flushes what is left, then reads every run back in term order and
// calls emit with each posting block: key (termKey of its last doc, or
// lastBlock for a term's last block) and value, both valid only during the
// call. It returns the number of distinct terms.
func (r *postingRuns) merge(emit func(key, val []byte)) (int, error) {
	r.flush()
	s := r.spill
	if s.err == nil && s.w.Buffered() > 0 {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		return 0, s.err
	}
	r.slots, r.terms, r.count, r.ps, r.arena, r.order = nil, nil, nil, nil, nil, nil
	h := make(runHeap, 0, len(r.runs))
	for i, sp := range r.runs {
		rd := &runReader{idx: i, size: uint64(sp.n), r: bufio.NewReaderSize(io.NewSectionReader(s.f, sp.off, sp.n), 64<<10)}
		if rd.nextTerm() {
			h = append(h, rd)
		} else if rd.err != nil {
			return 0, rd.err
		}
	}
	h.init()
	var w blockWriter
	var key, val, term []byte
	nterms := 0
	for len(h) > 0 {
		term = append(term[:0], h[0].term...)
		ts := string(term)
		w.reset()
		for len(h) > 0 && bytes.Equal(h[0].term, term) {
			rd := h[0]
			for range rd.count {
				doc, head, pos, ok := rd.posting()
				if !ok {
					return 0, rd.err
				}
				if w.count == blockFill {
					key = termKey(key[:0], ts, w.last)
					val = w.value(val[:0])
					emit(key, val)
					w.reset()
				}
				w.add(doc, head, pos)
			}
			if rd.nextTerm() {
				h.fix()
			} else if rd.err != nil {
				return 0, rd.err
			} else {
				h.pop()
			}
		}
		key = termKey(key[:0], ts, lastBlock)
		val = w.value(val[:0])
		emit(key, val)
		nterms++
	}
	return nterms, nil
}

var errBadRun = errors.New("bad posting run")

// runReader reads one run back: the current term, its postings count, and
// then its postings one by one.
type runReader struct {
	idx   int
	size  uint64 // the run's bytes: no length read may claim more
	r     *bufio.Reader
	term  []byte
	count int
	buf   []byte
	err   error
}

// nextTerm reads the next term's header; false at the run's end or on an
// error (err set).
func (rd *runReader) nextTerm() bool {
	n, err := binary.ReadUvarint(rd.r)
	if err == io.EOF {
		return false
	}
	if err != nil {
		rd.err = fmt.Errorf("%w: %w", errBadRun, err)
		return false
	}
	if n > rd.size {
		rd.err = fmt.Errorf("%w: term length %d", errBadRun, n)
		return false
	}
	rd.term = slices.Grow(rd.term[:0], int(n))[:n]
	if _, err := io.ReadFull(rd.r, rd.term); err != nil {
		rd.err = fmt.Errorf("%w: %w", errBadRun, err)
		return false
	}
	c, err := binary.ReadUvarint(rd.r)
	if err != nil {
		rd.err = fmt.Errorf("%w: %w", errBadRun, err)
		return false
	}
	if c == 0 || c > rd.size {
		rd.err = fmt.Errorf("%w: %d postings", errBadRun, c)
		return false
	}
	rd.count = int(c)
	return true
}

// posting reads the current term's next posting; head and pos are valid until
// the next call.
func (rd *runReader) posting() (doc uint32, head, pos []byte, ok bool) {
	var v [3]uint64
	for i := range v {
		x, err := binary.ReadUvarint(rd.r)
		if err != nil {
			rd.err = fmt.Errorf("%w: %w", errBadRun, err)
			return 0, nil, nil, false
		}
		v[i] = x
	}
	if v[0] > uint64(lastBlock) || v[1] > rd.size || v[2] > rd.size || v[1]+v[2] > rd.size {
		rd.err = errBadRun
		return 0, nil, nil, false
	}
	n := int(v[1] + v[2])
	rd.buf = slices.Grow(rd.buf[:0], n)[:n]
	if _, err := io.ReadFull(rd.r, rd.buf); err != nil {
		rd.err = fmt.Errorf("%w: %w", errBadRun, err)
		return 0, nil, nil, false
	}
	return uint32(v[0]), rd.buf[:v[1]], rd.buf[v[1]:], true
}

// runHeap orders the runs by their current term, then by run (so a term's
// postings come in doc order).
type runHeap []*runReader

func (h runHeap) less(i, j int) bool {
	if c := bytes.Compare(h[i].term, h[j].term); c != 0 {
		return c < 0
	}
	return h[i].idx < h[j].idx
}

func (h runHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// fix restores the order after the top's term changed.
func (h runHeap) fix() { h.down(0) }

func (h *runHeap) pop() {
	old := *h
	n := len(old) - 1
	old[0] = old[n]
	old[n] = nil
	*h = old[:n]
	h.down(0)
}

func (h runHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
