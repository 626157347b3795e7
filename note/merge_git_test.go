package note

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitMergeFile runs `git merge-file -p` on the three texts and returns its merge
// and whether it was clean (the git CLI as an oracle for the body merge).
func gitMergeFile(t *testing.T, base, ours, theirs string) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"base": base, "ours": ours, "theirs": theirs} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("git", "merge-file", "-p", "ours", "base", "theirs")
	cmd.Dir = dir
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), true
	case errors.As(err, &exit) && exit.ExitCode() > 0 && exit.ExitCode() < 127:
		return string(out), false
	}
	t.Fatalf("git merge-file: %v", err)
	return "", false
}

// TestMerge3_gitOracle checks the body merge against git's: wherever `git
// merge-file` merges cleanly, Merge3 does too, with the same bytes. (Merge3 is
// more permissive: changes on adjacent lines, or lines edited in place on both
// sides, merge without a conflict where git reports one.)
func TestMerge3_gitOracle(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	type triple struct{ base, ours, theirs string }
	var cases []triple
	for _, tc := range mergeCases {
		if !strings.Contains(tc.base+tc.ours+tc.theirs, "\r") && !strings.Contains(tc.base+tc.ours+tc.theirs, "---") {
			cases = append(cases, triple{tc.base, tc.ours, tc.theirs})
		}
	}
	// Random edits of a ten-line text: each side replaces, deletes or inserts a
	// few lines. The seed is fixed: the cases are the same on every run.
	r := rand.New(rand.NewSource(26))
	words := []string{"alpha", "beta", "gamma", "delta", "eps"}
	edit := func(lines []string) string {
		out := append([]string(nil), lines...)
		for range 1 + r.Intn(3) {
			i := r.Intn(len(out) + 1)
			switch op := r.Intn(3); {
			case op == 0 && i < len(out):
				out[i] = words[r.Intn(len(words))]
			case op == 1 && i < len(out):
				out = append(out[:i], out[i+1:]...)
			default:
				out = append(out[:i], append([]string{words[r.Intn(len(words))]}, out[i:]...)...)
			}
		}
		return strings.Join(out, "\n") + "\n"
	}
	for range 300 {
		base := strings.Split("l0 l1 l2 l3 l4 l5 l6 l7 l8 l9", " ")
		cases = append(cases, triple{strings.Join(base, "\n") + "\n", edit(base), edit(base)})
	}
	clean := 0
	for _, c := range cases {
		want, ok := gitMergeFile(t, c.base, c.ours, c.theirs)
		if !ok {
			continue
		}
		clean++
		m := Merge3([]byte(c.base), []byte(c.ours), []byte(c.theirs))
		if !m.Clean() || !bytes.Equal(m.Bytes, []byte(want)) {
			t.Errorf("base %q ours %q theirs %q:\ngit   %q\nnorn  %q (conflicts %s)", c.base, c.ours, c.theirs, want, m.Bytes, conflictSummary(m.Conflicts))
		}
	}
	if clean < len(cases)/4 {
		t.Fatalf("only %d of %d cases merge cleanly in git: the oracle checks too little", clean, len(cases))
	}
	t.Logf("%d of %d cases compared", clean, len(cases))
}
