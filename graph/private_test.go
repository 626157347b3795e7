package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// privateVault is a random vault for the public-view property: notes in four
// folders that link to one another (so private notes' lines reach public notes'
// inbound fields), about a shared vocabulary with prefix families ("canvas", "canvases",
// "canvassing"), more than maxExpansions terms of one prefix ("zyxw000"…), and
// words only some notes hold; private marks the private ones.
type privateVault struct {
	rng     *rand.Rand
	notes   map[string]string
	private map[string]bool
}

var privateVocab = strings.Fields("canvas canvases canvassing canvasback paint painter painting " +
	"oil brush bloom filter hash ring node graph edge vertex tree heap stack queue " +
	"quokkaplasma hornbeamtoken alpha beta gamma delta")

func newPrivateVault(seed uint64) *privateVault {
	return &privateVault{rng: rand.New(rand.NewPCG(seed, 7)), notes: map[string]string{}, private: map[string]bool{}}
}

// note writes a random note i (version v).
func (pv *privateVault) note(i, v int) string {
	r := pv.rng
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s note %d v%d\ntags: [t%d]\nstatus: s%d\n---\n# %s heading\n\n",
		privateVocab[r.IntN(len(privateVocab))], i, v, i%5, r.IntN(3), privateVocab[r.IntN(len(privateVocab))])
	for w := range 10 + r.IntN(60) {
		if w%9 == 8 {
			b.WriteString("\n")
		}
		if r.IntN(6) == 0 {
			fmt.Fprintf(&b, "zyxw%03d ", r.IntN(400))
			continue
		}
		if r.IntN(10) == 0 { // a link: its line enters the target's inbound field
			fmt.Fprintf(&b, "[[n%03d]] ", r.IntN(200))
		}
		b.WriteString(privateVocab[r.IntN(len(privateVocab))] + " ")
	}
	return b.String() + "\n"
}

// commit changes n random notes (puts, privacy flips, removes) and returns what
// it put and removed.
func (pv *privateVault) commit(n, v int) (put map[string]string, rm []note.Path) {
	put = map[string]string{}
	for range n {
		i := pv.rng.IntN(200)
		p := fmt.Sprintf("f%d/n%03d.md", i%4, i)
		if _, putting := put[p]; putting || slices.Contains(rm, note.Path(p)) {
			continue
		}
		_, ok := pv.notes[p]
		switch k := pv.rng.IntN(6); {
		case ok && k == 0:
			rm = append(rm, note.Path(p))
			delete(pv.notes, p)
			delete(pv.private, p)
			continue
		case ok && k == 1: // the same bytes, the other privacy
			put[p] = pv.notes[p]
			pv.private[p] = !pv.private[p]
			continue
		}
		put[p] = pv.note(i, v)
		pv.notes[p] = put[p]
		pv.private[p] = pv.rng.IntN(3) == 0
	}
	return put, rm
}

// docs returns the docs of notes (path → Markdown) with their private bits.
func (pv *privateVault) docs(t testing.TB, notes map[string]string) []graph.Doc {
	docs := mkDocs(t, notes)
	for i := range docs {
		docs[i].Private = pv.private[string(docs[i].Path)]
	}
	return docs
}

// public returns the notes that are not private.
func (pv *privateVault) public() map[string]string {
	out := map[string]string{}
	for p, s := range pv.notes {
		if !pv.private[p] {
			out[p] = s
		}
	}
	return out
}

// privateQueries exercise every part of ranking: words, prefixes (also one that
// expands to more than maxExpansions terms), phrases, exclusions, required words,
// OR, tags, folders, fields, feedback (words no note holds together), proximity.
var privateQueries = []string{
	"canvas", "canvas -quokkaplasma", "canvas -hornbeamtoken", "quokkaplasma", "hornbeamtoken",
	"canv", "zyxw", "zyxw1", "paint", "painting brush oil", `"oil brush"`, `"canvas paint" bloom`,
	"+canvas heap", "canvas OR hornbeamtoken", "tag:t3", "tag:t2 canvas", "folder:f1 paint",
	"status:s1 graph", "-canvas tag:t1", "hash ring node", "alpha quokkaplasma delta",
	"note heading", "zyxw042 zyxw043",
}

// TestSearch_HidePrivate is the property that a search hiding private notes
// answers exactly — hits, scores, snippets, chunks, matched words, total — as the
// same search of an index that never held them, after incremental updates that
// put, remove and flip notes between private and public, after a rebuild and
// after reopening; Scan likewise.
func TestSearch_HidePrivate(t *testing.T) {
	on := inboundOn().Weights
	for _, opts := range []graph.Options{
		{},
		{Weights: on},
		{Weights: on, DiversityCap: 2, FolderFactors: map[string]float64{"f3": 0.5}, ChunksPerFile: 2},
	} {
		t.Run(fmt.Sprintf("cap=%d/inbound=%v", opts.DiversityCap, opts.Weights.Inbound.Weight), func(t *testing.T) {
			testHidePrivate(t, opts)
		})
	}
}

func testHidePrivate(t *testing.T, opts graph.Options) {
	ctx := context.Background()
	pv := newPrivateVault(3)
	ix, dir := openIndex(t, opts)
	leaked := false
	for c := range 12 {
		put, rm := pv.commit(30+c*10, c)
		if err := ix.Update(ctx, graph.DocBatch(fmt.Sprintf("c%d", c), pv.docs(t, put), rm)); err != nil {
			t.Fatal(err)
		}
		if c%4 != 3 {
			continue
		}
		public, _ := openIndex(t, opts)
		if err := public.Rebuild(ctx, "p", graph.DocRecords(seq(mkDocs(t, pv.public()))), nil); err != nil {
			t.Fatal(err)
		}
		leaked = comparePublic(t, fmt.Sprintf("after commit %d", c), ix, public) || leaked
		if t.Failed() {
			return
		}
		if c == 11 {
			rebuilt, _ := openIndex(t, opts)
			if err := rebuilt.Rebuild(ctx, "r", graph.DocRecords(seq(pv.docs(t, pv.notes))), nil); err != nil {
				t.Fatal(err)
			}
			comparePublic(t, "rebuilt", rebuilt, public)
			if err := ix.Close(); err != nil {
				t.Fatal(err)
			}
			reopened, err := graph.Open(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { reopened.Close() })
			comparePublic(t, "reopened", reopened, public)
		}
	}
	if !leaked {
		t.Error("no query answered differently with the private notes shown: the test shows nothing")
	}
	all := pv.docs(t, pv.notes)
	for _, q := range privateQueries {
		for _, o := range []graph.SearchOptions{{Limit: 1000}, {Limit: 3, Offset: 2, MaxScanDocs: 40}} {
			o.HidePrivate = true
			got, err := graph.Scan(ctx, q, seq(all), o)
			if err != nil {
				t.Fatal(err)
			}
			o.HidePrivate = false
			want, err := graph.Scan(ctx, q, seq(mkDocs(t, pv.public())), o)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("scan %q %+v hiding private notes:\n%+v\nwithout them:\n%+v", q, o, got, want)
			}
		}
	}
}

// comparePublic checks every query, at several pages, on ix hiding private notes
// against public; it reports whether some query answered differently when ix
// showed them.
func comparePublic(t *testing.T, when string, ix, public *graph.Index) (leaked bool) {
	t.Helper()
	pages := []graph.SearchOptions{{Limit: 1000}, {Limit: 1}, {Limit: 5, Offset: 3}, {Limit: 10, Folder: "f2"}}
	for _, q := range privateQueries {
		for _, o := range pages {
			want := search(t, public, q, o)
			shown := search(t, ix, q, o)
			o.HidePrivate = true
			got := search(t, ix, q, o)
			if got.Total != want.Total || !reflect.DeepEqual(got.Hits, want.Hits) {
				t.Errorf("%s: %q %+v hiding private notes: total %d, without them %d%s",
					when, q, o, got.Total, want.Total, firstHitDiff(got.Hits, want.Hits))
				return leaked
			}
			leaked = leaked || shown.Total != want.Total || !reflect.DeepEqual(shown.Hits, want.Hits)
		}
	}
	return leaked
}

// firstHitDiff describes the first hit that differs between got and want.
func firstHitDiff(got, want []graph.Hit) string {
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) {
			return fmt.Sprintf("; %d hits, want %d", len(got), len(want))
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("; hit %d:\n%+v\nwant\n%+v", i, got[i], want[i])
		}
	}
	return ""
}

// TestIndex_PrivateFolders: the index records the private folders its bits were
// judged under; another list (order and case aside) is ErrFormat on Open and on
// Reconfigure, so the bits are judged again by a rebuild.
func TestIndex_PrivateFolders(t *testing.T) {
	dir := t.TempDir()
	opts := graph.Options{PrivateFolders: []string{"personal-notes/", "Diary/"}}
	ix, err := graph.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	same := graph.Options{PrivateFolders: []string{"diary/", "personal-notes/"}}
	if err := ix.Reconfigure(same); err != nil {
		t.Fatalf("same folders in another order and case: %v", err)
	}
	for _, other := range [][]string{nil, {"personal-notes/"}, {"diary/", "personal-notes/", "x/"}} {
		if err := ix.Reconfigure(graph.Options{PrivateFolders: other}); !errors.Is(err, graph.ErrFormat) {
			t.Errorf("reconfigure with %q: %v, want ErrFormat", other, err)
		}
	}
	ix.Close()
	if _, err := graph.Open(dir, graph.Options{PrivateFolders: slices.Clone(opts.PrivateFolders[:1])}); !errors.Is(err, graph.ErrFormat) {
		t.Errorf("open with other folders: %v, want ErrFormat", err)
	}
	ix, err = graph.Open(dir, same)
	if err != nil {
		t.Fatalf("open with the same folders: %v", err)
	}
	ix.Close()
}
