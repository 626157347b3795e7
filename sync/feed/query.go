package feed

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// Query is what a client asks of the feed: where to resume and which commits and
// changes it wants. The zero Query is everything, live from now.
type Query struct {
	// Since: replay every commit after this one, then go live ("": live only).
	Since repo.CommitID
	// Folders: only changes under one of these folders (no leading or trailing
	// slash).
	Folders []string
	// Ops: only commits whose Norn-Op is one of these.
	Ops []repo.Op
	// Paths: only changes whose path matches one of these globs (path.Match: `*`
	// does not cross a slash).
	Paths []string
}

// Limits on a query, so that one client cannot make matching expensive.
const (
	maxQueryItems = 32
	maxQueryItem  = 256
)

// knownOps are the Norn-Op values a query may filter on.
var knownOps = []repo.Op{repo.OpWrite, repo.OpEdit, repo.OpMove, repo.OpLink, repo.OpArchive, repo.OpRestore,
	repo.OpCapture, repo.OpClaim, repo.OpMerge, repo.OpExternal, repo.OpImport}

// ParseQuery reads the events endpoint's query parameters: since=<commit id>,
// folders=a,b, ops=write,archive and paths=<glob>,… (each list may also be given
// as repeated parameters). Anything malformed or unknown is ErrBadQuery.
func ParseQuery(v url.Values) (Query, error) {
	var q Query
	for k := range v {
		switch k {
		case "since", "folders", "ops", "paths", "token":
		default:
			return Query{}, badQueryf("unknown parameter %q (known: since, folders, ops, paths, token)", k)
		}
	}
	if s := v["since"]; len(s) > 1 {
		return Query{}, badQueryf("since given %d times", len(s))
	} else if len(s) == 1 && s[0] != "" {
		if !isCommitID(s[0]) {
			return Query{}, badQueryf("since %q is not a 40-character hex commit id", s[0])
		}
		q.Since = repo.CommitID(strings.ToLower(s[0]))
	}
	folders, err := list(v, "folders")
	if err != nil {
		return Query{}, err
	}
	for _, f := range folders {
		f = strings.TrimSpace(strings.Trim(f, "/"))
		if f == "" {
			continue
		}
		if !validFolder(f) {
			return Query{}, badQueryf("folder %q is not a vault folder (slash-separated names, no . or .. or empty ones)", f)
		}
		q.Folders = append(q.Folders, f)
	}
	ops, err := list(v, "ops")
	if err != nil {
		return Query{}, err
	}
	for _, o := range ops {
		if !slices.Contains(knownOps, repo.Op(o)) {
			return Query{}, badQueryf("unknown op %q (known: %s)", o, opNames())
		}
		q.Ops = append(q.Ops, repo.Op(o))
	}
	if q.Paths, err = list(v, "paths"); err != nil {
		return Query{}, err
	}
	for _, g := range q.Paths {
		if _, err := path.Match(g, ""); err != nil {
			return Query{}, badQueryf("path glob %q: %v", g, err)
		}
	}
	return q, nil
}

// Values is the query as URL parameters (the inverse of ParseQuery).
func (q Query) Values() url.Values {
	v := url.Values{}
	if q.Since != "" {
		v.Set("since", string(q.Since))
	}
	if len(q.Folders) > 0 {
		v.Set("folders", strings.Join(q.Folders, ","))
	}
	if len(q.Ops) > 0 {
		ops := make([]string, len(q.Ops))
		for i, o := range q.Ops {
			ops[i] = string(o)
		}
		v.Set("ops", strings.Join(ops, ","))
	}
	if len(q.Paths) > 0 {
		v.Set("paths", strings.Join(q.Paths, ","))
	}
	return v
}

// list splits a comma-separated (or repeated) parameter, dropping empty items.
func list(v url.Values, key string) ([]string, error) {
	var out []string
	for _, s := range v[key] {
		for item := range strings.SplitSeq(s, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			if len(item) > maxQueryItem {
				return nil, badQueryf("%s: an item is longer than %d bytes", key, maxQueryItem)
			}
			out = append(out, item)
		}
	}
	if len(out) > maxQueryItems {
		return nil, badQueryf("%s: %d items, at most %d", key, len(out), maxQueryItems)
	}
	return out, nil
}

func opNames() string {
	names := make([]string, len(knownOps))
	for i, o := range knownOps {
		names[i] = string(o)
	}
	return strings.Join(names, ", ")
}

func validFolder(f string) bool {
	for seg := range strings.SplitSeq(f, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return !strings.ContainsFunc(f, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' })
}

func isCommitID(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func (q *Query) matchOp(op repo.Op) bool {
	return len(q.Ops) == 0 || slices.Contains(q.Ops, op)
}

func (q *Query) pathFiltered() bool { return len(q.Folders) > 0 || len(q.Paths) > 0 }

// matchPath reports whether a change of p is one the query asks for.
func (q *Query) matchPath(p note.Path) bool {
	s := string(p)
	if len(q.Folders) > 0 && !slices.ContainsFunc(q.Folders, func(f string) bool { return strings.HasPrefix(s, f+"/") }) {
		return false
	}
	if len(q.Paths) > 0 && !slices.ContainsFunc(q.Paths, func(g string) bool { ok, _ := path.Match(g, s); return ok }) {
		return false
	}
	return true
}
