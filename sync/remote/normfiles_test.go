package remote_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRemotes_SyncNornRecords: claims and synthesis records are one YAML file
// each, so two machines' new records never conflict; the same record changed on
// both sides is never merged by lines (which could make invalid YAML): ours
// stays whole, and theirs is kept under .norn/conflicts/, out of the records'
// folder, with a Norn-Conflict trailer.
func TestRemotes_SyncNornRecords(t *testing.T) {
	bare := newBare(t)
	a := newReplica(t, "laptop", bare, true)
	a.put(t, ".norn/claims/shared.yaml", "subject: bloom\nproperty: fpr\nvalue: 1\n")
	a.sync(t)
	b := newReplica(t, "desktop", bare, false)

	a.put(t, ".norn/claims/from-a.yaml", "subject: a\nvalue: 1\n")
	a.put(t, ".norn/synthesis/s-a.yaml", "summary: a.md\n")
	b.put(t, ".norn/claims/from-b.yaml", "subject: b\nvalue: 1\n")
	b.put(t, ".norn/synthesis/s-b.yaml", "summary: b.md\n")
	a.put(t, ".norn/claims/shared.yaml", "subject: bloom\nproperty: fpr\nvalue: 2\nvalid_from: 2026-12-01\n")
	b.put(t, ".norn/claims/shared.yaml", "subject: bloom\nproperty: fpr\nvalue:\n  - 3\n  - 4\n")
	a.sync(t)
	res := b.sync(t)
	a.sync(t)
	if len(res.Conflicts) != 1 || res.Conflicts[0].Path != ".norn/claims/shared.yaml" {
		t.Fatalf("conflicts: %+v, want one, on the shared record", res.Conflicts)
	}
	sib := string(res.Conflicts[0].Sibling)
	if !strings.HasPrefix(sib, ".norn/conflicts/claims/shared (conflict ") || !strings.HasSuffix(sib, " desktop).yaml") {
		t.Fatalf("sibling at %s", sib)
	}
	for _, rp := range []*replica{a, b} {
		checkRepl(t, rp)
		entries, err := os.ReadDir(filepath.Join(rp.v.Dir(), ".norn", "claims"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if want := []string{"from-a.yaml", "from-b.yaml", "shared.yaml"}; !slices.Equal(names, want) {
			t.Errorf("%s: .norn/claims holds %v, want %v", rp.name, names, want)
		}
		if got := rp.read(t, ".norn/claims/shared.yaml"); got != "subject: bloom\nproperty: fpr\nvalue:\n  - 3\n  - 4\n" {
			t.Errorf("%s: the shared record is %q, want ours (desktop's) whole", rp.name, got)
		}
		if got := rp.read(t, sib); got != "subject: bloom\nproperty: fpr\nvalue: 2\nvalid_from: 2026-12-01\n" {
			t.Errorf("%s: the sibling is %q, want theirs whole", rp.name, got)
		}
		for _, p := range []string{".norn/synthesis/s-a.yaml", ".norn/synthesis/s-b.yaml"} {
			rp.read(t, p)
		}
	}
	if msg := git(t, b.v.Dir(), "log", "-1", "--format=%B"); !strings.Contains(msg, "Norn-Conflict: .norn/claims/shared.yaml") {
		t.Fatalf("merge message:\n%s", msg)
	}
}
