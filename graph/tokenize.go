package graph

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// maxTermLen is the longest folded word (in bytes) that is indexed; longer words
// (hashes, base64, minified code) still take a position but make no term.
const maxTermLen = 64

// DefaultStopWords is the stop list used when Options.StopWords is nil: English
// function words that carry no topic. Stop words take a position (so a phrase with
// one in it still lines up) but are neither indexed nor scored.
var DefaultStopWords = []string{
	"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has",
	"have", "how", "i", "if", "in", "into", "is", "it", "its", "of", "on", "or",
	"such", "that", "the", "their", "then", "there", "these", "they", "this", "to",
	"was", "were", "what", "when", "where", "which", "who", "will", "with",
}

// analyzer turns text into terms: Unicode words (letters, digits and combining
// marks; an apostrophe between letters joins), case- and diacritics-folded to ASCII
// where a folding exists (é→e, ø→o, æ→ae, ß→ss), stop words dropped, English words
// stemmed (Porter2). Han and Hiragana characters are one word each. The same
// analyzer runs at index and at query time, so both sides always agree.
type analyzer struct {
	stop map[string]bool

	// shared memoises terms across goroutines (searches, updates); each stemmer
	// keeps its own map in front of it.
	mu     sync.RWMutex
	shared map[string]string
}

// maxShared bounds the shared term cache; it starts over when full.
const maxShared = 1 << 18

func newAnalyzer(stopWords []string) *analyzer {
	a := &analyzer{stop: make(map[string]bool, len(stopWords)), shared: make(map[string]string, 4096)}
	for _, w := range stopWords {
		var buf []byte
		for _, r := range w {
			buf = foldRune(buf, r)
		}
		if len(buf) > 0 {
			a.stop[string(buf)] = true
		}
	}
	return a
}

// fingerprint identifies the analysis settings an index was built with.
func (a *analyzer) fingerprint() string {
	words := make([]string, 0, len(a.stop))
	for w := range a.stop {
		words = append(words, w)
	}
	slices.Sort(words)
	return "porter2;fold1;stop=" + strings.Join(words, ",")
}

// stemmer memoises stems: the same few thousand words make up most of any text, and
// Porter2 costs far more than a map lookup. A stemmer belongs to one goroutine.
type stemmer struct {
	a     *analyzer
	cache map[string]string
}

func (a *analyzer) newStemmer() *stemmer {
	return &stemmer{a: a, cache: make(map[string]string, 256)}
}

// term maps a folded word to its term, "" for a stop word.
func (s *stemmer) term(w []byte) string {
	if t, ok := s.cache[string(w)]; ok {
		return t
	}
	key := string(w)
	t := s.a.sharedTerm(key)
	if len(s.cache) < maxShared {
		s.cache[key] = t
	}
	return t
}

// sharedTerm is term through the analyzer's shared cache only.
func (a *analyzer) sharedTerm(key string) string {
	a.mu.RLock()
	t, ok := a.shared[key]
	a.mu.RUnlock()
	if ok {
		return t
	}
	t = a.termOf(key)
	a.mu.Lock()
	if len(a.shared) >= maxShared {
		clear(a.shared)
	}
	a.shared[key] = t
	a.mu.Unlock()
	return t
}

// slotCache is the stemmer of a docAnalyzer: each cached word maps to its term's
// slot, one per term (words with the same stem share it), where the analyzer
// keeps the term's id in the note it is analysing, so that one map lookup per
// word gives both.
type slotCache struct {
	a     *analyzer
	cache map[string]*termSlot // folded word → its term's slot
	slots map[string]*termSlot // term → slot
}

// termSlot is one term ("" for a stop word) and, for the docAnalyzer that owns
// the cache, the term's id in note number gen.
type termSlot struct {
	term string
	gen  uint32
	id   int32
}

func (a *analyzer) newSlotCache() *slotCache {
	return &slotCache{a: a, cache: make(map[string]*termSlot, 256), slots: make(map[string]*termSlot, 256)}
}

// slot returns the slot of w's term. The cache may pass maxShared until reset
// empties it.
func (s *slotCache) slot(w []byte) *termSlot {
	if sl, ok := s.cache[string(w)]; ok {
		return sl
	}
	key := string(w)
	t := s.a.sharedTerm(key)
	sl := s.slots[t]
	if sl == nil {
		sl = &termSlot{term: t}
		s.slots[t] = sl
	}
	s.cache[key] = sl
	return sl
}

// reset empties the cache when it has grown past maxShared words; call it only
// between notes, since it forgets the slots.
func (s *slotCache) reset() {
	if len(s.cache) >= maxShared {
		clear(s.cache)
		clear(s.slots)
	}
}

// termOf is term without the cache.
func (a *analyzer) termOf(w string) string {
	if a.stop[w] {
		return ""
	}
	stemmable := len(w) > 2
	hasApos := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c == '\'':
			hasApos = true
		case c < 'a' || c > 'z':
			stemmable = false
		}
	}
	if stemmable {
		w = english.Stem(w, true)
		hasApos = strings.IndexByte(w, '\'') >= 0
	}
	if hasApos {
		w = strings.ReplaceAll(w, "'", "")
	}
	if w == "" || a.stop[w] {
		return ""
	}
	return w
}

// word is one word of a text: its folded form (valid only during the callback),
// its byte range in the text and its position (0-based count of words before it).
type word struct {
	folded     []byte
	start, end int
	pos        int
}

// words calls fn for each word of text in order. It returns the number of
// positions used (the field's length for phrase offsets). Words longer than
// maxTermLen are skipped but take a position.
func words(text []byte, fn func(w word)) int {
	var buf [maxTermLen + 8]byte
	folded := buf[:0]
	pos := 0
	start := -1
	long := false
	lastLetter := false
	flush := func(end int) {
		if start < 0 {
			return
		}
		for len(folded) > 0 && folded[len(folded)-1] == '\'' {
			folded = folded[:len(folded)-1]
		}
		switch {
		case long:
			pos++
		case len(folded) > 0:
			fn(word{folded: folded, start: start, end: end, pos: pos})
			pos++
		}
		start, long, folded = -1, false, buf[:0]
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
				if start < 0 {
					start = i
				}
				if len(folded) < maxTermLen {
					folded = append(folded, c)
				} else {
					long = true
				}
				lastLetter = c >= 'a'
			case c >= 'A' && c <= 'Z':
				if start < 0 {
					start = i
				}
				if len(folded) < maxTermLen {
					folded = append(folded, c+'a'-'A')
				} else {
					long = true
				}
				lastLetter = true
			case c == '\'' && start >= 0 && lastLetter && letterAt(text, i+1):
				folded = append(folded, '\'')
				lastLetter = false
			default:
				flush(i)
				lastLetter = false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		switch {
		case r == '\u2019' && start >= 0 && lastLetter && letterAt(text, i+n):
			folded = append(folded, '\'')
			lastLetter = false
		case isSingleRuneWord(r):
			flush(i)
			start = i
			folded = foldRune(folded, r)
			flush(i + n)
			lastLetter = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if start < 0 {
				start = i
			}
			if len(folded) < maxTermLen {
				folded = foldRune(folded, r)
				if len(folded) > maxTermLen {
					long = true
				}
			} else {
				long = true
			}
			lastLetter = unicode.IsLetter(r)
		default:
			flush(i)
			lastLetter = false
		}
		i += n
	}
	flush(len(text))
	return pos
}

// letterAt reports whether a letter starts at text[i].
func letterAt(text []byte, i int) bool {
	if i >= len(text) {
		return false
	}
	c := text[i]
	if c < utf8.RuneSelf {
		return c|0x20 >= 'a' && c|0x20 <= 'z'
	}
	r, _ := utf8.DecodeRune(text[i:])
	return unicode.IsLetter(r)
}

// isSingleRuneWord reports scripts written without spaces, where each character
// is taken as a word (as Unicode word segmentation does for ideographs).
func isSingleRuneWord(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r)
}

// foldRune appends r lowercased and folded to ASCII where a folding exists:
// compatibility decomposition with the combining marks dropped (é→e, ﬁ→fi, Ａ→a),
// plus the letters that do not decompose (ø→o, æ→ae, ß→ss, ł→l, đ→d, þ→th).
// Letters of other scripts are kept lowercased.
func foldRune(dst []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, byte(r))
	}
	switch r {
	case 'ø', 'Ø':
		return append(dst, 'o')
	case 'æ', 'Æ':
		return append(dst, 'a', 'e')
	case 'œ', 'Œ':
		return append(dst, 'o', 'e')
	case 'ß', 'ẞ':
		return append(dst, 's', 's')
	case 'ł', 'Ł':
		return append(dst, 'l')
	case 'đ', 'Đ', 'ð', 'Ð':
		return append(dst, 'd')
	case 'þ', 'Þ':
		return append(dst, 't', 'h')
	case 'ı':
		return append(dst, 'i')
	case 'ħ', 'Ħ':
		return append(dst, 'h')
	case 'ŋ', 'Ŋ':
		return append(dst, 'n')
	case 'ŧ', 'Ŧ':
		return append(dst, 't')
	}
	if unicode.Is(unicode.Mn, r) {
		return dst
	}
	var enc [utf8.UTFMax]byte
	n := utf8.EncodeRune(enc[:], r)
	if d := norm.NFKD.Properties(enc[:n]).Decomposition(); d != nil {
		for len(d) > 0 {
			dr, dn := utf8.DecodeRune(d)
			d = d[dn:]
			if dr < utf8.RuneSelf || !unicode.Is(unicode.Mn, dr) {
				dst = foldSimple(dst, dr)
			}
		}
		return dst
	}
	return foldSimple(dst, r)
}

// foldSimple appends r lowercased, with the no-decomposition foldings of foldRune.
func foldSimple(dst []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return append(dst, byte(r))
		}
		return dst // a decomposition's punctuation (e.g. "½" → "1⁄2")
	}
	if l := unicode.ToLower(r); l != r {
		return foldRune(dst, l)
	}
	switch r {
	case 'ø', 'æ', 'œ', 'ß', 'ł', 'đ', 'ð', 'þ', 'ı', 'ħ', 'ŋ', 'ŧ':
		return foldRune(dst, r)
	}
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return dst
	}
	return utf8.AppendRune(dst, r)
}

// fold returns s case- and diacritics-folded, non-word characters removed between
// words and words separated by single spaces.
func fold(s string) string {
	var b strings.Builder
	words([]byte(s), func(w word) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.Write(w.folded)
	})
	return b.String()
}
