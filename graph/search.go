package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/note"
)

// SearchOptions narrow and page a search.
type SearchOptions struct {
	// Limit is the most hits returned (default 10, at most 1000); Offset skips that
	// many ranked hits first.
	Limit  int
	Offset int
	// Folder restricts results to notes under this folder (as folder:x does).
	Folder string
	// Literal takes the query as plain words: no phrases, exclusions, filters or
	// OR. For natural-language questions pasted as they are.
	Literal bool
	// MaxScanDocs and MaxScanBytes bound Scan (defaults 20,000 docs and 64 MiB);
	// Search ignores them.
	MaxScanDocs  int
	MaxScanBytes int64
	// NoSnippets leaves out what is read from each hit's stored text: Line,
	// Snippet, Section, Chunks and Inbound stay empty. The hits, their order,
	// scores and Matched are the same: for callers that want ids. Scan ignores it.
	NoSnippets bool
	// HidePrivate answers as if the private docs (Doc.Private) were not there:
	// they match nothing, and every statistic ranking uses (the number of docs,
	// document frequencies, mean field lengths, prefix expansions, feedback) and
	// Total are the public docs' alone. Scan skips them before its bounds count.
	HidePrivate bool
}

// Results are one page of hits.
type Results struct {
	Hits []Hit
	// Total is the number of notes that matched (public ones under HidePrivate).
	Total int
	// Engine says what produced the results: "bm25f" (Search) or "scan" (Scan).
	Engine string
	// Commit is the commit the index answered at (Search; "" from Scan).
	Commit string
	// ScannedDocs and ScannedBytes say how much Scan read; Truncated is true when it
	// stopped at a bound before reading every doc (Total then counts only what it read).
	ScannedDocs  int
	ScannedBytes int64
	Truncated    bool
}

// Hit is one matching note.
type Hit struct {
	Path     note.Path
	Title    string
	Revision string
	Score    float64
	// Line (1-based), Snippet and Section are those of the best chunk: the heading
	// section that matches the query best (Section is its heading text, "" before
	// the first heading). Matched words are marked «like this» in the snippet.
	Line    int
	Snippet string
	Section string
	// Matched lists the query words and phrases found in the note, in query order.
	Matched []string
	// Chunks are the best heading sections, best first (Options.ChunksPerFile).
	Chunks []Chunk
	// Private is the doc's Doc.Private, as the index holds it: a caller that
	// hands hits on (a reranker) keeps private ones home.
	Private bool
	// Inbound is set when the inbound field — what other notes say where they
	// link to this one — added to the score: the linking line that holds the
	// most query words, and the note it is in.
	Inbound *InboundLine
}

// InboundLine is a line of another note that links to a hit.
type InboundLine struct {
	From note.Path
	Text string
}

// Chunk is one heading section of a hit.
type Chunk struct {
	Section string
	Line    int
	Snippet string
	Score   float64
}

// DefaultLimit and MaxLimit bound SearchOptions.Limit: 0 means DefaultLimit, and
// more than MaxLimit means MaxLimit.
const (
	DefaultLimit = 10
	MaxLimit     = 1000
)

const (
	defaultLimit = DefaultLimit
	maxLimit     = MaxLimit
	// maxExpansions caps how many distinct terms a prefix word expands to.
	maxExpansions = 256
	// MaxQueryBytes caps a query's length in bytes: twice the longest query of
	// the IR collections (CISI's, 2,023 bytes of prose).
	MaxQueryBytes = 4096
	// MaxQueryClauses caps a query's words, phrases and filters (OR not counted):
	// CISI's longest query has 334 words.
	MaxQueryClauses = 512
	// MaxQueryPhrases caps a query's phrases: each is matched on positions, the
	// costliest clause (16 phrases of common words and 496 prefix words, the
	// worst query within the caps, take 0.16 s on obsidian-hub;
	// BenchmarkSearch_Adversarial).
	MaxQueryPhrases = 16
	engineBM25F     = "bm25f"
	engineScan      = "scan"
)

// Search runs q (ParseQuery syntax, or plain words with o.Literal) and returns one
// page of ranked hits. A malformed query is an error matching ErrQuery; a query
// whose words are all stop words matches nothing.
func (ix *Index) Search(ctx context.Context, q string, o SearchOptions) (*Results, error) {
	query, err := parseFor(q, o)
	if err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return nil, ErrClosed
	}
	pl, err := newPlan(ix.an, query, o)
	if err != nil {
		return nil, err
	}
	s := ix.getScratch(len(ix.docs.docs))
	defer ix.scratch.Put(s)
	defer s.reset()
	se := searcher{ix: ix, dt: ix.docs, v: ix.docs.view(o.HidePrivate), pl: pl, s: s, ctx: ctx, w: ix.opts.Weights}
	res, err := se.run(o)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", q, err)
	}
	res.Commit = ix.commit
	return res, nil
}

// parseFor parses q as Search and Scan take it, within the query caps: at most
// MaxQueryBytes bytes, MaxQueryClauses clauses and MaxQueryPhrases phrases. A
// query over a cap is an error matching ErrQuery that names the cap and the size
// given.
func parseFor(q string, o SearchOptions) (*Query, error) {
	if len(q) > MaxQueryBytes {
		return nil, &QueryError{Query: q, Pos: MaxQueryBytes,
			Reason: fmt.Sprintf("the query is %d bytes, over the limit of %d: shorten it", len(q), MaxQueryBytes)}
	}
	var query *Query
	var err error
	if o.Literal {
		query, err = literalQuery(q)
	} else {
		query, err = ParseQuery(q)
	}
	if err != nil {
		return nil, err
	}
	phrases := 0
	for i, c := range query.Clauses {
		if i >= MaxQueryClauses {
			return nil, &QueryError{Query: q, Pos: c.Pos,
				Reason: fmt.Sprintf("the query has %d words, phrases and filters, over the limit of %d: shorten it", len(query.Clauses), MaxQueryClauses)}
		}
		if c.Kind == ClausePhrase {
			if phrases++; phrases > MaxQueryPhrases {
				return nil, &QueryError{Query: q, Pos: c.Pos,
					Reason: fmt.Sprintf("the query has more than %d phrases, the limit: use fewer quotes", MaxQueryPhrases)}
			}
		}
	}
	return query, nil
}

// literalQuery makes every space-separated word of q a bare word.
func literalQuery(q string) (*Query, error) {
	out := &Query{Text: q}
	pos := 0
	for _, f := range strings.Fields(q) {
		i := strings.Index(q[pos:], f)
		out.Clauses = append(out.Clauses, Clause{Kind: ClauseWord, Value: f, Pos: pos + i})
		pos += i + len(f)
	}
	if len(out.Clauses) == 0 {
		return nil, &QueryError{Query: q, Reason: "empty query"}
	}
	return out, nil
}

// plan is a query analysed for one index.
type plan struct {
	words   []wordPlan   // scored words, one per distinct term
	phrases []phrasePlan // scored phrases
	// required holds the groups of which every one must match; each group is
	// satisfied by any of its members. excluded members remove what they match.
	required [][]matcher
	excluded []matcher
	folder   string // SearchOptions.Folder
	labels   []string
	// orig is how many of words come from the query; feedback appends the rest.
	orig int
}

// wordPlan is one scored query term: its stem, whether its prefix expands, how
// often it occurs in the query and its label (bit in Matched).
type wordPlan struct {
	term   string
	prefix bool
	qtf    int
	boost  float64 // query weight factor (pseudo-relevance feedback); 0 means 1
	label  int
	idf    float64 // set by scoreWord
}

// phrasePlan is a sequence of terms at relative positions.
type phrasePlan struct {
	terms []string
	offs  []uint32
	label int
	meta  bool    // matched in fieldMeta (field filters) instead of the scored fields
	idf   float64 // set by scorePhrase
}

// matcher is one filter: a term, a phrase, a tag or a folder.
// prefixMinLen is the shortest term (in bytes, after stemming) that also matches
// the terms it is a prefix of.
const prefixMinLen = 4

type matcher struct {
	term   string // a term in any scored field (a required/excluded word)
	prefix bool   // term also matches the terms it is a prefix of (a bare word of 4+ characters, as scored)
	phrase *phrasePlan
	tag    string // "#tag" meta term
	folder string
}

// newPlan analyses q for one index: its scored words and phrases, its
// required groups and exclusions.
func newPlan(a *analyzer, q *Query, o SearchOptions) (*plan, error) {
	pl := &plan{folder: strings.Trim(o.Folder, "/")}
	b := planner{pl: pl, st: a.newStemmer(), labelOf: map[string]int{}, wordIdx: map[string]int{}}
	var group []matcher
	groupRequired := false
	flush := func() {
		if groupRequired && len(group) > 0 {
			pl.required = append(pl.required, group)
		}
		group, groupRequired = nil, false
	}
	for _, c := range q.Clauses {
		if !c.Or {
			flush()
		}
		m, ok, err := b.clause(q, c)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		switch {
		case c.Negated:
			pl.excluded = append(pl.excluded, m)
		default:
			group = append(group, m)
			groupRequired = groupRequired || c.Required
		}
	}
	flush()
	pl.orig = len(pl.words)
	if len(pl.labels) > 64 {
		// Matched is tracked in a 64-bit mask: later words still score but are not listed.
		pl.labels = pl.labels[:64]
	}
	return pl, nil
}

// planner builds a plan clause by clause.
type planner struct {
	pl      *plan
	st      *stemmer
	labelOf map[string]int // label text → index in pl.labels
	wordIdx map[string]int // term → index in pl.words
}

// label returns the index of label s, adding it on first use.
func (b *planner) label(s string) int {
	pl := b.pl
	if i, ok := b.labelOf[s]; ok {
		return i
	}
	b.labelOf[s] = len(pl.labels)
	pl.labels = append(pl.labels, s)
	return len(pl.labels) - 1
}

// addWord scores term t; prefix: it also matches the terms it begins (a bare
// word's does, a one-word phrase's does not).
func (b *planner) addWord(t string, lab int, prefix bool) {
	pl := b.pl
	prefix = prefix && len(t) >= prefixMinLen
	if i, ok := b.wordIdx[t]; ok {
		pl.words[i].qtf++
		pl.words[i].prefix = pl.words[i].prefix || prefix
		return
	}
	b.wordIdx[t] = len(pl.words)
	pl.words = append(pl.words, wordPlan{term: t, prefix: prefix, qtf: 1, label: lab})
}

// analyse returns the terms of s and their positions relative to the first.
func (b *planner) analyse(s string) (terms []string, offs []uint32) {
	words([]byte(s), func(w word) {
		if t := b.st.term(w.folded); t != "" {
			terms = append(terms, t)
			offs = append(offs, uint32(w.pos))
		}
	})
	if len(offs) > 0 {
		base := offs[0]
		for i := range offs {
			offs[i] -= base
		}
	}
	return terms, offs
}

// clause adds clause c's scored words and phrases to the plan and returns its
// matcher; ok is false when the clause has no terms (a stop word or
// punctuation) and matches nothing.
func (b *planner) clause(q *Query, c Clause) (m matcher, ok bool, err error) {
	scored := !c.Negated
	switch c.Kind {
	case ClauseWord:
		terms, offs := b.analyse(c.Value)
		if len(terms) == 0 {
			return m, false, nil // a stop word or punctuation
		}
		if scored {
			lab := b.label(c.Value)
			for _, t := range terms {
				b.addWord(t, lab, true)
			}
		}
		if len(terms) == 1 {
			m.term, m.prefix = terms[0], len(terms[0]) >= prefixMinLen
		} else {
			m.phrase = &phrasePlan{terms: terms, offs: offs, label: -1}
		}
	case ClausePhrase:
		terms, offs := b.analyse(c.Value)
		if len(terms) == 0 {
			return m, false, nil
		}
		pp := phrasePlan{terms: terms, offs: offs, label: -1}
		if scored {
			pp.label = b.label(`"` + c.Value + `"`)
			if len(terms) == 1 {
				b.addWord(terms[0], pp.label, false)
			} else {
				b.pl.phrases = append(b.pl.phrases, pp)
			}
		}
		if len(terms) == 1 {
			m.term = terms[0]
		} else {
			m.phrase = &pp
		}
	case ClauseTag:
		t := normTag(c.Value)
		if t == "" {
			return m, false, &QueryError{Query: q.Text, Pos: c.Pos, Reason: "tag has no name"}
		}
		m.tag = "#" + t
	case ClauseFolder:
		m.folder = c.Value
	case ClauseField:
		k := normKey(c.Key)
		terms, offs := b.analyse(c.Value)
		if k == "" || len(terms) == 0 {
			return m, false, &QueryError{Query: q.Text, Pos: c.Pos, Reason: "field value has no searchable words"}
		}
		for i := range terms {
			terms[i] = k + "=" + terms[i]
		}
		m.phrase = &phrasePlan{terms: terms, offs: offs, label: -1, meta: true}
	}
	return m, true, nil
}

// expansions counts the terms a prefix word expands to, in key order: a term
// counts at its first posting the search sees (under a view that hides private
// docs, a term only they hold is no expansion), and the word expands to at most
// maxExpansions of them.
type expansions struct {
	last    []byte
	n       int
	pending bool // last has not been counted yet
}

// next starts the blocks of term t (a term's blocks are consecutive).
func (e *expansions) next(t []byte) {
	if string(t) != string(e.last) {
		e.last = append(e.last[:0], t...)
		e.pending = true
	}
}

// count counts the current term at a posting the search sees; false: it is one
// too many, and the expansion ends before it.
func (e *expansions) count() bool {
	if e.pending {
		e.pending = false
		e.n++
	}
	return e.n <= maxExpansions
}
