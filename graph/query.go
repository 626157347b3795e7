package graph

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ClauseKind is what a query clause matches.
type ClauseKind string

// The clause kinds ParseQuery produces.
const (
	ClauseWord   ClauseKind = "word"   // a bare word: scored, optional
	ClausePhrase ClauseKind = "phrase" // "two words": scored; required only as +"…"
	ClauseTag    ClauseKind = "tag"    // tag:x, a filter (nested tags match: tag:a matches a/b)
	ClauseFolder ClauseKind = "folder" // folder:x, a filter on the path's folder prefix
	ClauseField  ClauseKind = "field"  // key:value, a filter on a frontmatter field
)

// Query is a parsed search query. See docs/search.md for the syntax.
type Query struct {
	// Text is the query as given.
	Text    string
	Clauses []Clause
}

// Clause is one item of a query.
type Clause struct {
	Kind ClauseKind
	// Key is the frontmatter key of a ClauseField, lowercased; empty otherwise.
	Key string
	// Value is the word, the phrase without its quotes, the tag (without '#'), the
	// folder (without surrounding '/') or the field's value.
	Value string
	// Negated clauses ("-x") exclude every note they match.
	Negated bool
	// Required clauses must match: filters, "+word" and +"a phrase".
	Required bool
	// Or joins this clause to the previous one ("a OR b"): of a run of clauses joined
	// by OR, at least one must match when any of them is required.
	Or bool
	// Pos is the byte offset of the clause in Query.Text.
	Pos int
}

// ParseQuery parses s. Syntax: bare words and "phrases" (ORed and ranked by BM25F;
// phrases matched on positions), -x to exclude a word, phrase or filter, +x to
// require a word or phrase, tag:x, folder:x, key:value (a frontmatter field; the
// value may be quoted), and OR between clauses to make them alternatives. A lone
// '-' or '+' is punctuation, as is a quote's trailing comma or question mark.
// Errors wrap ErrQuery and are *QueryError values with the byte position and the
// reason.
func ParseQuery(s string) (*Query, error) {
	p := parser{s: s}
	return p.parse()
}

type parser struct {
	s string
	i int
}

func (p *parser) fail(pos int, reason string) error {
	return &QueryError{Query: p.s, Pos: pos, Reason: reason}
}

func (p *parser) parse() (*Query, error) {
	if !utf8.ValidString(p.s) {
		return nil, p.fail(firstInvalid(p.s), "invalid UTF-8")
	}
	q := &Query{Text: p.s}
	orPending, orPos := false, 0
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			break
		}
		start := p.i
		negated, required := false, false
		switch p.s[p.i] {
		case '-', '+':
			if p.i+1 >= len(p.s) || isSpaceAt(p.s, p.i+1) {
				p.i++ // a dash between words ("slow - even broken") is punctuation
				continue
			}
			negated, required = p.s[p.i] == '-', p.s[p.i] == '+'
			p.i++
			if c := p.s[p.i]; c == '-' || c == '+' {
				return nil, p.fail(p.i, "doubled '"+p.s[p.i:p.i+1]+"'")
			}
		}
		var c Clause
		if p.s[p.i] == '"' {
			v, err := p.quoted()
			if err != nil {
				return nil, err
			}
			c = Clause{Kind: ClausePhrase, Value: v}
		} else {
			tok := p.token()
			if tok == "OR" && !negated && !required {
				if len(q.Clauses) == 0 {
					return nil, p.fail(start, "OR needs a clause before it")
				}
				if orPending {
					return nil, p.fail(start, "doubled OR")
				}
				orPending, orPos = true, start
				continue
			}
			var err error
			if c, err = p.clause(tok, start+boolInt(negated || required)); err != nil {
				return nil, err
			}
		}
		c.Pos = start
		c.Negated = negated
		c.Required = c.Required || required
		if orPending {
			prev := q.Clauses[len(q.Clauses)-1]
			if prev.Negated || negated {
				return nil, p.fail(orPos, "OR cannot join an excluded (-) clause")
			}
			if (required && c.Kind == ClauseWord) || (prev.Kind == ClauseWord && prev.Required) {
				return nil, p.fail(orPos, "OR cannot join a required (+) word")
			}
			c.Or = true
			orPending = false
		}
		q.Clauses = append(q.Clauses, c)
	}
	if orPending {
		return nil, p.fail(orPos, "OR needs a clause after it")
	}
	if len(q.Clauses) == 0 {
		return nil, p.fail(0, "empty query")
	}
	positive := false
	for _, c := range q.Clauses {
		positive = positive || !c.Negated
	}
	if !positive {
		return nil, p.fail(0, "only exclusions: add a word, phrase or filter to match")
	}
	return q, nil
}

// clause classifies a bare token: key:value filters or a word.
func (p *parser) clause(tok string, pos int) (Clause, error) {
	colon := strings.IndexByte(tok, ':')
	if colon <= 0 || !isKey(tok[:colon]) {
		return Clause{Kind: ClauseWord, Value: tok}, nil
	}
	key := strings.ToLower(tok[:colon])
	val := tok[colon+1:]
	valPos := pos + colon + 1
	if val == "" && p.i < len(p.s) && p.s[p.i] == '"' {
		// key:"quoted value": the token stopped at the quote; parse from there.
		v, err := p.quoted()
		if err != nil {
			return Clause{}, err
		}
		val = v
	} else if val == "" || val[0] == ':' || val[0] == '/' {
		// "Note:", "std::vector" and "http://…" are words, not filters.
		if key == "tag" || key == "folder" {
			if val == "" {
				return Clause{}, p.fail(pos, key+": needs a value")
			}
		} else {
			return Clause{Kind: ClauseWord, Value: tok}, nil
		}
	}
	switch key {
	case "tag":
		v := strings.TrimLeft(val, "#")
		if strings.TrimSpace(v) == "" {
			return Clause{}, p.fail(valPos, "tag: needs a tag name")
		}
		return Clause{Kind: ClauseTag, Value: v, Required: true}, nil
	case "folder":
		v := strings.Trim(val, "/")
		if strings.TrimSpace(v) == "" {
			return Clause{}, p.fail(valPos, "folder: needs a folder name")
		}
		return Clause{Kind: ClauseFolder, Value: v, Required: true}, nil
	}
	return Clause{Kind: ClauseField, Key: key, Value: val, Required: true}, nil
}

// quoted reads a "…" string starting at p.i and returns its inside.
func (p *parser) quoted() (string, error) {
	open := p.i
	end := strings.IndexByte(p.s[open+1:], '"')
	if end < 0 {
		return "", p.fail(open, "unterminated quote")
	}
	v := p.s[open+1 : open+1+end]
	p.i = open + 1 + end + 1
	if strings.TrimSpace(v) == "" {
		return "", p.fail(open, "empty phrase")
	}
	if p.i < len(p.s) && !isSpaceAt(p.s, p.i) {
		// "a phrase", or "a phrase"? ends the phrase as it does in prose; a letter or
		// digit after the quote ("a"b) leaves it unclear where the phrase ends.
		if r, _ := utf8.DecodeRuneInString(p.s[p.i:]); !unicode.IsPunct(r) && !unicode.IsSymbol(r) {
			return "", p.fail(p.i, "a closing quote must be followed by a space or punctuation")
		}
	}
	return v, nil
}

// token reads up to the next space, or up to a quote that follows "key:".
func (p *parser) token() string {
	start := p.i
	for p.i < len(p.s) && !isSpaceAt(p.s, p.i) {
		if p.s[p.i] == '"' && p.i > start && p.s[p.i-1] == ':' {
			break
		}
		_, n := utf8.DecodeRuneInString(p.s[p.i:])
		p.i += n
	}
	return p.s[start:p.i]
}

func (p *parser) skipSpace() {
	for p.i < len(p.s) && isSpaceAt(p.s, p.i) {
		_, n := utf8.DecodeRuneInString(p.s[p.i:])
		p.i += n
	}
}

func isSpaceAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// isKey reports whether k can be a field key: a letter, then letters, digits, '_',
// '-' or '.'.
func isKey(k string) bool {
	for i, r := range k {
		switch {
		case unicode.IsLetter(r):
		case i > 0 && (unicode.IsDigit(r) || r == '_' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return k != ""
}

func firstInvalid(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
