package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// Read budgets and bounds.
const (
	defaultReadBytes = 16 << 10
	maxReadBytes     = 1 << 20
	maxSearchOffset  = 1000
)

func (t *mcpTools) addReadTools() {
	read := func(name, title, desc string) toolDef {
		return toolDef{name: name, title: title, desc: desc, scope: ScopeRead, readOnly: true, idempotent: true}
	}
	addTool(t, read("vault_map", "Vault map",
		"Boot context in one bounded call: call it first in a session. Returns the head commit, the number of notes, "+
			"the root docs (notes at the top level such as README or _INDEX, with titles), every folder with its note count "+
			"(notes below it, sub-folders included), the most used tags with counts, the inbox folder captures go to, "+
			"and the most recent commits (op, author, subject, time, changed paths). Each list is cut at its limit and "+
			"says so (truncated, *_total)."), t.vaultMap)
	addTool(t, read("search", "Search notes",
		"Full-text search (BM25F) over titles, tags, headings, bodies, paths and frontmatter. Use it to find notes before "+
			"reading them. Query syntax: bare words (ORed), \"phrases\", +required, -excluded, tag:x, folder:x, field:value, OR; "+
			"literal=true takes the text as plain words (for pasted questions). Returns ranked hits (path, title, score, best "+
			"line, snippet with matches in «», section, revision), the total, which engine answered, whether the index is "+
			"behind HEAD, and next_offset for the next page (limit default 10, at most 50)."), t.search)
	addTool(t, read("read_note", "Read a note",
		"Read one note by path (tech/bloom.md) or by wikilink name (Bloom filters, [[Bloom filters#Usage]]). Optional "+
			"section (a heading) reads one section; at reads an older commit or a revision. Returns path, revision (pass it as "+
			"expected_revision to edit), commit, title, frontmatter and content. A note (or section) over max_bytes (default "+
			"16 KiB) comes back as its heading outline with each section's size instead of the content (truncated=true): then "+
			"read one section, or raise max_bytes (at most 1 MiB)."), t.readNote)
	addTool(t, read("list_notes", "List notes",
		"List the notes under a folder (every depth; \"\" for the whole vault), sorted by path, with revisions and, when "+
			"titles=true, titles. Paged: limit (default 100, at most 500) and next_cursor."), t.listNotes)
	addTool(t, read("get_context", "Note context",
		"Everything around one note before you edit or link it: its frontmatter, title, tags, outgoing links (with where "+
			"each resolves), backlinks (with the linking line), notes sharing a tag, and its folder siblings. Each list is cut "+
			"at limit (default 20, at most 100) with totals."), t.getContext)
	addTool(t, read("links", "Links of a note",
		"A note's outgoing links with their status (resolved, broken, ambiguous with candidates), typed edges included (kind edge, with type and why), its backlinks with their context "+
			"lines, and the notes sharing a tag with it. Lists cut at limit (default 50, at most 500) with totals."), t.links)
	addTool(t, read("stats", "Vault statistics",
		"Counts over the vault at HEAD: notes, files, links and typed edges (resolved, broken, ambiguous), orphans, "+
			"unparseable notes, and the largest folders, tags and typed-edge types. Each table is a page of limit rows "+
			"(default 50, at most 500) from offset, with its total and *_next_offset for the next page."), t.stats)
	addTool(t, read("history", "History",
		"The commits of the vault, newest first, or of one note when path is given: op (write, edit, move, archive, …), "+
			"author, subject, time and the paths each changed. Paged: limit (default 20, at most 100) and next_cursor; "+
			"at most 1000 commits back."), t.history)
	addTool(t, read("diff", "Diff two commits",
		"The files that differ between two commits (from, to; to defaults to HEAD): kind, path, old and new revisions. "+
			"With path, also a unified diff of that note between the two commits (bounded by max_bytes, default 16 KiB). "+
			"Changes are cut at limit (default 100, at most 1000)."), t.diff)
}

// jsonSafe returns v with values JSON cannot encode (NaN, ±Inf) written as strings.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonSafe(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonSafe(e)
		}
		return out
	}
	return v
}

// frontmatterOf returns a note's frontmatter fields ready for JSON (nil: none).
func frontmatterOf(n *note.Note) map[string]any {
	if n == nil || n.Frontmatter == nil {
		return nil
	}
	m, _ := jsonSafe(n.Frontmatter.Fields).(map[string]any)
	return m
}

// --- vault_map ---

// VaultMapArgs are vault_map's arguments.
type VaultMapArgs struct {
	Recent  int `json:"recent,omitempty" jsonschema:"how many recent commits (default 10, at most 50)"`
	Tags    int `json:"tags,omitempty" jsonschema:"how many tags, most used first (default 30, at most 200)"`
	Folders int `json:"folders,omitempty" jsonschema:"how many folders, by path (default 100, at most 500)"`
}

// VaultMap is vault_map's answer.
type VaultMap struct {
	HeadCommit string `json:"head_commit"`
	Notes      int    `json:"notes"`
	// Inbox is the folder capture writes to.
	Inbox         string       `json:"inbox"`
	RootDocs      []NoteRef    `json:"root_docs"`
	RootDocsTotal int          `json:"root_docs_total"`
	Folders       []Count      `json:"folders"`
	FoldersTotal  int          `json:"folders_total"`
	Tags          []Count      `json:"tags"`
	TagsTotal     int          `json:"tags_total"`
	Recent        []CommitInfo `json:"recent"`
	// Truncated says a list was cut at its limit.
	Truncated bool `json:"truncated"`
}

const maxRootDocs = 50

func (t *mcpTools) vaultMap(ctx context.Context, c *caller, in VaultMapArgs) (*VaultMap, error) {
	recent, err := bound("recent", in.Recent, 10, 50)
	if err != nil {
		return nil, err
	}
	ntags, err := bound("tags", in.Tags, 30, 200)
	if err != nil {
		return nil, err
	}
	nfolders, err := bound("folders", in.Folders, 100, 500)
	if err != nil {
		return nil, err
	}
	lv, err := t.v.linkView(ctx) // the index, or the notes at HEAD read when it is unavailable
	if err != nil {
		return nil, fmt.Errorf("vault map: %w", err)
	}
	notes, err := lv.src.NotesHiding(c.hidden(ctx))
	if err != nil {
		return nil, graphErr("vault map", err)
	}
	out := &VaultMap{HeadCommit: lv.commit, Inbox: c.cfg.Inbox, RootDocs: []NoteRef{}, Recent: []CommitInfo{}}
	folders, tags := map[string]int{}, map[string]int{}
	var roots []NoteRef
	for _, n := range notes {
		if isNornPath(n.Path) {
			continue
		}
		out.Notes++
		for _, t := range n.Tags {
			tags[t]++
		}
		folder := n.Path.Folder()
		if folder == "" {
			roots = append(roots, NoteRef{Path: n.Path, Title: n.Title})
		}
		for folder != "" {
			folders[folder]++
			i := strings.LastIndexByte(folder, '/')
			if i < 0 {
				break
			}
			folder = folder[:i]
		}
	}
	sort.SliceStable(roots, func(i, j int) bool {
		a, b := rootRank(roots[i].Path), rootRank(roots[j].Path)
		if a != b {
			return a < b
		}
		return roots[i].Path < roots[j].Path
	})
	out.RootDocsTotal = len(roots)
	if len(roots) > maxRootDocs {
		roots, out.Truncated = roots[:maxRootDocs], true
	}
	out.RootDocs = append(out.RootDocs, roots...)
	out.FoldersTotal = len(folders)
	names := make([]string, 0, len(folders))
	for f := range folders {
		names = append(names, f)
	}
	sort.Strings(names)
	if len(names) > nfolders {
		names, out.Truncated = names[:nfolders], true
	}
	out.Folders = make([]Count, len(names))
	for i, f := range names {
		out.Folders[i] = Count{Name: f, Notes: folders[f]}
	}
	out.TagsTotal = len(tags)
	var cut bool
	out.Tags, cut = top(tags, ntags)
	out.Truncated = out.Truncated || cut
	commits, _, err := t.visibleLog(ctx, c, "", 0, recent)
	if err != nil {
		return nil, fmt.Errorf("vault map: %w", err)
	}
	out.Recent = append(out.Recent, commits...)
	return out, nil
}

// rootRank puts the usual entry points first among the root docs.
func rootRank(p note.Path) int {
	switch strings.ToLower(string(p)) {
	case "readme.md":
		return 0
	case "_index.md", "index.md":
		return 1
	}
	return 2
}

// isNornPath reports whether p is Norn's own (under .norn/).
func isNornPath(p note.Path) bool { return strings.HasPrefix(string(p), ".norn/") }

// --- search ---

// SearchArgs are search's arguments.
type SearchArgs struct {
	Query                string `json:"query" jsonschema:"the query (see the tool description for the syntax)"`
	Limit                int    `json:"limit,omitempty" jsonschema:"hits per page (default 10, at most 50)"`
	Offset               int    `json:"offset,omitempty" jsonschema:"hits to skip: pass next_offset from the previous page (at most 1000)"`
	Folder               string `json:"folder,omitempty" jsonschema:"only notes under this folder"`
	Literal              bool   `json:"literal,omitempty" jsonschema:"take the query as plain words, no operators"`
	WaitForPendingWrites bool   `json:"wait_for_pending_writes,omitempty" jsonschema:"wait (up to 2 s) until the index has every commit; an index still behind is an index_stale error"`
}

// SearchHit is one search result.
type SearchHit struct {
	Path     note.Path `json:"path"`
	Title    string    `json:"title"`
	Score    float64   `json:"score"`
	Line     int       `json:"line"`
	Snippet  string    `json:"snippet"`
	Section  string    `json:"section"`
	Revision string    `json:"revision"`
	Matched  []string  `json:"matched"`
	// Inbound is present when the inbound field (what other notes say where
	// they link here) added to the score: the linking line holding the most
	// query words, and its note.
	Inbound *SearchInbound `json:"inbound,omitempty"`
}

// SearchInbound is a line of another note that links to a hit.
type SearchInbound struct {
	From note.Path `json:"from"`
	Line string    `json:"line"`
}

// SearchResult is search's answer.
type SearchResult struct {
	Engine      string  `json:"engine"`
	IndexCommit string  `json:"index_commit"`
	HeadCommit  string  `json:"head_commit"`
	IndexStale  bool    `json:"index_stale"`
	TookMS      float64 `json:"took_ms"`
	// Total counts the matching notes you can see: for a caller without the private
	// scope, the search ran as if the private notes were not there.
	Total int `json:"total"`
	// Truncated: the degraded scan stopped at its bound before reading every note.
	Truncated bool        `json:"truncated"`
	Hits      []SearchHit `json:"hits"`
	// NextOffset is the offset of the next page, absent on the last page.
	NextOffset int `json:"next_offset,omitempty"`
}

func (t *mcpTools) search(ctx context.Context, c *caller, in SearchArgs) (*SearchResult, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, errInput("query is required")
	}
	limit, err := bound("limit", in.Limit, 10, 50)
	if err != nil {
		return nil, err
	}
	if in.Offset < 0 || in.Offset > maxSearchOffset {
		return nil, errInput("offset must be between 0 and %d, not %d", maxSearchOffset, in.Offset)
	}
	folder, err := folderArg(in.Folder)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	// A caller without the private scope searches the public view: private notes
	// match nothing and weigh in no statistic, total included.
	req := SearchRequest{Query: in.Query, Folder: folder, Literal: in.Literal, WaitForPendingWrites: in.WaitForPendingWrites,
		Limit: limit + 1, Offset: in.Offset, HidePrivate: !c.all} // one more than a page says whether there is a next one
	first, err := t.v.Index.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	hits, total := first.Hits, first.Total
	if !c.all {
		// The index judged privacy under the private folders of the settings it
		// was built with; until the maintainer has it rebuilt after they changed,
		// a hit under a folder private now is dropped.
		hits = slices.DeleteFunc(slices.Clone(hits), func(h graph.Hit) bool { return c.cfg.IsPrivate(h.Path, nil) })
		total -= len(first.Hits) - len(hits)
	}
	if in.WaitForPendingWrites && first.Engine == EngineBM25 && first.IndexStale && !first.caughtUp {
		return nil, &ToolError{Class: ClassRetryable, Code: CodeIndexStale,
			Message: fmt.Sprintf("the index is at %s and HEAD at %s: it is still catching up (a rebuild may be running); retry in a moment, or search without wait_for_pending_writes for results that may miss the newest commits",
				first.IndexCommit, first.HeadCommit)}
	}
	out := &SearchResult{Engine: first.Engine, IndexCommit: first.IndexCommit, HeadCommit: first.HeadCommit,
		IndexStale: first.IndexStale, Truncated: first.Truncated, Total: total, Hits: []SearchHit{}}
	more := len(hits) > limit
	if len(hits) > limit {
		hits = hits[:limit]
	}
	for _, h := range hits {
		m := h.Matched
		if m == nil {
			m = []string{}
		}
		sh := SearchHit{Path: h.Path, Title: h.Title, Score: h.Score, Line: h.Line,
			Snippet: h.Snippet, Section: h.Section, Revision: h.Revision, Matched: m}
		if in := h.Inbound; in != nil && (c.all || !c.cfg.IsPrivate(in.From, nil)) {
			sh.Inbound = &SearchInbound{From: in.From, Line: in.Text}
		}
		out.Hits = append(out.Hits, sh)
	}
	if more && in.Offset+len(hits) <= maxSearchOffset {
		out.NextOffset = in.Offset + len(hits)
	}
	out.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return out, nil
}

// --- read_note ---

// ReadNoteArgs are read_note's arguments.
type ReadNoteArgs struct {
	Path     string `json:"path" jsonschema:"the note's path (tech/bloom.md) or its wikilink name (Bloom filters, [[Bloom filters#Heading]])"`
	Section  string `json:"section,omitempty" jsonschema:"read only the section of this heading (Heading, ## Heading, Parent/Child)"`
	At       string `json:"at,omitempty" jsonschema:"read the note at this commit (id or short id, branch or HEAD, each optionally with ~N / ^N, e.g. HEAD~2) or this revision (blob id) instead of HEAD"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"read budget in bytes (default 16384, at most 1048576); over it you get the outline"`
}

// OutlineItem is one heading of a note's outline.
type OutlineItem struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	Line  int    `json:"line"`
	// Size is the byte size of the heading's section, sub-sections included.
	Size int `json:"size"`
}

// ReadNoteResult is read_note's answer.
type ReadNoteResult struct {
	Path     note.Path     `json:"path"`
	Revision repo.Revision `json:"revision"`
	// Commit is the commit read ("" when read by revision).
	Commit      repo.CommitID  `json:"commit"`
	Title       string         `json:"title"`
	Frontmatter map[string]any `json:"frontmatter,omitempty"`
	// Content is the note's bytes (or the section's); empty when over budget.
	Content string `json:"content"`
	// Size is the byte size of what was asked (the note, or the section).
	Size    int    `json:"size"`
	Section string `json:"section,omitempty"`
	// Truncated: over max_bytes; Outline replaces Content.
	Truncated bool          `json:"truncated"`
	Outline   []OutlineItem `json:"outline,omitempty"`
	Notice    string        `json:"notice,omitempty"`
	// ResolvedFrom is the name given when it was resolved to Path.
	ResolvedFrom string `json:"resolved_from,omitempty"`
}

func (t *mcpTools) readNote(ctx context.Context, c *caller, in ReadNoteArgs) (*ReadNoteResult, error) {
	budget, err := bound("max_bytes", in.MaxBytes, defaultReadBytes, maxReadBytes)
	if err != nil {
		return nil, err
	}
	name, heading := SplitName(in.Path)
	if name != in.Path && repo.ValidPath(in.Path) == nil && c.visible(ctx, note.Path(in.Path)) && t.v.Revision(note.Path(in.Path)) != "" {
		name, heading = in.Path, "" // a note's path as given (" lead.md"), not a name to trim
	}
	if name == "" {
		return nil, errInput("path is required: a note's path or wikilink name")
	}
	section := strings.TrimSpace(in.Section)
	if section == "" {
		section = heading
	}
	p, err := t.resolveName(ctx, c, name, in.At != "")
	if err != nil {
		return nil, err
	}
	blob, err := t.readAt(ctx, c, p, in.At)
	if err != nil {
		if errors.Is(err, repo.ErrNotFound) {
			return nil, invisibleAt(p, in.At)
		}
		return nil, err
	}
	n, perr := note.Parse(p, blob.Content)
	if !c.visibleParsed(p, n, perr, blob.Content) {
		return nil, invisibleAt(p, in.At)
	}
	out := &ReadNoteResult{Path: p, Revision: blob.Revision, Commit: blob.Commit, Title: note.Stem(p)}
	if string(p) != name {
		out.ResolvedFrom = in.Path
	}
	if perr == nil {
		out.Title, out.Frontmatter = n.Title, frontmatterOf(n)
	}
	body := blob.Content
	var headings []*note.Heading
	if perr == nil {
		headings = n.Headings
	}
	if section != "" {
		if perr != nil {
			return nil, errInput("%s does not parse (%v), so its sections cannot be read: read it whole", p, perr)
		}
		s, e, ok := note.Section(n, section)
		if !ok {
			return nil, errNotFound(p, "%s has no heading %q; its headings: %s", p, section, headingList(n, 40))
		}
		body, out.Section = blob.Content[s:e], section
		headings = nil
		for _, h := range n.Headings {
			if h.Start >= s && h.Start < e {
				headings = append(headings, h)
			}
		}
	}
	out.Size = len(body)
	if len(body) <= budget {
		out.Content = string(body)
		return out, nil
	}
	out.Truncated = true
	out.Outline = []OutlineItem{}
	for _, h := range headings {
		out.Outline = append(out.Outline, OutlineItem{Level: h.Level, Text: h.Text, Line: h.Line, Size: h.Size()})
	}
	what := "the note"
	if out.Section != "" {
		what = "the section"
	}
	out.Notice = fmt.Sprintf("%s is %d bytes, over max_bytes=%d: here is its outline with each section's size instead of the content; read one section with section=<heading>, or raise max_bytes (at most %d)",
		what, len(body), budget, maxReadBytes)
	if len(out.Outline) == 0 {
		out.Notice = fmt.Sprintf("%s is %d bytes, over max_bytes=%d, and has no headings to read separately; raise max_bytes (at most %d)",
			what, len(body), budget, maxReadBytes)
	}
	return out, nil
}

// invisibleAt is the error for a note missing (or hidden) at a commit.
func invisibleAt(p note.Path, at string) error { return inputToolError(missingAt(p, at)) }

// headingList lists a note's headings for an error message, at most n.
func headingList(n *note.Note, limit int) string {
	if len(n.Headings) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for i, h := range n.Headings {
		if i == limit {
			fmt.Fprintf(&b, ", … (%d more)", len(n.Headings)-limit)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", strings.Repeat("#", h.Level)+" "+h.Text)
	}
	return b.String()
}

// readAt reads p at HEAD, at a commit-ish, or by revision (a blob id). For a
// caller without the private scope, a revision is read only when it was p's blob
// in the history reachable from HEAD: a blob id names bytes, not a place, and
// read at a public path any blob (a private folder's note) would pass as public.
// Any other id is taken as a commit, which it is not: not found, as for an id
// that names nothing.
func (t *mcpTools) readAt(ctx context.Context, c *caller, p note.Path, at string) (*repo.Blob, error) {
	if isRevision(at) {
		ok := c.all
		if !ok {
			was, err := t.v.RevisionWasAt(ctx, p, repo.Revision(at))
			if err != nil {
				return nil, err
			}
			ok = was
		}
		if ok {
			if b, err := t.v.ReadRevision(ctx, repo.Revision(at)); err == nil {
				return &repo.Blob{Path: p, Revision: repo.Revision(at), Content: b}, nil
			}
		}
	}
	return t.v.Read(ctx, p, at)
}

// resolveName turns a path or a wikilink name into a note's path at HEAD
// (Vault.ResolveName, the one resolver every surface uses), in the vault as the
// caller sees it. asPath (reading at a commit) takes a path as given.
func (t *mcpTools) resolveName(ctx context.Context, c *caller, name string, asPath bool) (note.Path, error) {
	if asPath && repo.ValidPath(name) == nil {
		return note.Path(name), nil
	}
	p, _, err := t.v.ResolveName(ctx, name, c.hidden(ctx))
	var amb *AmbiguousNameError
	switch {
	case errors.As(err, &amb):
		te := errInput("%s", amb.Error())
		te.Candidates = amb.Candidates
		return "", te
	case errors.Is(err, repo.ErrNotFound):
		return "", errInvisible(note.Path(name))
	}
	return p, err
}

// --- list_notes ---

// ListNotesArgs are list_notes' arguments.
type ListNotesArgs struct {
	Folder string `json:"folder,omitempty" jsonschema:"the folder to list, every depth below it (\"\" for the whole vault)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
	Limit  int    `json:"limit,omitempty" jsonschema:"notes per page (default 100, at most 500)"`
	Titles bool   `json:"titles,omitempty" jsonschema:"also read each note's title"`
}

// ListNotesResult is list_notes' answer.
type ListNotesResult struct {
	Folder string    `json:"folder"`
	Commit string    `json:"commit"`
	Notes  []NoteRef `json:"notes"`
	// Total counts the notes under the folder you can see.
	Total      int    `json:"total"`
	NextCursor string `json:"next_cursor,omitempty"`
	Truncated  bool   `json:"truncated"`
}

func (t *mcpTools) listNotes(ctx context.Context, c *caller, in ListNotesArgs) (*ListNotesResult, error) {
	limit, err := bound("limit", in.Limit, 100, 500)
	if err != nil {
		return nil, err
	}
	folder, err := folderArg(in.Folder)
	if err != nil {
		return nil, err
	}
	after := ""
	if in.Cursor != "" {
		// A cursor is the last path of the previous page, under the folder.
		b, err := base64.RawURLEncoding.DecodeString(in.Cursor)
		if err != nil || repo.ValidPath(string(b)) != nil || !note.IsNote(note.Path(b)) || folder != "" && !strings.HasPrefix(string(b), folder+"/") {
			return nil, errInput("cursor %q is not one this tool handed out for folder %q: pass next_cursor unchanged", in.Cursor, folder)
		}
		after = string(b)
	}
	files, head, err := t.v.Files(ctx, "")
	if err != nil {
		return nil, err
	}
	prefix := ""
	if folder != "" {
		prefix = folder + "/"
	}
	var notes []repo.File
	exists := folder == ""
	for _, f := range files {
		if !strings.HasPrefix(string(f.Path), prefix) || !c.visible(ctx, f.Path) {
			continue
		}
		exists = true // a folder holding only notes hidden from the caller does not exist for it
		if note.IsNote(f.Path) && !isNornPath(f.Path) {
			notes = append(notes, f)
		}
	}
	if !exists {
		return nil, errNotFound("", "folder %s does not exist: see the folders with vault_map or list_notes", folder)
	}
	sort.Slice(notes, func(i, j int) bool { return notes[i].Path < notes[j].Path })
	out := &ListNotesResult{Folder: folder, Commit: string(head), Notes: []NoteRef{}, Total: len(notes)}
	i := sort.Search(len(notes), func(i int) bool { return string(notes[i].Path) > after })
	for ; i < len(notes) && len(out.Notes) < limit; i++ {
		r := NoteRef{Path: notes[i].Path, Revision: notes[i].Revision}
		if in.Titles {
			r.Title = note.Stem(r.Path)
			if b, err := t.v.ReadRevision(ctx, r.Revision); err == nil {
				if n, err := note.Parse(r.Path, b); err == nil {
					r.Title = n.Title
				}
			}
		}
		out.Notes = append(out.Notes, r)
	}
	if i < len(notes) && len(out.Notes) > 0 {
		out.Truncated = true
		out.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(out.Notes[len(out.Notes)-1].Path))
	}
	return out, nil
}

// folderArg checks a folder argument (list_notes, search): "" is the whole vault;
// slashes around it are dropped.
func folderArg(f string) (string, error) {
	folder := strings.Trim(strings.TrimSpace(f), "/")
	if folder != "" {
		if err := repo.ValidPath(folder); err != nil {
			return "", errInput("folder: %v", err)
		}
	}
	return folder, nil
}

// --- links and get_context ---

// LinksArgs are links' arguments.
type LinksArgs struct {
	Path  string `json:"path" jsonschema:"the note's path"`
	Limit int    `json:"limit,omitempty" jsonschema:"most entries per list (default 50, at most 500)"`
}

func (t *mcpTools) links(ctx context.Context, c *caller, in LinksArgs) (*Links, error) {
	p, err := notePathArg("path", in.Path)
	if err != nil {
		return nil, err
	}
	limit, err := bound("limit", in.Limit, 50, 500)
	if err != nil {
		return nil, err
	}
	return t.noteLinks(ctx, c, p, limit)
}

// noteLinks is NoteLinks as the caller may see it (graph.Index.LinksHiding): the
// links of the vault without the notes hidden from it. A hidden note answers like
// a missing one.
func (t *mcpTools) noteLinks(ctx context.Context, c *caller, p note.Path, limit int) (*Links, error) {
	if !c.visible(ctx, p) { // for a caller without the private scope, this loads the private set first
		return nil, errInvisible(p)
	}
	l, err := noteLinks(ctx, t.v, p, limit, c.hidden(ctx))
	if errors.Is(err, repo.ErrNotFound) {
		return nil, errInvisible(p)
	}
	return l, err
}

// ContextArgs are get_context's arguments.
type ContextArgs struct {
	Path  string `json:"path" jsonschema:"the note's path"`
	Limit int    `json:"limit,omitempty" jsonschema:"most entries per list (default 20, at most 100)"`
}

// NoteContext is get_context's answer.
type NoteContext struct {
	Path           note.Path      `json:"path"`
	Revision       repo.Revision  `json:"revision"`
	Commit         string         `json:"commit"`
	Title          string         `json:"title"`
	Frontmatter    map[string]any `json:"frontmatter,omitempty"`
	Tags           []string       `json:"tags"`
	Outlinks       []LinkRef      `json:"outlinks"`
	Backlinks      []LinkRef      `json:"backlinks"`
	SameTags       []note.Path    `json:"same_tags"`
	Siblings       []NoteRef      `json:"siblings"`
	OutlinksTotal  int            `json:"outlinks_total"`
	BacklinksTotal int            `json:"backlinks_total"`
	SameTagsTotal  int            `json:"same_tags_total"`
	SiblingsTotal  int            `json:"siblings_total"`
	Truncated      bool           `json:"truncated"`
}

func (t *mcpTools) getContext(ctx context.Context, c *caller, in ContextArgs) (*NoteContext, error) {
	p, err := notePathArg("path", in.Path)
	if err != nil {
		return nil, err
	}
	limit, err := bound("limit", in.Limit, 20, 100)
	if err != nil {
		return nil, err
	}
	l, err := t.noteLinks(ctx, c, p, limit)
	if err != nil {
		return nil, err
	}
	blob, err := t.v.Read(ctx, p, "")
	if err != nil {
		return nil, errInvisible(p)
	}
	out := &NoteContext{Path: p, Revision: blob.Revision, Commit: l.Commit, Title: note.Stem(p), Tags: []string{},
		Outlinks: l.Outgoing, Backlinks: l.Backlinks, SameTags: l.SameTags, Siblings: []NoteRef{},
		OutlinksTotal: l.OutgoingTotal, BacklinksTotal: l.BacklinksTotal, SameTagsTotal: l.SameTagsTotal, Truncated: l.Truncated}
	if n, err := note.Parse(p, blob.Content); err == nil {
		out.Title, out.Frontmatter = n.Title, frontmatterOf(n)
		if n.Tags != nil {
			out.Tags = n.Tags
		}
	}
	entries, err := t.v.List(ctx, p.Folder(), "")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Dir || e.Path == p || !note.IsNote(e.Path) || isNornPath(e.Path) || !c.visible(ctx, e.Path) {
			continue
		}
		out.SiblingsTotal++
		if len(out.Siblings) < limit {
			out.Siblings = append(out.Siblings, NoteRef{Path: e.Path, Revision: e.Revision})
		}
	}
	out.Truncated = out.Truncated || out.SiblingsTotal > len(out.Siblings)
	return out, nil
}

// --- stats ---

// StatsArgs are stats' arguments.
type StatsArgs struct {
	Limit  int `json:"limit,omitempty" jsonschema:"rows per table (default 50, at most 500)"`
	Offset int `json:"offset,omitempty" jsonschema:"skip this many rows of each table: the folders_next_offset, tags_next_offset or edge_types_next_offset of the previous page"`
}

// stats is VaultStats as the caller may see it: notes hidden from it (and their
// links, tags and folders) are not counted.
func (t *mcpTools) stats(ctx context.Context, c *caller, in StatsArgs) (*Stats, error) {
	limit, err := bound("limit", in.Limit, 50, 500)
	if err != nil {
		return nil, err
	}
	if in.Offset < 0 {
		return nil, errInput("offset must be 0 or more, not %d", in.Offset)
	}
	if _, err := c.privateAtHead(ctx); err != nil {
		return nil, fmt.Errorf("stats: %w", err) // fail closed
	}
	return vaultStats(ctx, t.v, limit, in.Offset, c.hidden(ctx))
}
