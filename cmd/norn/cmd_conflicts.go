package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/sync/remote"
)

// conflictEntry is one open conflict sibling at HEAD.
type conflictEntry struct {
	Sibling note.Path `json:"sibling"`
	Of      string    `json:"of"`
	Machine string    `json:"machine,omitempty"`
	Date    string    `json:"date,omitempty"`
}

// runConflicts lists the conflict siblings a sync left at HEAD: notes whose
// frontmatter names the note they conflict with (note.ConflictOfKey), files
// named "NAME (conflict DATE MACHINE).EXT", and theirs' versions of .norn/ files
// under .norn/conflicts/ (remote.ConflictedRecord).
func runConflicts(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("conflicts", g)
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	files, _, err := v.Files(ctx, "")
	if err != nil {
		return err
	}
	out := []conflictEntry{}
	for _, f := range files {
		if _, ok := note.ConflictOrigin(f.Path); !ok {
			continue
		}
		c := conflictEntry{Sibling: f.Path}
		if rec, ok := remote.ConflictedRecord(f.Path); ok {
			c.Of = string(rec)
			c.Date, c.Machine, _ = note.ConflictTag(f.Path)
		} else if note.IsNote(f.Path) {
			b, err := v.Read(ctx, f.Path, "")
			if err != nil {
				return err
			}
			n, err := note.Parse(f.Path, b.Content)
			if err != nil || n.Frontmatter == nil || n.Frontmatter.Fields[note.ConflictOfKey] == nil {
				continue
			}
			c.Of = fmt.Sprint(n.Frontmatter.Fields[note.ConflictOfKey])
			c.Machine = fmt.Sprint(n.Frontmatter.Fields[note.ConflictMachineKey])
			c.Date = fmt.Sprint(n.Frontmatter.Fields[note.ConflictDateKey])
		}
		out = append(out, c)
	}
	if g.json {
		return printJSON(e, map[string]any{"conflicts": out})
	}
	if len(out) == 0 {
		fmt.Fprintln(e.stdout, "no open conflicts")
		return nil
	}
	for _, c := range out {
		if c.Of != "" {
			fmt.Fprintf(e.stdout, "%s\tconflicts with %s (%s, %s)\n", c.Sibling, c.Of, c.Machine, c.Date)
		} else {
			fmt.Fprintf(e.stdout, "%s\n", c.Sibling)
		}
	}
	fmt.Fprintln(e.stdout, "resolve: edit the note to keep what you want, then norn archive SIBLING --reason superseded")
	return nil
}
