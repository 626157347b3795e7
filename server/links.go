package server

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// LinkRef is one link occurrence.
type LinkRef struct {
	// From is the note the link is in; To the note it resolves to ("" when broken or
	// ambiguous). Target is the link as written (without alias or fragment).
	From       note.Path   `json:"from"`
	To         note.Path   `json:"to,omitempty"`
	Target     string      `json:"target"`
	Heading    string      `json:"heading,omitempty"`
	Kind       string      `json:"kind"`
	Line       int         `json:"line"`
	Status     string      `json:"status"`
	Candidates []note.Path `json:"candidates,omitempty"`
	// HeadingMissing: the link names a heading the target does not have.
	HeadingMissing bool `json:"heading_missing,omitempty"`
	// Context is the line the link is on (backlinks), cut at 300 bytes.
	Context string `json:"context,omitempty"`
}

// Links is what `links NOTE` answers.
type Links struct {
	Commit    string      `json:"commit"`
	Note      note.Path   `json:"note"`
	Outgoing  []LinkRef   `json:"outgoing"`
	Backlinks []LinkRef   `json:"backlinks"`
	SameTags  []note.Path `json:"same_tags"`
	// Truncated says a list was cut at the limit; the totals count everything.
	Truncated      bool `json:"truncated,omitempty"`
	OutgoingTotal  int  `json:"outgoing_total"`
	BacklinksTotal int  `json:"backlinks_total"`
	SameTagsTotal  int  `json:"same_tags_total"`
}

// NoteLinks returns a note's outgoing links (resolved, broken, ambiguous), its
// backlinks with their context lines, and the notes sharing a tag with it, each list
// cut at limit. It reads every note at HEAD.
func NoteLinks(ctx context.Context, v *repo.Vault, p note.Path, limit int) (*Links, error) {
	if limit <= 0 {
		limit = 50
	}
	vn, err := loadNotes(ctx, v)
	if err != nil {
		return nil, fmt.Errorf("links %s: %w", p, err)
	}
	i := sort.Search(len(vn.notes), func(i int) bool { return vn.notes[i].Path >= p })
	if i == len(vn.notes) || vn.notes[i].Path != p {
		return nil, fmt.Errorf("links %s: %w: no such note at HEAD", p, repo.ErrNotFound)
	}
	self := vn.notes[i]
	out := &Links{Commit: vn.commit, Note: p, Outgoing: []LinkRef{}, Backlinks: []LinkRef{}, SameTags: []note.Path{}}
	ref := func(n *note.Note, l note.Link) LinkRef {
		r := vn.resolver.Resolve(n.Path, l)
		lr := LinkRef{From: n.Path, Target: l.Target, Heading: l.Heading, Kind: string(l.Kind), Line: l.Line,
			Status: string(r.Status), Candidates: r.Candidates}
		if r.Status == graph.LinkResolved {
			lr.To = r.Target
			lr.HeadingMissing = l.Heading != "" && !r.HeadingFound
		}
		return lr
	}
	for _, l := range self.Links {
		out.OutgoingTotal++
		if len(out.Outgoing) < limit {
			out.Outgoing = append(out.Outgoing, ref(self, l))
		}
	}
	tags := map[string]bool{}
	for _, t := range self.Tags {
		tags[t] = true
	}
	for _, n := range vn.notes {
		for _, l := range n.Links {
			if n.Path == p && l.Target == "" {
				continue // a heading link within the note itself
			}
			lr := ref(n, l)
			if lr.To != p {
				continue
			}
			out.BacklinksTotal++
			if len(out.Backlinks) < limit {
				lr.Context = lineAt(n.Raw, l.Start)
				out.Backlinks = append(out.Backlinks, lr)
			}
		}
		if n.Path == p {
			continue
		}
		for _, t := range n.Tags {
			if tags[t] {
				out.SameTagsTotal++
				if len(out.SameTags) < limit {
					out.SameTags = append(out.SameTags, n.Path)
				}
				break
			}
		}
	}
	out.Truncated = out.OutgoingTotal > len(out.Outgoing) || out.BacklinksTotal > len(out.Backlinks) || out.SameTagsTotal > len(out.SameTags)
	return out, nil
}

// lineAt returns the line of raw holding offset off, trimmed and cut at 300 bytes.
func lineAt(raw []byte, off int) string {
	off = min(max(off, 0), len(raw))
	start := bytes.LastIndexByte(raw[:off], '\n') + 1
	end := bytes.IndexByte(raw[off:], '\n')
	if end < 0 {
		end = len(raw)
	} else {
		end += off
	}
	line := bytes.TrimSpace(raw[start:end])
	if len(line) > 300 {
		line = line[:300]
		for len(line) > 0 && line[len(line)-1]&0xc0 == 0x80 {
			line = line[:len(line)-1] // do not cut a UTF-8 sequence
		}
		if len(line) > 0 && line[len(line)-1] >= 0xc0 {
			line = line[:len(line)-1]
		}
	}
	return string(line)
}
