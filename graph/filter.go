package graph

// docSet is a set of doc ids.
type docSet []uint64

func newDocSet(n int) docSet       { return make(docSet, (n+63)/64) }
func (s docSet) add(d uint32)      { s[d/64] |= 1 << (d % 64) }
func (s docSet) has(d uint32) bool { return int(d/64) < len(s) && s[d/64]&(1<<(d%64)) != 0 }
func (s docSet) and(o docSet) {
	for i := range s {
		s[i] &= o[i]
	}
}
func (s docSet) andNot(o docSet) {
	for i := range s {
		s[i] &^= o[i]
	}
}
func (s docSet) or(o docSet) {
	for i := range s {
		s[i] |= o[i]
	}
}
func (s docSet) fill(n int) docSet {
	for d := range n {
		s.add(uint32(d))
	}
	return s
}

// filter returns the docs allowed by the required groups, the exclusions and the
// folder option; nil means every doc.
func (se *searcher) filter() (docSet, error) {
	pl := se.pl
	if len(pl.required) == 0 && len(pl.excluded) == 0 && pl.folder == "" {
		return nil, nil
	}
	n := len(se.dt.docs)
	allowed := newDocSet(n).fill(n)
	if pl.folder != "" {
		allowed.and(se.match(matcher{folder: pl.folder}, n))
	}
	for _, g := range pl.required {
		u := newDocSet(n)
		for _, m := range g {
			ms, err := se.matchErr(m, n)
			if err != nil {
				return nil, err
			}
			u.or(ms)
		}
		allowed.and(u)
	}
	for _, m := range pl.excluded {
		ms, err := se.matchErr(m, n)
		if err != nil {
			return nil, err
		}
		allowed.andNot(ms)
	}
	return allowed, nil
}

func (se *searcher) match(m matcher, n int) docSet {
	s, _ := se.matchErr(m, n)
	return s
}

// matchErr returns the docs one matcher matches.
func (se *searcher) matchErr(m matcher, n int) (docSet, error) {
	s := newDocSet(n)
	switch {
	case m.folder != "":
		for d, info := range se.dt.docs {
			if info.live && inFolder(info.path, m.folder) && !se.v.hides(se.dt, uint32(d)) {
				s.add(uint32(d))
			}
		}
	case m.tag != "":
		err := se.eachPosting(m.tag, false, func(p *posting, _ []uint32) {
			if p.tf[fieldMeta] > 0 {
				s.add(p.doc)
			}
		})
		if err != nil {
			return nil, err
		}
	case m.term != "":
		err := se.eachPostingOf(m.term, m.prefix && se.w.Prefix > 0, nil, func(p *posting, _ []uint32) {
			if p.mask&^(1<<fieldMeta) != 0 {
				s.add(p.doc)
			}
		})
		if err != nil {
			return nil, err
		}
	case m.phrase != nil:
		hits, err := se.phraseDocs(m.phrase)
		if err != nil {
			return nil, err
		}
		for d := range hits {
			s.add(d)
		}
	}
	return s, nil
}
