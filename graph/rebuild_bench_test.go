package graph

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/note"
)

// BenchmarkRebuild rebuilds the index of obsidian-hub (6,571 notes, 14.8 MB) from
// the raw files in memory: one op parses every note (inside the iterator, as the
// git bridge will), writes the whole index as one sstable and ingests it.
func BenchmarkRebuild(b *testing.B) {
	root := filepath.Join(corporaDir, "vault-obsidian-hub", "notes")
	needDir(b, root)
	notes := rawVault(b, root)
	size := 0
	for _, n := range notes {
		size += len(n.raw)
	}
	ix, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	b.Run(fmt.Sprintf("notes=%d", len(notes)), func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(size))
		for b.Loop() {
			if err := ix.Rebuild(context.Background(), "c1", DocRecords(parsedSeq(notes)), nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(dirSize(b, ix.dir)), "index-bytes")
	})
}

// dirSize returns the bytes of the files under dir. A file that goes while it
// walks (pebble deletes obsolete tables in the background) counts for nothing.
func dirSize(tb testing.TB, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			var info fs.FileInfo
			if info, err = d.Info(); err == nil {
				n += info.Size()
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkUpdate_HubNote catches up after an edit of a hub note with 1,000
// outgoing links (to notes of obsidian-hub, one per line, against the index of
// the whole vault): edit=append adds a line after the links (no linking line
// changes, but every target's inbound field is worked out again), edit=lines
// changes the text of every linking line (every target's inbound field changes).
func BenchmarkUpdate_HubNote(b *testing.B) {
	root := filepath.Join(corporaDir, "vault-obsidian-hub", "notes")
	needDir(b, root)
	docs := vaultDocs(b, root, nil)
	hub := func(v int, lines bool) Doc {
		var sb strings.Builder
		sb.WriteString("# Hub\n\n")
		for i := range 1000 {
			word := "about"
			if lines {
				word = fmt.Sprintf("version%d", v)
			}
			fmt.Fprintf(&sb, "- [[%s]] %s this one\n", strings.TrimSuffix(string(docs[i*len(docs)/1000].Path), ".md"), word)
		}
		if !lines {
			fmt.Fprintf(&sb, "\nedited v%d\n", v)
		}
		n, err := note.Parse("hub.md", []byte(sb.String()))
		if err != nil {
			b.Fatal(err)
		}
		return Doc{Path: "hub.md", Revision: fmt.Sprint(v), Note: n}
	}
	ix := buildIndex(b, append(docs, hub(0, false)), Options{})
	for _, lines := range []bool{false, true} {
		name := "edit=append"
		if lines {
			name = "edit=lines"
		}
		b.Run("links=1000/"+name, func(b *testing.B) {
			b.ReportAllocs()
			i := 1
			for b.Loop() {
				if err := ix.Update(context.Background(), DocBatch(fmt.Sprint(i), []Doc{hub(i, lines)}, nil)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkUpdate re-puts notes of obsidian-hub against the index of the whole
// vault, in one Update: 100 or 1 notes, edited at the end (a line appended: most
// postings stay as they were and are skipped) or at the start of the body (a
// word inserted before everything: every body position shifts, the worst case).
func BenchmarkUpdate(b *testing.B) {
	root := filepath.Join(corporaDir, "vault-obsidian-hub", "notes")
	needDir(b, root)
	docs := vaultDocs(b, root, nil)
	ix := buildIndex(b, docs, Options{})
	edit := func(d Doc, v int, atStart bool) Doc {
		raw := append([]byte(nil), d.Note.Raw[:d.Note.BodyStart]...)
		if atStart {
			raw = append(raw, fmt.Sprintf("edited%d ", v)...)
			raw = append(raw, d.Note.Raw[d.Note.BodyStart:]...)
		} else {
			raw = append(raw, d.Note.Raw[d.Note.BodyStart:]...)
			raw = append(raw, fmt.Sprintf("\nedited v%d\n", v)...)
		}
		n, err := note.Parse(d.Path, raw)
		if err != nil {
			n = plainNote(d.Path, raw)
		}
		return Doc{Path: d.Path, Revision: fmt.Sprint(v), Note: n}
	}
	for _, where := range []string{"end", "start"} {
		var batches [2][]Doc
		for v := range batches {
			for i := range 100 {
				batches[v] = append(batches[v], edit(docs[i*len(docs)/100], v, where == "start"))
			}
		}
		for _, n := range []int{100, 1} {
			b.Run(fmt.Sprintf("notes=%d/edit=%s", n, where), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if err := ix.Update(context.Background(), DocBatch(fmt.Sprint(i), batches[i%2][:n], nil)); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}
