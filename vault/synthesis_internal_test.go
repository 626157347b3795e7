package vault

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/norn-vault/norn/note"
)

// TestSynthesisBudget_Deadline: a walk past its deadline stops at the next check
// and answers incomplete, never current. The clock is the budget's, so the test
// waits for nothing.
func TestSynthesisBudget_Deadline(t *testing.T) {
	ctx := context.Background()
	v := servedVault(t, map[string]string{"top.md": opsNote, "a.md": "# a\n", "b.md": "# b\n",
		".norn/config.yaml": "synthesis:\n  deadline: 40ms\n"})
	c, err := v.Viewer(ctx, Actor{Author: testOwner, Roles: []string{"owner"}, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.RegisterSynthesis(ctx, SynthesisRequest{Summary: "top.md", Sources: []note.Path{"a.md", "b.md"}, Author: testOwner}); err != nil {
		t.Fatal(err)
	}
	b := c.SynthesisBudget()
	if b.DeadlineMS != 40 {
		t.Fatalf("deadline from the settings: %+v", b)
	}
	now := b.deadline.Add(-time.Millisecond)
	b.now = func() time.Time { now = now.Add(time.Millisecond); return now } // one check within, then past
	st, err := c.SynthesisStatus(ctx, "top.md", b)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != SynthesisIncomplete || st.Checked != 1 || b.Exhausted != "deadline" {
		t.Fatalf("past the deadline: %+v, budget %+v", st, b)
	}
}

// TestSynthesisBudget_Bytes: a budget of fewer bytes than the registrations read
// stops the walk at its next check: incomplete, the bytes named.
func TestSynthesisBudget_Bytes(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{"top.md": opsNote}
	var sources []note.Path
	for i := range 32 {
		p := note.Path(fmt.Sprintf("sources/a-rather-long-folder-name/note-%02d.md", i))
		files[string(p)] = fmt.Sprintf("# %d\n", i)
		sources = append(sources, p)
	}
	v := servedVault(t, files)
	c, err := v.Viewer(ctx, Actor{Author: testOwner, Roles: []string{"owner"}, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.RegisterSynthesis(ctx, SynthesisRequest{Summary: "top.md", Sources: sources, Author: testOwner}); err != nil {
		t.Fatal(err)
	}
	b := c.SynthesisBudget()
	b.Bytes = 1 << 10 // the registration's row is 32 × 91 bytes
	st, err := c.SynthesisStatus(ctx, "top.md", b)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != SynthesisIncomplete || st.Checked != 0 || b.Exhausted != "bytes" || b.UsedBytes <= b.Bytes {
		t.Fatalf("over the bytes: %+v, budget %+v", st, b)
	}
}
