package config

import (
	"math"

	"go.yaml.in/yaml/v3"
)

// MaxChunksPerFile is the largest value search.chunks_per_file accepts.
const MaxChunksPerFile = 1000

// Search is the `search:` section: BM25F ranking settings (package graph).
type Search struct {
	// Weights are the per-field BM25F weights. Keys left out keep their defaults.
	Weights Weights `yaml:"weights"`
	// FolderFactors multiply the score of hits under a folder prefix (with a trailing
	// slash), e.g. {"generated/": 0.5}; the longest matching prefix wins. Each factor
	// is ≥ 0. Default: none.
	FolderFactors map[string]float64 `yaml:"folder_factors"`
	// DiversityCap is the most hits one folder may have in a result page; 0 (the
	// default) turns the cap off.
	DiversityCap int `yaml:"diversity_cap"`
	// StopWords are dropped from queries and postings. Default: a small English list.
	// An empty list keeps every word.
	StopWords []string `yaml:"stop_words"`
	// ChunksPerFile is how many hits one note may contribute to a result page.
	// Default 1.
	ChunksPerFile int `yaml:"chunks_per_file"`
	// Prefix scales the score of a query word's prefix matches (words of 4+
	// characters) against its exact matches, 0 to 1; 0 turns prefix matching off.
	// Default 0.2.
	Prefix float64 `yaml:"prefix"`
	// Proximity weighs the bonus for query words found near each other in a note,
	// 0 to 100; 0 turns it off. Default 0.5.
	Proximity float64 `yaml:"proximity"`
	// Feedback is pseudo-relevance feedback (query expansion).
	Feedback Feedback `yaml:"feedback"`
	// Inbound is the inbound field: what other notes say where they link to a
	// note (the lines around their links, their typed edges' why).
	Inbound Inbound `yaml:"inbound"`
}

// Inbound configures the inbound field's BM25F weight (≥ 0; 0 turns the field
// off, the default: see docs/search.md) and length normalisation b (0 to 1, default 0.5). Weight 1 is what was measured.
type Inbound struct {
	Weight float64 `yaml:"weight"`
	B      float64 `yaml:"b"`
}

// Feedback configures pseudo-relevance feedback: when none of the Docs best notes
// contains every query word, the query is expanded with the Terms words most
// typical of those notes and run again; Weight is the expansion's share of the new
// query. Docs 0 turns feedback off.
type Feedback struct {
	Docs   int     `yaml:"docs"`   // 0 to 50, default 5
	Terms  int     `yaml:"terms"`  // 1 to 100, default 20
	Weight float64 `yaml:"weight"` // 0 to 1, default 0.5
}

// Weights are BM25F field weights, each a finite number ≥ 0; at least one must be
// positive.
type Weights struct {
	Title       float64 `yaml:"title"`
	Aliases     float64 `yaml:"aliases"`
	Tags        float64 `yaml:"tags"`
	Headings    float64 `yaml:"headings"`
	Body        float64 `yaml:"body"`
	Path        float64 `yaml:"path"`
	Frontmatter float64 `yaml:"frontmatter"`
}

func defaultSearch() Search {
	return Search{
		Weights: Weights{
			Title: 6, Aliases: 3, Tags: 3, Headings: 2, Body: 1, Path: 0.5, Frontmatter: 1,
		},
		FolderFactors: map[string]float64{},
		StopWords: []string{
			// graph.DefaultStopWords, the list the ranking is measured with (a test in
			// package vault holds the two equal).
			"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has",
			"have", "how", "i", "if", "in", "into", "is", "it", "its", "of", "on", "or",
			"such", "that", "the", "their", "then", "there", "these", "they", "this", "to",
			"was", "were", "what", "when", "where", "which", "who", "will", "with",
		},
		ChunksPerFile: 1,
		Prefix:        0.2,
		Proximity:     0.5,
		Feedback:      Feedback{Docs: 5, Terms: 20, Weight: 0.5},
		Inbound:       Inbound{Weight: 0, B: 0.5},
	}
}

func (s *Search) decode(d *decoder, n *yaml.Node, key string) {
	known := []string{"weights", "folder_factors", "diversity_cap", "stop_words", "chunks_per_file", "prefix", "proximity", "feedback", "inbound"}
	d.mapping(n, key, known, func(k, full string, v *yaml.Node) {
		switch k {
		case "weights":
			s.Weights.decode(d, v, full)
		case "folder_factors":
			s.decodeFactors(d, v, full)
		case "diversity_cap":
			d.integer(v, full, 0, math.MaxInt32, &s.DiversityCap)
		case "stop_words":
			d.strs(v, full, &s.StopWords, word)
		case "chunks_per_file":
			d.integer(v, full, 1, MaxChunksPerFile, &s.ChunksPerFile)
		case "prefix":
			d.number(v, full, 0, 1, &s.Prefix)
		case "proximity":
			d.number(v, full, 0, 100, &s.Proximity)
		case "feedback":
			s.Feedback.decode(d, v, full)
		case "inbound":
			s.Inbound.decode(d, v, full)
		}
	})
}

func (in *Inbound) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, []string{"weight", "b"}, func(k, full string, v *yaml.Node) {
		switch k {
		case "weight":
			d.number(v, full, 0, 1e6, &in.Weight)
		case "b":
			d.number(v, full, 0, 1, &in.B)
		}
	})
}

func (f *Feedback) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, []string{"docs", "terms", "weight"}, func(k, full string, v *yaml.Node) {
		switch k {
		case "docs":
			d.integer(v, full, 0, 50, &f.Docs)
		case "terms":
			d.integer(v, full, 1, 100, &f.Terms)
		case "weight":
			d.number(v, full, 0, 1, &f.Weight)
		}
	})
}

func (s *Search) decodeFactors(d *decoder, n *yaml.Node, key string) {
	if !d.usable(n, key) {
		return
	}
	before := len(d.errs)
	out := map[string]float64{}
	d.mapping(n, key, nil, func(k, full string, v *yaml.Node) {
		f, msg := folder(k)
		if msg != "" {
			d.errorf(v, full, "%s", msg)
			return
		}
		if _, dup := out[f]; dup {
			d.errorf(v, full, "folder %q is listed twice (with and without the trailing slash); keep one", f)
			return
		}
		factor, mark := math.NaN(), len(d.errs)
		d.number(v, full, 0, math.MaxFloat64, &factor)
		if !math.IsNaN(factor) {
			out[f] = factor
		} else if len(d.errs) == mark {
			d.errorf(v, full, "want a number ≥ 0, e.g. 0.5")
		}
	})
	if len(d.errs) == before {
		s.FolderFactors = out
	}
}

func (w *Weights) decode(d *decoder, n *yaml.Node, key string) {
	fields := []string{"title", "aliases", "tags", "headings", "body", "path", "frontmatter"}
	d.mapping(n, key, fields, func(k, full string, v *yaml.Node) {
		dst := map[string]*float64{
			"title": &w.Title, "aliases": &w.Aliases, "tags": &w.Tags, "headings": &w.Headings,
			"body": &w.Body, "path": &w.Path, "frontmatter": &w.Frontmatter,
		}[k]
		d.number(v, full, 0, 1e6, dst)
	})
	if w.Title+w.Aliases+w.Tags+w.Headings+w.Body+w.Path+w.Frontmatter == 0 {
		d.errorf(n, key, "at least one weight must be positive")
	}
}
