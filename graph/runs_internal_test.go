package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/norn-vault/norn/note"
)

// runsNotes makes n linked notes over a small vocabulary, so that most terms
// have postings in more than one block (blockFill) and every note has an
// inbound field; a few are private, a few are attachments.
func runsNotes(t *testing.T, n int) []Doc {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := strings.Fields("alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega " +
		"bloom filter hash ring node graph edge vertex tree heap stack queue merge spill run")
	var docs []Doc
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: Note %d\ntags: [t%d]\n---\n# Heading %s\n\n", i, i%7, vocab[i%len(vocab)])
		for w := range 30 + rng.IntN(60) {
			if w%9 == 8 {
				fmt.Fprintf(&b, "\nsee [[n%d]] on %s ", rng.IntN(n), vocab[rng.IntN(len(vocab))])
			}
			b.WriteString(vocab[rng.IntN(len(vocab))] + " ")
		}
		p := note.Path(fmt.Sprintf("f%d/n%d.md", i%5, i))
		nt, err := note.Parse(p, []byte(b.String()+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, Doc{Path: p, Revision: fmt.Sprintf("r%d", i), Note: nt, Private: i%11 == 0})
		if i%50 == 0 {
			docs = append(docs, Doc{Path: note.Path(fmt.Sprintf("img/a%d.png", i)), Revision: "b"})
		}
	}
	return docs
}

// searchKeys returns every search key and value of ix, in order.
func searchKeys(t *testing.T, ix *Index) [][2][]byte {
	t.Helper()
	it, err := ix.db.NewIter(&pebble.IterOptions{LowerBound: []byte(prefixGraph), UpperBound: searchEnd})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out [][2][]byte
	for it.First(); it.Valid(); it.Next() {
		out = append(out, [2][]byte{bytes.Clone(it.Key()), bytes.Clone(it.Value())})
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIndex_Rebuild_SpillEqualsInMemory rebuilds the same notes with postings
// held in one run and spilled in a run per note (merged back from disk): the two
// indexes hold exactly the same keys and values, and so does a second rebuild
// (doc ids follow the records' order, not the analysers' scheduling).
func TestIndex_Rebuild_SpillEqualsInMemory(t *testing.T) {
	ctx := context.Background()
	docs := runsNotes(t, 700)
	w := DefaultWeights()
	w.Inbound.Weight = 1
	build := func(runBytes int) ([][2][]byte, int) {
		var logs bytes.Buffer
		ix, err := Open(t.TempDir(), Options{Weights: w, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		ix.runBytes = runBytes
		if err := ix.Rebuild(ctx, "c1", DocRecords(sliceSeq(docs)), nil); err != nil {
			t.Fatal(err)
		}
		var runs int
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "index rebuilt") {
				if _, err := fmt.Sscanf(l[strings.Index(l, " runs=")+1:], "runs=%d", &runs); err != nil {
					t.Fatalf("log line %q: %v", l, err)
				}
			}
		}
		return searchKeys(t, ix), runs
	}
	mem, memRuns := build(defaultRunBytes)
	spilled, spilledRuns := build(1)
	again, _ := build(defaultRunBytes)
	if memRuns != 1 || spilledRuns < 700 {
		t.Fatalf("runs: %d in memory, %d spilled; want 1 and at least one a note", memRuns, spilledRuns)
	}
	blocks := 0
	for _, kv := range mem {
		if _, last, ok := parseTermKey(kv[0]); ok && bytes.HasPrefix(kv[0], []byte(prefixTerm)) && last != lastBlock {
			blocks++ // a term's block other than its last
		}
	}
	if blocks == 0 {
		t.Fatal("no term has more than one block: the test shows nothing about merging blocks")
	}
	for name, got := range map[string][][2][]byte{"spilled": spilled, "rebuilt again": again} {
		if len(got) != len(mem) {
			t.Errorf("%s: %d keys, in memory %d", name, len(got), len(mem))
			continue
		}
		for i := range got {
			if !bytes.Equal(got[i][0], mem[i][0]) || !bytes.Equal(got[i][1], mem[i][1]) {
				t.Errorf("%s: key %d: %q = %x, in memory %q = %x", name, i, got[i][0], got[i][1], mem[i][0], mem[i][1])
				break
			}
		}
	}
}

// FuzzPostingRuns merges a damaged or made-up run: it never panics, and what
// it cannot read is errBadRun.
func FuzzPostingRuns(f *testing.F) {
	good := func(entries map[uint32][]termEntry) []byte {
		s, err := createSpill(filepath.Join(f.TempDir(), "seed"))
		if err != nil {
			f.Fatal(err)
		}
		defer s.remove()
		r := newPostingRuns(s, defaultRunBytes)
		for id := range uint32(len(entries)) {
			r.add(id, entries[id])
		}
		r.flush()
		if err := s.w.Flush(); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(s.f.Name())
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	seed := good(map[uint32][]termEntry{
		0: {{term: "alpha", head: []byte{1, 1}, pos: []byte{3}}, {term: "beta", head: []byte{16, 2}, pos: []byte{0, 4}}},
		1: {{term: "alpha", head: []byte{17, 1, 1}, pos: []byte{0, 7}}},
	})
	f.Add(seed)
	f.Add(seed[:len(seed)-2])
	f.Add([]byte{5, 'a', 'l', 'p', 'h', 'a', 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "run")
		s, err := createSpill(path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.remove()
		s.write(data)
		r := newPostingRuns(s, defaultRunBytes)
		if len(data) > 0 {
			r.runs = []spillSpan{{0, int64(len(data))}}
		}
		blocks := 0
		_, err = r.merge(func(key, val []byte) { blocks++ })
		if err != nil && !errors.Is(err, errBadRun) {
			t.Fatalf("merge: %v, want errBadRun", err)
		}
		if bytes.Equal(data, seed) && (err != nil || blocks != 2) {
			t.Fatalf("the seed run: %d blocks, %v; want 2 and no error", blocks, err)
		}
	})
}
