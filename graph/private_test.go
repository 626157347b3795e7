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
	title := fmt.Sprintf("%s note %d v%d", privateVocab[r.IntN(len(privateVocab))], i, v)
	if i%40 == 0 && r.IntN(2) == 0 { // a shared title: [[Alpha plan]] resolves only while one note holds it
		title = "Alpha plan"
	}
	fmt.Fprintf(&b, "---\ntitle: %s\ntags: [t%d]\nstatus: s%d\n---\n# %s heading\n\n",
		title, i%5, r.IntN(3), privateVocab[r.IntN(len(privateVocab))])
	for w := range 10 + r.IntN(60) {
		if w%9 == 8 {
			b.WriteString("\n")
		}
		if r.IntN(6) == 0 {
			fmt.Fprintf(&b, "zyxw%03d ", r.IntN(400))
			continue
		}
		switch r.IntN(20) { // a link: its line enters the target's inbound field
		case 0:
			fmt.Fprintf(&b, "[[n%03d]] ", r.IntN(200))
		case 1:
			b.WriteString("[[Alpha plan]] ")
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
			compareShown(t, ix, rebuilt)
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

// compareShown checks every query on ix, built incrementally, against rebuilt
// with the private notes shown: both views' lines follow their notes exactly.
func compareShown(t *testing.T, ix, rebuilt *graph.Index) {
	t.Helper()
	for _, q := range privateQueries {
		o := graph.SearchOptions{Limit: 1000}
		got, want := search(t, ix, q, o), search(t, rebuilt, q, o)
		if got.Total != want.Total || !reflect.DeepEqual(got.Hits, want.Hits) {
			t.Errorf("%q with private notes shown: total %d incremental, %d rebuilt%s", q, got.Total, want.Total, firstHitDiff(got.Hits, want.Hits))
			return
		}
	}
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

// TestSearch_HidePrivate_NameCollision walks one public link, [[Alpha plan]],
// through the ways a private note's name changes where it resolves: a private
// namesake makes it ambiguous only to a caller who sees private notes; a second
// public namesake makes it ambiguous to everyone (its target loses the line
// though nothing it links to changed); privacy flips; renames. After every step
// the incremental index answers, hiding private notes, as an index of the public
// notes alone, and, showing them, as a rebuild.
func TestSearch_HidePrivate_NameCollision(t *testing.T) {
	ctx := context.Background()
	plan := func(title, body string) string { return "---\ntitle: " + title + "\n---\n" + body + "\n" }
	notes := map[string]string{
		"a.md": plan("Source", "the zebrafinch roadmap is [[Alpha plan]]"),
		"p.md": plan("Alpha plan", "public plan text"),
	}
	private := map[string]bool{}
	steps := []struct {
		name    string
		put     map[string]string
		private map[string]bool
		rm      []note.Path
	}{
		{name: "start", put: notes},
		{name: "private namesake", put: map[string]string{"x.md": plan("Alpha plan", "secret plan")}, private: map[string]bool{"x.md": true}},
		{name: "public namesake", put: map[string]string{"q.md": plan("Alpha plan", "another plan")}},
		{name: "public namesake gone", rm: []note.Path{"q.md"}},
		{name: "namesake made public", put: map[string]string{"x.md": plan("Alpha plan", "secret plan")}},
		{name: "namesake made private", put: map[string]string{"x.md": plan("Alpha plan", "secret plan")}, private: map[string]bool{"x.md": true}},
		{name: "public target renamed", put: map[string]string{"p.md": plan("Beta plan", "public plan text")}},
		{name: "public target named back", put: map[string]string{"p.md": plan("Alpha plan", "public plan text")}},
		{name: "private namesake gone", rm: []note.Path{"x.md"}},
	}
	ix, _ := openIndex(t, inboundOn())
	live := map[string]string{}
	for c, s := range steps {
		for p, text := range s.put {
			live[p] = text
			private[p] = s.private[p]
		}
		for _, p := range s.rm {
			delete(live, string(p))
			delete(private, string(p))
		}
		docs := func(only func(p string) bool) []graph.Doc {
			m := map[string]string{}
			for p, text := range live {
				if only(p) {
					m[p] = text
				}
			}
			ds := mkDocs(t, m)
			for i := range ds {
				ds[i].Private = private[string(ds[i].Path)]
			}
			return ds
		}
		put := mkDocs(t, s.put)
		for i := range put {
			put[i].Private = private[string(put[i].Path)]
		}
		if err := ix.Update(ctx, graph.DocBatch(fmt.Sprintf("c%d", c), put, s.rm)); err != nil {
			t.Fatal(err)
		}
		public, _ := openIndex(t, inboundOn())
		if err := public.Rebuild(ctx, "p", graph.DocRecords(seq(docs(func(p string) bool { return !private[p] }))), nil); err != nil {
			t.Fatal(err)
		}
		rebuilt, _ := openIndex(t, inboundOn())
		if err := rebuilt.Rebuild(ctx, "r", graph.DocRecords(seq(docs(func(string) bool { return true }))), nil); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"zebrafinch", "zebrafinch plan", "roadmap"} {
			want := search(t, public, q, graph.SearchOptions{Limit: 10})
			got := search(t, ix, q, graph.SearchOptions{Limit: 10, HidePrivate: true})
			if got.Total != want.Total || !reflect.DeepEqual(got.Hits, want.Hits) {
				t.Errorf("%s: %q hiding private notes: total %d, without them %d%s", s.name, q, got.Total, want.Total, firstHitDiff(got.Hits, want.Hits))
			}
		}
		for _, q := range []string{"zebrafinch", "roadmap"} {
			got, want := search(t, ix, q, graph.SearchOptions{Limit: 10}), search(t, rebuilt, q, graph.SearchOptions{Limit: 10})
			if got.Total != want.Total || !reflect.DeepEqual(got.Hits, want.Hits) {
				t.Errorf("%s: %q shown: total %d incremental, %d rebuilt%s", s.name, q, got.Total, want.Total, firstHitDiff(got.Hits, want.Hits))
			}
		}
	}
}

// TestIndex_PrivateTags: the index records the private tags its bits were judged
// under as it does the folders: other tags (order and case aside) are ErrFormat on
// Open and on Reconfigure; an index built without tags opens without them as
// before (its format record did not change).
func TestIndex_PrivateTags(t *testing.T) {
	dir := t.TempDir()
	folders := []string{"personal-notes/"}
	ix, err := graph.Open(dir, graph.Options{PrivateFolders: folders})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Reconfigure(graph.Options{PrivateFolders: folders, PrivateTags: []string{"diary"}}); !errors.Is(err, graph.ErrFormat) {
		t.Errorf("reconfigure with a private tag added: %v, want ErrFormat", err)
	}
	ix.Close()
	opts := graph.Options{PrivateFolders: folders, PrivateTags: []string{"diary", "Health/private"}}
	if _, err := graph.Open(dir, opts); !errors.Is(err, graph.ErrFormat) {
		t.Fatalf("open an index built without tags with tags: %v, want ErrFormat", err)
	}
	dir = t.TempDir()
	if ix, err = graph.Open(dir, opts); err != nil {
		t.Fatal(err)
	}
	same := graph.Options{PrivateFolders: folders, PrivateTags: []string{"health/private", "diary", "DIARY"}}
	if err := ix.Reconfigure(same); err != nil {
		t.Fatalf("same tags in another order and case: %v", err)
	}
	for _, other := range [][]string{nil, {"diary"}, {"diary", "health/private", "x"}} {
		if err := ix.Reconfigure(graph.Options{PrivateFolders: folders, PrivateTags: other}); !errors.Is(err, graph.ErrFormat) {
			t.Errorf("reconfigure with tags %q: %v, want ErrFormat", other, err)
		}
	}
	ix.Close()
	if _, err := graph.Open(dir, graph.Options{PrivateFolders: folders}); !errors.Is(err, graph.ErrFormat) {
		t.Errorf("open without the tags: %v, want ErrFormat", err)
	}
	if ix, err = graph.Open(dir, same); err != nil {
		t.Fatalf("open with the same tags: %v", err)
	}
	ix.Close()
}
