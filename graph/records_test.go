package graph_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// rowsOf reads every row of table.
func rowsOf(t testing.TB, ix *graph.Index, table string) map[string]string {
	t.Helper()
	rows, err := ix.Rows(context.Background(), table, nil)
	if err != nil {
		t.Fatalf("rows of %s: %v", table, err)
	}
	out := map[string]string{}
	for _, r := range rows {
		if r.Table != table {
			t.Fatalf("row %q of table %q in %s", r.Key, r.Table, table)
		}
		out[string(r.Key)] = string(r.Value)
	}
	return out
}

func row(table, key, value string) graph.Row {
	return graph.Row{Table: table, Key: []byte(key), Value: []byte(value)}
}

func records(docs []graph.Doc, more ...graph.Record) []graph.Record {
	var out []graph.Record
	for _, d := range docs {
		out = append(out, d)
	}
	return append(out, more...)
}

func recordSeq(recs []graph.Record) iter.Seq2[graph.Record, error] {
	return func(yield func(graph.Record, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// TestIndex_Rows: rows written with notes are read back by key and by prefix,
// in key order and per table; a delete drops one; they outlive a reopen.
func TestIndex_Rows(t *testing.T) {
	ctx := context.Background()
	ix, dir := openIndex(t, graph.Options{})
	recs := records(mkDocs(t, vault),
		row("claims", "b/2", "two"), row("claims", "a/1", "one"), row("claims", "b/1", "\x00\xff"),
		row("claims.x", "a/1", "other table"), row("synthesis", "s", ""))
	if err := ix.Update(ctx, graph.Batch{Commit: "c1", Records: recs}); err != nil {
		t.Fatal(err)
	}
	got, err := ix.Rows(ctx, "claims", nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range got {
		keys = append(keys, string(r.Key))
	}
	if want := []string{"a/1", "b/1", "b/2"}; !slices.Equal(keys, want) {
		t.Errorf("claims keys %q, want %q", keys, want)
	}
	if got, err := ix.Rows(ctx, "claims", []byte("b/")); err != nil || len(got) != 2 || string(got[1].Value) != "two" {
		t.Errorf("claims b/: %+v, %v", got, err)
	}
	if v, ok, err := ix.LookupRow("claims", []byte("b/1")); err != nil || !ok || !bytes.Equal(v, []byte("\x00\xff")) {
		t.Errorf("lookup claims b/1: %q %v %v", v, ok, err)
	}
	if v, ok, err := ix.LookupRow("synthesis", []byte("s")); err != nil || !ok || len(v) != 0 {
		t.Errorf("lookup an empty value: %q %v %v", v, ok, err)
	}
	if _, ok, err := ix.LookupRow("claims", []byte("c")); err != nil || ok {
		t.Errorf("lookup an absent key: %v %v", ok, err)
	}
	if _, _, err := ix.LookupRow("Bad/Table", []byte("k")); !errors.Is(err, graph.ErrInvalidBatch) {
		t.Errorf("lookup in a bad table name: %v", err)
	}
	del := graph.Batch{Commit: "c2", Records: []graph.Record{graph.Row{Table: "claims", Key: []byte("a/1"), Delete: true}, row("claims", "b/2", "2")}}
	if err := ix.Update(ctx, del); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	ix2, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if got, want := rowsOf(t, ix2, "claims"), map[string]string{"b/1": "\x00\xff", "b/2": "2"}; !mapsEqual(got, want) {
		t.Errorf("claims after reopen %q, want %q", got, want)
	}
	if got := rowsOf(t, ix2, "claims.x"); len(got) != 1 || ix2.Commit() != "c2" || ix2.Len() != len(vault) {
		t.Errorf("claims.x %q, commit %q, len %d", got, ix2.Commit(), ix2.Len())
	}
	if _, err := ix2.Rows(ctx, "claims", nil); err != nil {
		t.Fatal(err)
	}
	ix2.Close()
	if _, err := ix2.Rows(ctx, "claims", nil); !errors.Is(err, graph.ErrClosed) {
		t.Errorf("rows of a closed index: %v", err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestIndex_Update_InvalidBatch: a batch with any bad record is ErrInvalidBatch
// and writes nothing of the others — no note, no row, no commit.
func TestIndex_Update_InvalidBatch(t *testing.T) {
	ctx := context.Background()
	ix, _ := openIndex(t, graph.Options{})
	if err := ix.Update(ctx, graph.Batch{Commit: "c1", Records: []graph.Record{row("t", "k", "v1")}}); err != nil {
		t.Fatal(err)
	}
	good := mkDocs(t, map[string]string{"new.md": "# New\n\nokapi\n"})
	for name, bad := range map[string]graph.Record{
		"empty table":     row("", "k", "v"),
		"table too long":  row(strings.Repeat("t", 65), "k", "v"),
		"table bytes":     row("Claims", "k", "v"),
		"table nul":       row("t\x00u", "k", "v"),
		"empty key":       row("t", "", "v"),
		"key too long":    row("t", strings.Repeat("k", 4097), "v"),
		"value too large": row("t", "k2", strings.Repeat("v", 1<<20+1)),
		"delete a value":  graph.Row{Table: "t", Key: []byte("k"), Value: []byte("v"), Delete: true},
		"row twice":       row("t", "new", "again"),
		"nil":             nil,
		"empty path":      graph.Doc{},
		"put twice":       good[0],
		"put and removed": graph.Remove{Path: "new.md"},
	} {
		recs := records(good, row("t", "k", "v2"), row("t", "new", "v"), bad)
		err := ix.Update(ctx, graph.Batch{Commit: "bad", Records: recs})
		if !errors.Is(err, graph.ErrInvalidBatch) {
			t.Errorf("%s: %v, want ErrInvalidBatch", name, err)
		}
	}
	if got := rowsOf(t, ix, "t"); ix.Commit() != "c1" || ix.Len() != 0 || !mapsEqual(got, map[string]string{"k": "v1"}) {
		t.Errorf("after bad batches: commit %q, len %d, rows %q", ix.Commit(), ix.Len(), got)
	}
	if res := search(t, ix, "okapi", graph.SearchOptions{}); res.Total != 0 {
		t.Errorf("a refused batch indexed a note: %+v", res.Hits)
	}
}

// TestIndex_Rebuild_Rows: a rebuild keeps exactly the rows it is given (the
// others, of every table, are dropped); one refused or failing midway leaves the
// rows and the commit as they were.
func TestIndex_Rebuild_Rows(t *testing.T) {
	ctx := context.Background()
	ix, dir := openIndex(t, graph.Options{})
	docs := mkDocs(t, vault)
	recs := records(docs, row("a", "1", "one"), row("a", "2", "two"), row("b", "1", "b-one"))
	if err := ix.Update(ctx, graph.Batch{Commit: "c1", Records: recs}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Rebuild(ctx, "c2", recordSeq(records(docs, row("a", "2", "deux"), row("a", "3", "trois"))), nil); err != nil {
		t.Fatal(err)
	}
	wantA := map[string]string{"2": "deux", "3": "trois"}
	check := func(ix *graph.Index, when string) {
		t.Helper()
		if got := rowsOf(t, ix, "a"); !mapsEqual(got, wantA) {
			t.Errorf("%s: table a %q, want %q", when, got, wantA)
		}
		if got := rowsOf(t, ix, "b"); len(got) != 0 {
			t.Errorf("%s: table b %q survived the rebuild", when, got)
		}
		if ix.Commit() != "c2" || ix.Len() != len(vault) {
			t.Errorf("%s: commit %q len %d", when, ix.Commit(), ix.Len())
		}
	}
	check(ix, "rebuilt")
	boom := errors.New("boom")
	for name, tail := range map[string]iter.Seq2[graph.Record, error]{
		"remove":    recordSeq([]graph.Record{graph.Remove{Path: "x.md"}}),
		"delete":    recordSeq([]graph.Record{graph.Row{Table: "a", Key: []byte("2"), Delete: true}}),
		"row twice": recordSeq([]graph.Record{row("a", "9", "x"), row("a", "9", "y")}),
		"bad row":   recordSeq([]graph.Record{row("a", "", "x")}),
		"error": func(yield func(graph.Record, error) bool) {
			if yield(row("a", "9", "x"), nil) {
				yield(nil, boom)
			}
		},
	} {
		seq := func(yield func(graph.Record, error) bool) {
			for _, r := range records(docs[:2], row("c", "1", "x")) {
				if !yield(r, nil) {
					return
				}
			}
			tail(yield)
		}
		err := ix.Rebuild(ctx, "c3", seq, nil)
		if want := graph.ErrInvalidBatch; name == "error" && !errors.Is(err, boom) || name != "error" && !errors.Is(err, want) {
			t.Errorf("rebuild with %s: %v", name, err)
		}
		if got := rowsOf(t, ix, "c"); len(got) != 0 {
			t.Errorf("rebuild with %s wrote rows: %q", name, got)
		}
	}
	check(ix, "after failed rebuilds")
	ix.Close()
	ix2, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	check(ix2, "reopened")
}

// TestIndex_RowsUpdateEqualsRebuild: rows set, overwritten and deleted over many
// Updates (with notes beside them) end as a rebuild given the live rows leaves
// them, table by table.
func TestIndex_RowsUpdateEqualsRebuild(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	tables := []string{"claims", "synthesis", "archive"}
	ix, _ := openIndex(t, graph.Options{})
	live := map[string]map[string]string{}
	notes := map[string]string{}
	for c := range 30 {
		var recs []graph.Record
		touched := map[string]bool{}
		put := map[string]string{}
		for range 1 + rng.IntN(20) {
			tb := tables[rng.IntN(len(tables))]
			k := fmt.Sprintf("k%02d", rng.IntN(40))
			if touched[tb+"/"+k] {
				continue
			}
			touched[tb+"/"+k] = true
			if live[tb] == nil {
				live[tb] = map[string]string{}
			}
			if _, ok := live[tb][k]; ok && rng.IntN(3) == 0 {
				recs = append(recs, graph.Row{Table: tb, Key: []byte(k), Delete: true})
				delete(live[tb], k)
				continue
			}
			v := fmt.Sprintf("v%d", c)
			recs = append(recs, row(tb, k, v))
			live[tb][k] = v
		}
		for range rng.IntN(3) {
			p := fmt.Sprintf("n%d.md", rng.IntN(10))
			put[p] = fmt.Sprintf("# Note %s\n\nversion %d\n", p, c)
			notes[p] = put[p]
		}
		recs = append(recs, records(mkDocs(t, put))...)
		if err := ix.Update(ctx, graph.Batch{Commit: fmt.Sprint("c", c), Records: recs}); err != nil {
			t.Fatal(err)
		}
	}
	all := records(mkDocs(t, notes))
	for _, tb := range tables {
		for k, v := range live[tb] {
			all = append(all, row(tb, k, v))
		}
	}
	fresh, _ := openIndex(t, graph.Options{})
	if err := fresh.Rebuild(ctx, "c29", recordSeq(all), nil); err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		a, b := rowsOf(t, ix, tb), rowsOf(t, fresh, tb)
		if !mapsEqual(a, b) || !mapsEqual(a, live[tb]) {
			t.Errorf("table %s: incremental %q, rebuilt %q, want %q", tb, a, b, live[tb])
		}
	}
	if ix.Len() != fresh.Len() || ix.Commit() != fresh.Commit() {
		t.Errorf("len %d vs %d, commit %q vs %q", ix.Len(), fresh.Len(), ix.Commit(), fresh.Commit())
	}
}

// TestDoc_Kind: a Doc without a Note is an attachment.
func TestDoc_Kind(t *testing.T) {
	if k := (graph.Doc{Path: "a.png"}).Kind(); k != graph.KindAttachment {
		t.Errorf("attachment: %s", k)
	}
	if k := mkDocs(t, map[string]string{"a.md": "# A\n"})[0].Kind(); k != graph.KindNote {
		t.Errorf("note: %s", k)
	}
	b := graph.DocBatch("c", mkDocs(t, map[string]string{"a.md": "# A\n"}), []note.Path{"b.md"})
	if len(b.Records) != 2 || b.Records[0].Kind() != graph.KindNote || b.Records[1].Kind() != graph.KindRemove || b.Commit != "c" {
		t.Errorf("DocBatch: %+v", b)
	}
}
