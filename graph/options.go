package graph

import (
	"log/slog"
	"slices"
	"strings"
)

// Options configure an Index. The zero value is usable: every zero field takes
// its documented default.
type Options struct {
	// Logger receives pebble's messages (Info at Debug level) and the index's own;
	// nil discards them.
	Logger *slog.Logger
	// Weights are the ranking parameters; the zero value means DefaultWeights().
	Weights Weights
	// FolderFactors multiply the score of notes under a folder prefix
	// ("archive": 0.5, "templates/generated": 0.2); the longest matching prefix
	// applies. Prefixes are slash-separated folders, compared case-insensitively.
	FolderFactors map[string]float64
	// DiversityCap is the most hits one folder may take among the results before
	// the rest of that folder's hits move after every other folder's; 0 turns it off.
	DiversityCap int
	// StopWords replaces DefaultStopWords when non-nil (an empty slice: no stop
	// words). The index records the list: opening it with another list is ErrFormat.
	StopWords []string
	// ChunksPerFile is how many best-matching heading sections each hit reports in
	// Hit.Chunks (default 1).
	ChunksPerFile int
	// CacheSize is pebble's block cache in bytes (default 32 MiB).
	CacheSize int64
	// PrivateFolders are the private folders Doc.Private was judged under. The
	// index only records them (order and case do not matter): opening or
	// reconfiguring it with another list is ErrFormat, so that the private bits
	// are judged again by a rebuild.
	PrivateFolders []string
	// PrivateTags are the private tags Doc.Private was judged under, recorded
	// as PrivateFolders are: another list is ErrFormat (a rebuild judges the
	// bits again). Indexes without private tags keep their format record.
	PrivateTags []string
}

// Weights are the BM25F parameters: per field a weight and a length normalisation
// b (0: none, 1: full), one k1 for the saturation of the combined term frequency,
// and the factor applied to prefix matches.
type Weights struct {
	K1          float64
	Title       FieldWeight
	Aliases     FieldWeight
	Tags        FieldWeight
	Headings    FieldWeight
	Body        FieldWeight
	Path        FieldWeight
	Frontmatter FieldWeight
	// Inbound is the field of what other notes say where they link to the note:
	// the lines around their links and their typed edges' why (see inbound.go).
	// Weight 0 turns it off at query time (the index keeps it).
	Inbound FieldWeight
	// Prefix scales the score of a query word's prefix matches (terms that start
	// with the word's stem, for words of 4+ characters) against its exact matches;
	// 0 turns prefix matching off.
	Prefix float64
	// Proximity weighs the bonus the best 200 candidates get for pairs of query
	// words that are next to each other in the query and within 5 positions of
	// each other in the note's body; 0 turns it off.
	Proximity float64
	// Pseudo-relevance feedback (RM3): when none of the FeedbackDocs best notes
	// contains every query word, the query is expanded with the FeedbackTerms
	// terms most typical of those notes and run again. Feedback is the share of
	// the expansion in the new query (0..1). FeedbackDocs 0 turns it off.
	FeedbackDocs  int
	FeedbackTerms int
	Feedback      float64
}

// FieldWeight is one field's BM25F weight and length normalisation.
type FieldWeight struct {
	Weight float64
	B      float64
}

// DefaultWeights returns the ranking parameters tuned on the Cranfield and CISI
// collections under the constraint of the known-item sets (docs/search-quality.md).
func DefaultWeights() Weights {
	return Weights{
		K1:          1.2,
		Title:       FieldWeight{Weight: 6, B: 0.5},
		Aliases:     FieldWeight{Weight: 3, B: 0.5},
		Tags:        FieldWeight{Weight: 3, B: 0.3},
		Headings:    FieldWeight{Weight: 2, B: 0.5},
		Body:        FieldWeight{Weight: 1, B: 0.75},
		Path:        FieldWeight{Weight: 0.5, B: 0.3},
		Frontmatter: FieldWeight{Weight: 1, B: 0.5},
		Inbound:     FieldWeight{Weight: 1, B: 0.5}, // docs/search-quality.md
		Prefix:      0.2,
		Proximity:   0.5,

		FeedbackDocs:  5,
		FeedbackTerms: 20,
		Feedback:      0.5,
	}
}

// field returns the parameters of f.
func (w *Weights) field(f field) FieldWeight {
	switch f {
	case fieldTitle:
		return w.Title
	case fieldAliases:
		return w.Aliases
	case fieldTags:
		return w.Tags
	case fieldHeadings:
		return w.Headings
	case fieldBody:
		return w.Body
	case fieldPath:
		return w.Path
	case fieldFrontmatter:
		return w.Frontmatter
	}
	return FieldWeight{}
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Weights == (Weights{}) {
		o.Weights = DefaultWeights()
	}
	if o.StopWords == nil {
		o.StopWords = DefaultStopWords
	}
	if o.ChunksPerFile <= 0 {
		o.ChunksPerFile = 1
	}
	if o.CacheSize <= 0 {
		o.CacheSize = 32 << 20
	}
	if o.DiversityCap < 0 {
		o.DiversityCap = 0
	}
	ff := make(map[string]float64, len(o.FolderFactors))
	for k, v := range o.FolderFactors {
		if k = strings.ToLower(strings.Trim(k, "/")); k != "" {
			ff[k] = v
		}
	}
	o.FolderFactors = ff
	return o
}

// privacyFingerprint identifies the private folders and tags the private bits
// were judged under (Options.PrivateFolders, PrivateTags; order and case aside).
// Without tags it is what it was before tags existed, so such an index keeps its
// format record.
func privacyFingerprint(folders, tags []string) string {
	fp := ";private=" + normalList(folders)
	if len(tags) > 0 {
		fp += ";privatetags=" + normalList(tags)
	}
	return fp
}

// normalList is list lowercased, sorted and without repeats, joined by NUL.
func normalList(list []string) string {
	out := make([]string, len(list))
	for i, f := range list {
		out[i] = strings.ToLower(f)
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), "\x00")
}

// folderFactor returns the factor of the longest folder prefix of path in ff, or 1.
func folderFactor(ff map[string]float64, path string) float64 {
	if len(ff) == 0 {
		return 1
	}
	lp := strings.ToLower(path)
	for i := strings.LastIndexByte(lp, '/'); i > 0; i = strings.LastIndexByte(lp[:i], '/') {
		if f, ok := ff[lp[:i]]; ok {
			return f
		}
	}
	return 1
}
