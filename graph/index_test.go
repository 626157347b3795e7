package graph_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

func TestIndex_Lifecycle(t *testing.T) {
	dir := t.TempDir()
	ix, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Commit() != "" || ix.Len() != 0 {
		t.Fatalf("new index: commit %q len %d", ix.Commit(), ix.Len())
	}
	if res := search(t, ix, "bloom", graph.SearchOptions{}); res.Total != 0 || res.Hits == nil {
		t.Fatalf("empty index: %+v", res)
	}
	var progress []int
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(mkDocs(t, vault))), func(n int) { progress = append(progress, n) }); err != nil {
		t.Fatal(err)
	}
	if len(progress) == 0 || progress[len(progress)-1] != len(vault) {
		t.Errorf("progress %v, want it to end at %d", progress, len(vault))
	}
	if ix.Commit() != "c1" || ix.Len() != len(vault) {
		t.Errorf("after rebuild: commit %q len %d", ix.Commit(), ix.Len())
	}
	before := paths(search(t, ix, "bloom hash", graph.SearchOptions{}))
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); !errors.Is(err, graph.ErrClosed) {
		t.Errorf("second close: %v", err)
	}
	if _, err := ix.Search(context.Background(), "bloom", graph.SearchOptions{}); !errors.Is(err, graph.ErrClosed) {
		t.Errorf("search after close: %v", err)
	}
	if err := ix.Update(context.Background(), graph.DocBatch("c2", nil, nil)); !errors.Is(err, graph.ErrClosed) {
		t.Errorf("update after close: %v", err)
	}
	// Reopen: everything persisted.
	ix, err = graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Commit() != "c1" || ix.Len() != len(vault) {
		t.Errorf("reopened: commit %q len %d", ix.Commit(), ix.Len())
	}
	if after := paths(search(t, ix, "bloom hash", graph.SearchOptions{})); !slices.Equal(before, after) {
		t.Errorf("reopened results %v, want %v", after, before)
	}
}

func TestIndex_Update(t *testing.T) {
	ix, dir := openIndex(t, graph.Options{})
	ctx := context.Background()
	docs := mkDocs(t, vault)
	if err := ix.Update(ctx, graph.DocBatch("c1", docs, nil)); err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, ix, "ring clockwise", graph.SearchOptions{})); !slices.Equal(got, []string{"tech/hashing/consistent-hashing.md"}) {
		t.Fatalf("before re-put: %v", got)
	}
	// Re-put with new text: the old words are gone, the new ones found.
	re := mkDocs(t, map[string]string{"tech/hashing/consistent-hashing.md": "# Consistent hashing\n\nRendezvous hashing picks the highest score.\n"})
	re[0].Revision = "r2"
	if err := ix.Update(ctx, graph.DocBatch("c2", re, []note.Path{"life/zurich.md", "no/such.md"})); err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, ix, "ring clockwise", graph.SearchOptions{})); len(got) != 0 {
		t.Errorf("old words still match: %v", got)
	}
	res := search(t, ix, "rendezvous", graph.SearchOptions{})
	if len(res.Hits) != 1 || res.Hits[0].Revision != "r2" || res.Hits[0].Title != "Consistent hashing" {
		t.Errorf("new words: %+v", res.Hits)
	}
	if got := paths(search(t, ix, "zurich", graph.SearchOptions{})); len(got) != 0 {
		t.Errorf("removed note still found: %v", got)
	}
	if ix.Len() != len(vault)-1 || ix.Commit() != "c2" {
		t.Errorf("len %d commit %q", ix.Len(), ix.Commit())
	}
	// Bad batches change nothing.
	for _, bad := range []struct {
		put []graph.Doc
		rm  []note.Path
	}{
		{put: []graph.Doc{docs[0], docs[0]}},
		{put: docs[:1], rm: []note.Path{docs[0].Path}},
		{put: []graph.Doc{{Path: ""}}},
	} {
		if err := ix.Update(ctx, graph.DocBatch("bad", bad.put, bad.rm)); !errors.Is(err, graph.ErrInvalidBatch) {
			t.Errorf("update %+v: %v, want ErrInvalidBatch", bad, err)
		}
	}
	if ix.Commit() != "c2" {
		t.Errorf("a failed update moved the commit to %q", ix.Commit())
	}
	ix.Close()
	ix2, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if ix2.Len() != len(vault)-1 || ix2.Commit() != "c2" || len(search(t, ix2, "rendezvous", graph.SearchOptions{}).Hits) != 1 {
		t.Errorf("reopened after updates: len %d commit %q", ix2.Len(), ix2.Commit())
	}
}

// TestIndex_UpdateEqualsRebuild applies many random commits (puts, re-puts,
// removes, large enough to split posting blocks; the last one large enough to be
// analysed and merged in parallel) and checks, every eighth commit and after
// the last, that the index answers exactly like one rebuilt from scratch with
// the same notes, showing private notes and hiding them. Some re-puts keep every linking line (a line appended,
// or only the note's privacy flipped: catch-up may skip its targets' inbound
// fields only when their lines stay) and some change one linking line.
func TestIndex_UpdateEqualsRebuild(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := strings.Fields("alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega " +
		"bloom filter hash ring node graph edge vertex tree heap stack queue")
	// Notes link to one another (wikilinks, some with display text, Markdown
	// links, typed edges), so their inbound fields change with every commit.
	mkNote := func(i, v int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: Note %d v%d\ntags: [t%d]\n", i, v, i%7)
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "edges:\n  - to: \"[[n%d]]\"\n    type: supports\n    why: %s %s explains the %s\n",
				rng.IntN(400), vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))])
		}
		fmt.Fprintf(&b, "---\n# Heading %d\n\n", i)
		for w := range 20 + rng.IntN(30) {
			if w%8 == 7 {
				b.WriteString("\n")
			}
			switch rng.IntN(12) {
			case 0:
				fmt.Fprintf(&b, "[[n%d]] ", rng.IntN(400))
			case 1:
				fmt.Fprintf(&b, "[[n%d|%s]] ", rng.IntN(400), vocab[rng.IntN(len(vocab))])
			case 2:
				k := rng.IntN(400)
				fmt.Fprintf(&b, "[%s](../f%d/n%d.md) ", vocab[rng.IntN(len(vocab))], k%5, k)
			}
			b.WriteString(vocab[rng.IntN(len(vocab))] + " ")
		}
		return b.String() + "\n"
	}
	// edit re-puts a live note: a line appended, or a word added to its first
	// linking line (each a third of the time; else it is returned as it is).
	edit := func(text string, c int) string {
		switch rng.IntN(3) {
		case 0:
			return text + fmt.Sprintf("edited v%d %s\n", c, vocab[rng.IntN(len(vocab))])
		case 1:
			lines := strings.Split(text, "\n")
			for k, l := range lines {
				if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "  ") && (strings.Contains(l, "[[") || strings.Contains(l, "](")) {
					lines[k] = l + vocab[rng.IntN(len(vocab))] + " "
					break
				}
			}
			return strings.Join(lines, "\n")
		}
		return text
	}
	ix, _ := openIndex(t, inboundOn())
	live, private := map[string]string{}, map[string]bool{}
	docs := func(notes map[string]string) []graph.Doc {
		ds := mkDocs(t, notes)
		for i := range ds {
			ds[i].Private = private[string(ds[i].Path)]
		}
		return ds
	}
	inbound := 0 // hits the inbound field scored for
	for c := range 40 {
		put := map[string]string{}
		var rm []note.Path
		n := 1 + rng.IntN(40)
		if c == 39 {
			n = 400 // one large commit: analysed and merged on several goroutines
		}
		for range n {
			i := rng.IntN(400)
			p := fmt.Sprintf("f%d/n%d.md", i%5, i)
			if _, ok := live[p]; ok && rng.IntN(4) == 0 {
				if _, putting := put[p]; !putting {
					rm = append(rm, note.Path(p))
					delete(live, p)
				}
				continue
			}
			switch text, ok := live[p]; {
			case ok && rng.IntN(2) == 0:
				put[p] = edit(text, c)
				if put[p] == text {
					private[p] = !private[p]
				}
			default:
				put[p] = mkNote(i, c)
				private[p] = rng.IntN(5) == 0
			}
			live[p] = put[p]
		}
		rm = slices.DeleteFunc(rm, func(p note.Path) bool { _, ok := put[string(p)]; return ok })
		if err := ix.Update(ctx, graph.DocBatch(fmt.Sprintf("c%d", c), docs(put), rm)); err != nil {
			t.Fatal(err)
		}
		if c%8 == 7 || c == 39 { // a field left wrong is caught before a later commit mends it
			inbound += compareRebuilt(t, ix, c, docs(live), vocab)
		}
	}
	if inbound == 0 {
		t.Error("no hit was scored by the inbound field: the test shows nothing about it")
	}
}

// compareRebuilt checks that ix answers the queries of TestIndex_UpdateEqualsRebuild
// (over vocab), hiding private notes and showing them, like an index rebuilt
// from live after commit c, and returns how many hits the inbound field scored.
func compareRebuilt(t *testing.T, ix *graph.Index, c int, live []graph.Doc, vocab []string) int {
	t.Helper()
	fresh, _ := openIndex(t, inboundOn())
	if err := fresh.Rebuild(context.Background(), "r", graph.DocRecords(seq(live)), nil); err != nil {
		t.Fatal(err)
	}
	if ix.Len() != len(live) || fresh.Len() != len(live) {
		t.Fatalf("after c%d: len %d and %d, want %d", c, ix.Len(), fresh.Len(), len(live))
	}
	inbound := 0
	for _, q := range append(vocab, "alpha beta", `"hash ring"`, "tag:t3", "tag:t3 bloom", "gamma -delta", "heading", "note v39", "lamb", "explains", "n17", "edited") {
		for _, hide := range []bool{false, true} {
			a := search(t, ix, q, graph.SearchOptions{Limit: 1000, HidePrivate: hide})
			b := search(t, fresh, q, graph.SearchOptions{Limit: 1000, HidePrivate: hide})
			for _, h := range a.Hits {
				if h.Inbound != nil {
					inbound++
				}
			}
			if a.Total != b.Total {
				t.Errorf("after c%d: %q (hide %v): total %d incremental vs %d rebuilt", c, q, hide, a.Total, b.Total)
				continue
			}
			for i := range a.Hits {
				ha, hb := a.Hits[i], b.Hits[i]
				if ha.Path != hb.Path || fmt.Sprintf("%.9f", ha.Score) != fmt.Sprintf("%.9f", hb.Score) || ha.Snippet != hb.Snippet || ha.Line != hb.Line ||
					!reflect.DeepEqual(ha.Inbound, hb.Inbound) {
					t.Errorf("after c%d: %q (hide %v) hit %d: %s %.6f %q vs %s %.6f %q", c, q, hide, i, ha.Path, ha.Score, ha.Snippet, hb.Path, hb.Score, hb.Snippet)
					break
				}
			}
		}
	}
	return inbound
}

func TestIndex_Rebuild_Error(t *testing.T) {
	ix, dir := openIndex(t, graph.Options{})
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(mkDocs(t, vault))), nil); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	failing := func(yield func(graph.Doc, error) bool) {
		docs := mkDocs(t, map[string]string{"a.md": "alpha\n"})
		if yield(docs[0], nil) {
			yield(graph.Doc{}, boom)
		}
	}
	if err := ix.Rebuild(context.Background(), "c9", graph.DocRecords(iter.Seq2[graph.Doc, error](failing)), nil); !errors.Is(err, boom) {
		t.Fatalf("rebuild: %v, want boom", err)
	}
	if ix.Commit() != "c1" || ix.Len() != len(vault) || len(search(t, ix, "bloom", graph.SearchOptions{}).Hits) == 0 {
		t.Errorf("a failed rebuild changed the index: commit %q len %d", ix.Commit(), ix.Len())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ix.Rebuild(ctx, "c9", graph.DocRecords(seq(mkDocs(t, vault))), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled rebuild: %v", err)
	}
	// The rebuild's sstables and spill file are gone whether it failed or not.
	if tmp, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmp) > 0 {
		t.Errorf("rebuild left %v", tmp)
	}
}

// TestOpen_RemovesCrashedRebuildFiles: the files of a rebuild a crash cut short
// (up to the size of the index) are removed when the index is next opened.
func TestOpen_RemovesCrashedRebuildFiles(t *testing.T) {
	ix, dir := openIndex(t, graph.Options{})
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(mkDocs(t, vault))), nil); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	left := []string{"norn-rebuild-text.sst.tmp", "norn-rebuild-contexts.tmp"}
	for _, f := range left {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("half written"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, f := range left {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after open: %v", f, err)
		}
	}
	if ix.Commit() != "c1" || len(search(t, ix, "bloom", graph.SearchOptions{}).Hits) == 0 {
		t.Errorf("index after open: commit %q", ix.Commit())
	}
}

func TestOpen_Locked(t *testing.T) {
	ix, dir := openIndex(t, graph.Options{})
	_ = ix
	if _, err := graph.Open(dir, graph.Options{}); !errors.Is(err, graph.ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
}

func TestOpen_Format(t *testing.T) {
	dir := t.TempDir()
	ix, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	// Other stop words: the postings would not agree with the queries.
	if _, err := graph.Open(dir, graph.Options{StopWords: []string{"x"}}); !errors.Is(err, graph.ErrFormat) {
		t.Errorf("other stop words: %v, want ErrFormat", err)
	}
	ix, err = graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatalf("same settings again: %v", err)
	}
	ix.Close()
}

func TestOpen_Corrupt(t *testing.T) {
	for _, target := range []string{"MANIFEST-*", "*.sst"} {
		t.Run(target, func(t *testing.T) {
			dir := t.TempDir()
			ix, err := graph.Open(dir, graph.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(mkDocs(t, vault))), nil); err != nil {
				t.Fatal(err)
			}
			ix.Close()
			files, _ := filepath.Glob(filepath.Join(dir, target))
			if len(files) == 0 {
				t.Fatalf("no %s in %s", target, dir)
			}
			for _, f := range files {
				if err := os.WriteFile(f, []byte(strings.Repeat("garbage!", 512)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ix, err = graph.Open(dir, graph.Options{})
			if !errors.Is(err, graph.ErrCorrupt) {
				if ix != nil {
					ix.Close()
				}
				t.Fatalf("open with garbage %s: %v, want ErrCorrupt", target, err)
			}
			// The documented recovery: remove the directory, open, rebuild.
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			ix, err = graph.Open(dir, graph.Options{})
			if err != nil {
				t.Fatalf("open after removing: %v", err)
			}
			defer ix.Close()
			if ix.Len() != 0 {
				t.Errorf("fresh index has %d docs", ix.Len())
			}
		})
	}
}

// TestIndex_DamagedBlock: bytes flipped inside a table's blocks (a checksum
// mismatch pebble finds when it reads the block) make Open or the read that meets
// them fail with ErrCorrupt; nothing panics (pebble's default for a damaged block is
// Logger.Fatalf), and Close still works.
func TestIndex_DamagedBlock(t *testing.T) {
	ctx := context.Background()
	pristine := t.TempDir()
	ix, err := graph.Open(pristine, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Enough notes that the postings fill many blocks, most of them read only by
	// the searches for their words.
	rng := rand.New(rand.NewPCG(7, 7))
	notes := map[string]string{}
	for i := range 600 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Note %d\n\n", i)
		for range 60 {
			fmt.Fprintf(&b, "w%d ", rng.IntN(2000))
		}
		notes[fmt.Sprintf("n/%03d.md", i)] = b.String()
	}
	if err := ix.Rebuild(ctx, "c1", graph.DocRecords(seq(mkDocs(t, notes))), nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.Verify(ctx); err != nil {
		t.Fatalf("verify a sound index: %v", err)
	}
	ix.Close()
	tables, _ := filepath.Glob(filepath.Join(pristine, "*.sst"))
	if len(tables) == 0 {
		t.Fatal("no tables")
	}
	var queries []string // every word, 50 to a query
	for w := 0; w < 2000; w += 50 {
		var q []string
		for i := w; i < w+50; i++ {
			q = append(q, fmt.Sprintf("w%d", i))
		}
		queries = append(queries, strings.Join(q, " "))
	}
	failed := 0
	for _, table := range tables {
		for _, at := range []float64{0.01, 0.3, 0.6} {
			t.Run(fmt.Sprintf("%s@%.2f", filepath.Base(table), at), func(t *testing.T) {
				dir := t.TempDir()
				if err := os.CopyFS(dir, os.DirFS(pristine)); err != nil {
					t.Fatal(err)
				}
				f := filepath.Join(dir, filepath.Base(table))
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				off := int(at * float64(len(b)))
				b[off] ^= 0xAA
				b[off+1] ^= 0x55
				if err := os.WriteFile(f, b, 0o644); err != nil {
					t.Fatal(err)
				}
				ix, err := graph.Open(dir, graph.Options{})
				if err != nil {
					if !errors.Is(err, graph.ErrCorrupt) {
						t.Fatalf("open: %v, want ErrCorrupt", err)
					}
					failed++
					return
				}
				defer func() {
					if err := ix.Close(); err != nil {
						t.Errorf("close: %v", err)
					}
				}()
				if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
					// The table was obsolete (a compaction's input pebble had not
					// yet removed when the pristine index closed); Open deleted it.
					return
				}
				if err := ix.Verify(ctx); !errors.Is(err, graph.ErrCorrupt) {
					t.Errorf("verify: %v, want ErrCorrupt", err)
				}
				for _, q := range queries {
					if _, err := ix.Search(ctx, q, graph.SearchOptions{Limit: 100}); err != nil {
						if !errors.Is(err, graph.ErrCorrupt) {
							t.Fatalf("search %q: %v, want ErrCorrupt", q, err)
						}
						failed++
						return
					}
				}
			})
		}
	}
	if failed == 0 {
		t.Fatal("no damage was found: the test damaged nothing that is read")
	}
}

// TestIndex_Concurrent searches from several goroutines while updates and a
// rebuild run (meaningful under -race): every search sees a whole state.
func TestIndex_Concurrent(t *testing.T) {
	ix := fixtureIndex(t, graph.Options{})
	ctx := context.Background()
	docs := mkDocs(t, vault)
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 3 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				res, err := ix.Search(ctx, "bloom hash", graph.SearchOptions{})
				if err != nil {
					errs <- err
					return
				}
				if res.Total == 0 {
					errs <- fmt.Errorf("a search saw an empty index")
					return
				}
			}
		}()
	}
	for i := range 20 {
		if err := ix.Update(ctx, graph.DocBatch(fmt.Sprint("u", i), docs[i%len(docs):i%len(docs)+1], nil)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Rebuild(ctx, "r", graph.DocRecords(seq(docs)), nil); err != nil {
		t.Fatal(err)
	}
	close(done)
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
