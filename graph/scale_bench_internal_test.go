package graph

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/norn-vault/norn/note"
)

// scaleNotes makes n notes from the paragraphs of obsidian-hub, as
// ../shared/bench/scale_vault.py does: folders of at most 500 notes, each note a
// title, three paragraphs picked by a fixed stride and two links to other notes.
func scaleNotes(tb testing.TB, n int) []rawNote {
	tb.Helper()
	root := filepath.Join(corporaDir, "vault-obsidian-hub", "notes")
	needDir(tb, root)
	var paras [][]byte
	for _, r := range rawVault(tb, root) {
		for _, p := range bytes.Split(r.raw, []byte("\n\n")) {
			if p = bytes.TrimSpace(p); len(p) >= 80 && len(p) <= 1200 && p[0] != '-' && p[0] != '#' && p[0] != '|' {
				paras = append(paras, p)
			}
		}
	}
	notes := make([]rawNote, n)
	for i := range notes {
		var b bytes.Buffer
		fmt.Fprintf(&b, "# Note %d\n\n", i)
		for k := range 3 {
			b.Write(paras[(i*7+k*7919)%len(paras)])
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "See [[n%d]] and [[n%d]].\n", (i*31+1)%n, (i*97+5)%n)
		notes[i] = rawNote{note.Path(fmt.Sprintf("f%03d/n%d.md", i/500, i)), b.Bytes()}
	}
	return notes
}

// BenchmarkUpdate_Scale is the durable write's index part at 1k, 10k and 100k
// notes: one op re-puts one note (a line appended) in one Update, against the
// index of the whole generated vault. Its cost should not grow with the vault.
func BenchmarkUpdate_Scale(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) {
			notes := scaleNotes(b, n)
			ix, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			if err := ix.Rebuild(context.Background(), "c0", DocRecords(parsedSeq(notes)), nil); err != nil {
				b.Fatal(err)
			}
			i := 0
			put := func() {
				r := notes[(i*7919)%n]
				raw := fmt.Appendf(append([]byte(nil), r.raw...), "\nedited v%d\n", i)
				nt, err := note.Parse(r.path, raw)
				if err != nil {
					b.Fatal(err)
				}
				i++
				if err := ix.Update(context.Background(), DocBatch(fmt.Sprint("c", i), []Doc{{Path: r.path, Revision: fmt.Sprint(i), Note: nt}}, nil)); err != nil {
					b.Fatal(err)
				}
			}
			put() // the first Update reads the link graph: a server has it already
			b.ReportAllocs()
			for b.Loop() {
				put()
			}
		})
	}
}
