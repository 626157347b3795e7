package mcp

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// lcs is the length of the longest common subsequence, by dynamic programming.
func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// TestMCPDiffLines_MinimalAndFaithful: on random texts, the script rebuilds both
// sides and keeps as many lines as the longest common subsequence.
func TestMCPDiffLines_MinimalAndFaithful(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() []string {
		n := r.IntN(30)
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a'+r.IntN(4))) + "\n"
		}
		return out
	}
	for range 500 {
		a, b := gen(), gen()
		script := diffLines(a, b)
		var ga, gb []string
		i, j, kept := 0, 0, 0
		for _, op := range script {
			switch op {
			case ' ':
				if a[i] != b[j] {
					t.Fatalf("kept unequal lines %q %q", a[i], b[j])
				}
				ga, gb = append(ga, a[i]), append(gb, b[j])
				i, j, kept = i+1, j+1, kept+1
			case '-':
				ga = append(ga, a[i])
				i++
			case '+':
				gb = append(gb, b[j])
				j++
			}
		}
		if strings.Join(ga, "") != strings.Join(a, "") || strings.Join(gb, "") != strings.Join(b, "") {
			t.Fatalf("script does not rebuild the texts: %q %q %q", a, b, script)
		}
		if want := lcs(a, b); kept != want {
			t.Fatalf("kept %d lines, the LCS has %d: %q → %q", kept, want, a, b)
		}
	}
}
