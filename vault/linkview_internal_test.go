package vault

import (
	"context"
	"reflect"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// TestVault_MoveNote_IndexEqualsScan: planned from the index (reading only the
// notes involved) or from every note at HEAD, a move writes the same changes or
// is refused with the same message, and an archive reports the same dangling
// links.
func TestVault_MoveNote_IndexEqualsScan(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"p/Target.md": "---\ntitle: Fresh\n---\n# Target\n",
		"q/src.md":    "# Src\n[[Fresh]] [[Old]] [[New]] [[x#X]]\n",
		"pic.png":     "not really a png\n",
		"h/heads.md":  "# Heads [[Old]]\n## Sub\n[[Other]]\n",
		"r/ref.md":    "# Ref\n[[heads#Heads Old]] [[Heads#Sub]] ![[pic.png]]\n",
	}
	for p, c := range moveFixture {
		files[p] = c
	}
	v := servedVault(t, files)
	x := newIndexer(v.repo, graph.Options{}, nil)
	x.lazy, x.unopened = true, true
	scan := &Vault{repo: v.repo, Settings: v.Settings, Index: x} // no index: every note is read
	if lv, err := v.linkView(ctx); err != nil || lv.scan != nil {
		t.Fatalf("the served vault has no index: %v", err)
	}
	refused, rewrote := 0, 0
	for _, r := range []MoveRequest{
		{From: "a/Old.md", To: "d/e/New.md"}, // h/heads.md's heading changes: [[heads#Heads Old]] would break
		{From: "a/Old.md", To: "a/Fresh.md"}, // captures [[Fresh]]: refused
		{From: "a/Old.md", To: "c/Old.md"},   // beside c/sib.md: [[sib]] from the note changes
		{From: "b/x.md", To: "x2.md"},
		{From: "Other.md", To: "deep/er/Other.md"},
		{From: "h/heads.md", To: "h/Heads moved.md"},
		{From: "a/sib.md", To: "c/sib2.md"},
		{From: "a/Old.md", To: "z/Nope.md", ExpectedRevision: repo.Revision("0000000000000000000000000000000000000000")},
	} {
		a, aerr := v.planMove(ctx, r)
		b, berr := scan.planMove(ctx, r)
		if errText(aerr) != errText(berr) {
			t.Errorf("%s -> %s: index %v\nscan %v", r.From, r.To, aerr, berr)
			continue
		}
		if aerr != nil {
			refused++
		} else if len(a.rewritten) > 0 {
			rewrote++
		}
		if aerr == nil && (!reflect.DeepEqual(a.changes, b.changes) || !reflect.DeepEqual(a.rewritten, b.rewritten)) {
			t.Errorf("%s -> %s:\nindex %+v %v\nscan  %+v %v", r.From, r.To, a.changes, a.rewritten, b.changes, b.rewritten)
		}
	}
	if refused < 2 || rewrote < 3 {
		t.Errorf("%d moves refused, %d rewrote other notes: the cases no longer cover both", refused, rewrote)
	}
	for p := range files {
		lvi, err := v.linkView(ctx)
		if err != nil {
			t.Fatal(err)
		}
		lvs, err := scan.linkView(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ar, ad, aerr := danglingLinks(ctx, lvi, note.Path(p), nil)
		br, bd, berr := danglingLinks(ctx, lvs, note.Path(p), nil)
		if ar != br || !reflect.DeepEqual(ad, bd) || errText(aerr) != errText(berr) {
			t.Errorf("archive %s:\nindex %v %+v %v\nscan  %v %+v %v", p, ar, ad, aerr, br, bd, berr)
		}
	}
}
